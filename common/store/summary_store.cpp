// Opening stores safely (writers through a directory fd, never a link or another user's file),
// batched durable writes, and reads by path or file id.
#include "common/store/summary_store.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>

#include "common/safety/dump_roots.h"
#include "common/store/store_codec.h"
#include "common/store/store_schema.h"
#include "common/store/store_vfs.h"

namespace msit::store {
namespace {

constexpr const char* kInsertFile =
    "INSERT INTO files(path, kind, size_bytes, mtime_ns, dev, ino, op_type, op_name, task_id, stream_id, "
    "op_timestamp, dump_op_name, created_by, stored_at_ns, extra_block_count) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)";
constexpr const char* kInsertTensor =
    "INSERT INTO tensors(file_id, ord, role, idx, sub_index, dtype, shape, format, original_shape, count, "
    "padding_included, stats_available, l2norm_available, note, min, max, min_int, max_int, min_uint, max_uint, "
    "mean, std, abs_max, l2norm, sum, finite_count, nan_count, posinf_count, neginf_count, zero_count, elements, "
    "sketch_width, sketch_seed, sketch, xxh3_64) VALUES "
    "(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)";
constexpr const char* kInsertBlock =
    "INSERT INTO extra_blocks(file_id, ord, role, idx, size_bytes, xxh3_64) VALUES (?,?,?,?,?,?)";
constexpr const char* kFindFile = "SELECT id, size_bytes, mtime_ns, dev, ino FROM files WHERE path = ?";
// One statement per file: its row and its tensors (LEFT JOIN: a file without tensors still
// gives its row). Column order: store_codec.cpp (FileCol, TensorCol).
#define MSIT_STORE_FILE_COLUMNS                                                                      \
  "f.kind, f.size_bytes, f.mtime_ns, f.op_type, f.op_name, f.task_id, f.stream_id, f.op_timestamp, " \
  "f.dump_op_name, f.created_by, f.path, f.extra_block_count"
#define MSIT_STORE_TENSOR_COLUMNS                                                                               \
  "t.role, t.idx, t.sub_index, t.dtype, t.shape, t.format, t.original_shape, t.count, t.padding_included, "     \
  "t.stats_available, t.l2norm_available, t.note, t.min, t.max, t.min_int, t.max_int, t.min_uint, t.max_uint, " \
  "t.mean, t.std, t.abs_max, t.l2norm, t.sum, t.finite_count, t.nan_count, t.posinf_count, t.neginf_count, "    \
  "t.zero_count, t.elements, t.sketch_width, t.sketch_seed, t.sketch, t.xxh3_64"
constexpr const char* kSelectFile =
    "SELECT " MSIT_STORE_FILE_COLUMNS ", " MSIT_STORE_TENSOR_COLUMNS
    " FROM files f LEFT JOIN tensors t ON t.file_id = f.id WHERE f.id = ? ORDER BY t.ord";
// Compare's batched reads: the tensors alone (one walk along the tensors table's primary key
// instead of a lookup into it per file row: on 100,000 stored pairs compare's evaluate phase
// went from 0.53-0.56 s to 0.38-0.41 s), and only the columns compare reads. Stepping a column
// costs ~4 ms per 100,000 rows: these 28 of 33 read 100,000 rows in ~130 ms instead of ~195.
// A file without tensors, or an id not in the store, has no rows here: load_locked() says which.
#define MSIT_STORE_COMPARE_COLUMNS                                                                              \
  "t.file_id, t.role, t.idx, t.dtype, t.shape, t.format, t.original_shape, t.count, t.padding_included, "       \
  "t.stats_available, t.l2norm_available, t.note, t.min, t.max, t.min_int, t.max_int, t.min_uint, t.max_uint, " \
  "t.mean, t.l2norm, t.nan_count, t.posinf_count, t.neginf_count, t.elements, t.sketch_width, t.sketch_seed, "  \
  "t.sketch, t.xxh3_64"
constexpr const char* kSelectTensorsRange = "SELECT " MSIT_STORE_COMPARE_COLUMNS
                                            " FROM tensors t WHERE t.file_id BETWEEN ?1 AND ?2 "
                                            "ORDER BY t.file_id, t.ord";
// ?1 .. ?kInListIds: load_many binds a group's ids, repeating the last one in the spare slots.
constexpr int kInListIds = 32;
const std::string& select_tensors_in_sql() {
  static const std::string sql = [] {
    std::string q = "SELECT " MSIT_STORE_COMPARE_COLUMNS " FROM tensors t WHERE t.file_id IN (";
    for (int p = 1; p <= kInListIds; ++p) q += (p > 1 ? ",?" : "?") + std::to_string(p);
    return q + ") ORDER BY t.file_id, t.ord";
  }();
  return sql;
}
#undef MSIT_STORE_FILE_COLUMNS
#undef MSIT_STORE_TENSOR_COLUMNS
#undef MSIT_STORE_COMPARE_COLUMNS
constexpr const char* kSelectBlocks =
    "SELECT role, idx, size_bytes, xxh3_64 FROM extra_blocks WHERE file_id = ? ORDER BY ord";

// A hostile summary store must not make a reader allocate without bound.
constexpr int kMaxTensorsPerFile = 4096;

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string base_name(std::string_view rel) {
  size_t slash = rel.rfind('/');
  return std::string(slash == std::string_view::npos ? rel : rel.substr(slash + 1));
}

// The owner every file of the store in `dir` must have: ours; as root, the database's owner
// (a store is created with the owner of the raw files it holds, and SQLite gives its -wal and
// -shm the database's owner), whose rows are only ever that owner's files' (docs/store.md).
uid_t expected_store_owner(const DirRef& dir) {
  struct stat st {};
  if (::geteuid() == 0 && ::fstatat(dir.get(), std::string(kStoreFileName).c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 &&
      S_ISREG(st.st_mode))
    return st.st_uid;
  return ::geteuid();
}

// The store's files already in the directory must be plain files of the store's owner:
// SQLite would otherwise write through a link, or into a file another user planted.
Status check_store_files(const DirRef& dir) {
  const uid_t owner = expected_store_owner(dir);
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) {
    const std::string name = std::string(kStoreFileName) + suffix;
    const std::string path = dir.path + "/" + name;
    struct stat st {};
    if (::fstatat(dir.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
      if (errno == ENOENT) continue;
      return make_sys_error(path, Stage::kStore, "cannot look at the store's file", errno);
    }
    if (!S_ISREG(st.st_mode)) {
      return make_error(path, Stage::kStore,
                        "is not a regular file (a link?): stores are never opened through one; "
                        "raw files kept");
    }
    if (st.st_uid != owner) {
      return make_error(path, Stage::kStore,
                        "belongs to uid " + std::to_string(st.st_uid) + ", not to the store's owner (uid " +
                            std::to_string(owner) + "): not written to; raw files kept");
    }
    if (st.st_nlink != 1) {
      return make_error(path, Stage::kStore,
                        "has " + std::to_string(st.st_nlink) +
                            " hard links: not written to; raw "
                            "files kept");
    }
  }
  return ok_status();
}

void harden(sqlite3* db) {
  sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);
  sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, nullptr);
  sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, nullptr);
  sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_VIEW, 1, nullptr);
  sqlite3_busy_timeout(db, 10000);
}

Result<DbHandle> open_db(const std::string& filename, int flags, const char* vfs, const std::string& path) {
  init_sqlite();
  sqlite3* raw = nullptr;
  int rc = sqlite3_open_v2(filename.c_str(), &raw, flags | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE, vfs);
  DbHandle db(raw);
  if (rc != SQLITE_OK) return sqlite_error(db.get(), path, Stage::kStore, "cannot open the summary store");
  harden(db.get());
  return db;
}

}  // namespace

SummaryStore::~SummaryStore() {
  lookups_.reset();  // closed first: the writer's close then checkpoints and removes the WAL
  insert_file_.reset();
  insert_tensor_.reset();
  insert_block_.reset();
  find_file_.reset();
  select_file_.reset();
  select_tensors_range_.reset();
  select_tensors_in_.reset();
  select_blocks_.reset();
  db_.reset();
}

Result<std::unique_ptr<SummaryStore>> SummaryStore::open_for_write(const DirRef& dir) {
  std::unique_ptr<SummaryStore> s(new SummaryStore());
  s->dir_ = dir;
  s->path_ = dir.path + "/" + std::string(kStoreFileName);
  MSIT_TRY(check_store_files(dir));
  const char* vfs = beneath_vfs();
  if (vfs == nullptr)
    return make_error(s->path_, Stage::kStore,
                      "this SQLite build cannot open files through a directory fd; use --summary-format json");
  forget_last_open();
  MSIT_ASSIGN_OR_RETURN(s->db_, open_db(beneath_filename(dir.get(), kStoreFileName),
                                        SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, vfs, s->path_));
  const std::optional<FileKey> written = last_open_of(kStoreFileName);
  MSIT_TRY(s->init_schema(true));
  MSIT_TRY(s->prepare_statements(true));
  MSIT_ASSIGN_OR_RETURN(s->lookups_, open_lookups(dir, s->path_, written));
  return s;
}

Result<std::unique_ptr<SummaryStore>> SummaryStore::open_lookups(const DirRef& dir, const std::string& path,
                                                                 const std::optional<FileKey>& written) {
  std::unique_ptr<SummaryStore> s(new SummaryStore());
  s->dir_ = dir;
  s->path_ = path;
  // Opened the way the writer opens the store (through the directory fd, read-write flags);
  // query_only makes SQLite refuse any write through this connection.
  forget_last_open();
  MSIT_ASSIGN_OR_RETURN(
      s->db_, open_db(beneath_filename(dir.get(), kStoreFileName), SQLITE_OPEN_READWRITE, beneath_vfs(), path));
  // The name is opened a second time: a file put in its place since the writer's open would
  // answer lookups with rows the writer never committed ("already summarised": raw removed).
  const std::optional<FileKey> read = last_open_of(kStoreFileName);
  if (!written || !read || *written != *read) {
    return make_error(path, Stage::kStore,
                      "was replaced by another file while it was being opened (or its identity could not be "
                      "checked): not written to; raw files kept");
  }
  MSIT_TRY(exec(s->db_.get(), path, "PRAGMA query_only=1"));
  MSIT_TRY(s->init_schema(false));
  MSIT_TRY(s->prepare_statements(false));
  return s;
}

// The WAL of a writer killed mid-run must be replayed into a fresh -shm index before a
// read-only connection can use it; only a read-write connection may do that. It is opened
// the way writers open stores (directory fd, no links, only files of ours) and closed again:
// recovery rewrites the -shm index, never the database's content.
Status recover_wal(const std::string& db_path) {
  const size_t slash = db_path.rfind('/');
  const std::string dir_path = slash == std::string::npos ? "." : slash == 0 ? "/" : db_path.substr(0, slash);
  MSIT_ASSIGN_OR_RETURN(UniqueFd fd, open_trusted_dir(dir_path));
  DirRef dir{std::make_shared<const UniqueFd>(std::move(fd)), dir_path};
  auto owned = check_store_files(dir);
  if (!owned.ok()) {
    return make_error(db_path, Stage::kStore,
                      "its write-ahead log needs recovery (its writer was killed), which only "
                      "its owner can do: run compact or watch on the tree as that user");
  }
  const char* vfs = beneath_vfs();
  if (vfs == nullptr) return make_error(db_path, Stage::kStore, "cannot recover its write-ahead log with this SQLite");
  MSIT_ASSIGN_OR_RETURN(DbHandle db,
                        open_db(beneath_filename(dir.get(), kStoreFileName), SQLITE_OPEN_READWRITE, vfs, db_path));
  MSIT_ASSIGN_OR_RETURN(bool empty, is_empty_database(db.get(), db_path));
  (void)empty;
  return ok_status();
}

Result<std::unique_ptr<SummaryStore>> SummaryStore::open_read_only(const std::string& db_path) {
  std::unique_ptr<SummaryStore> s(new SummaryStore());
  s->path_ = db_path;
  auto open_plain = [&]() -> Status {
    MSIT_ASSIGN_OR_RETURN(s->db_, open_db(db_path, SQLITE_OPEN_READONLY, nullptr, db_path));
    return s->init_schema(false);
  };
  Status st = open_plain();
  const int code = s->db_ ? sqlite3_extended_errcode(s->db_.get()) : 0;
  if (!st.ok() &&
      (code == SQLITE_READONLY_RECOVERY || code == SQLITE_READONLY_CANTINIT || code == SQLITE_READONLY_CANTLOCK)) {
    s->db_.reset();
    MSIT_TRY(recover_wal(db_path));
    st = open_plain();
  } else if (!st.ok() && ((code & 0xff) == SQLITE_CANTOPEN || code == SQLITE_READONLY_DIRECTORY)) {
    // A finished store in a directory this user cannot write has no -shm to map: read it as
    // immutable (no writer may be active then; one that is would own the tree's lock). A
    // store readable by others (its rows' raw files were, docs/store.md) is read this way.
    const std::string uri = "file:" + db_path + "?immutable=1";
    MSIT_ASSIGN_OR_RETURN(s->db_, open_db(uri, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nullptr, db_path));
    st = s->init_schema(false);
  }
  MSIT_TRY(st);
  MSIT_TRY(s->prepare_statements(false));
  return s;
}

Status SummaryStore::init_schema(bool writable) {
  sqlite3* db = db_.get();
  MSIT_ASSIGN_OR_RETURN(bool empty, is_empty_database(db, path_));
  if (empty && !writable) return make_error(path_, Stage::kStore, "is an empty database, not a summary store");
  // Another application's database, a newer or a damaged store is refused before anything
  // (even the journal mode) is changed in it.
  if (!empty) MSIT_TRY(check_existing(db, path_, writable));
  if (writable) {
    // WAL: readers (compare during a dump) never block the writer; FULL: each commit is
    // fsynced before put() returns, the precondition of every raw file removal.
    MSIT_ASSIGN_OR_RETURN(Stmt mode, prepare(db, path_, "PRAGMA journal_mode=WAL"));
    if (sqlite3_step(mode.get()) != SQLITE_ROW) return sqlite_error(db, path_, Stage::kStore, "cannot switch to WAL");
    MSIT_TRY(exec(db, path_, "PRAGMA synchronous=FULL"));
  }
  return empty ? create_schema(db, path_) : ok_status();
}

Status SummaryStore::begin_snapshot() {
  std::lock_guard lock(mu_);
  if (insert_file_) return make_error(path_, Stage::kStore, "a writer cannot pin a snapshot");
  MSIT_TRY(exec(db_.get(), path_, "BEGIN"));
  MSIT_ASSIGN_OR_RETURN(Stmt s, prepare(db_.get(), path_, "SELECT count(*) FROM sqlite_schema"));
  if (sqlite3_step(s.get()) != SQLITE_ROW) return sqlite_error(db_.get(), path_, Stage::kStore, "cannot start reading");
  return ok_status();
}

Status SummaryStore::prepare_statements(bool writable) {
  sqlite3* db = db_.get();
  if (writable) {
    MSIT_ASSIGN_OR_RETURN(insert_file_, prepare(db, path_, kInsertFile));
    MSIT_ASSIGN_OR_RETURN(insert_tensor_, prepare(db, path_, kInsertTensor));
    MSIT_ASSIGN_OR_RETURN(insert_block_, prepare(db, path_, kInsertBlock));
  }
  MSIT_ASSIGN_OR_RETURN(find_file_, prepare(db, path_, kFindFile));
  MSIT_ASSIGN_OR_RETURN(select_file_, prepare(db, path_, kSelectFile));
  MSIT_ASSIGN_OR_RETURN(select_tensors_range_, prepare(db, path_, kSelectTensorsRange));
  MSIT_ASSIGN_OR_RETURN(select_tensors_in_, prepare(db, path_, select_tensors_in_sql().c_str()));
  MSIT_ASSIGN_OR_RETURN(select_blocks_, prepare(db, path_, kSelectBlocks));
  file_columns_ = tensor_columns_of(select_file_.get());
  compare_columns_ = tensor_columns_of(select_tensors_range_.get());  // kSelectTensorsIn's are the same
  return ok_status();
}

Status SummaryStore::insert_one(const StoreEntry& e, int64_t stored_ns) {
  sqlite3* db = db_.get();
  sqlite3_stmt* f = insert_file_.get();
  sqlite3_reset(f);
  bind_file(f, e, stored_ns);
  if (sqlite3_step(f) != SQLITE_DONE) return sqlite_error(db, path_, Stage::kStore, "cannot insert " + e.rel);
  const int64_t id = sqlite3_last_insert_rowid(db);
  for (size_t i = 0; i < e.summary->tensors.size(); ++i) {
    sqlite3_stmt* t = insert_tensor_.get();
    sqlite3_reset(t);
    bind_tensor(t, id, static_cast<int>(i), e.summary->tensors[i], e.sketch);
    if (sqlite3_step(t) != SQLITE_DONE)
      return sqlite_error(db, path_, Stage::kStore, "cannot insert a tensor of " + e.rel);
  }
  for (size_t i = 0; i < e.summary->extra_blocks.size(); ++i) {
    sqlite3_stmt* b = insert_block_.get();
    sqlite3_reset(b);
    bind_block(b, id, static_cast<int>(i), e.summary->extra_blocks[i]);
    if (sqlite3_step(b) != SQLITE_DONE)
      return sqlite_error(db, path_, Stage::kStore, "cannot insert a block of " + e.rel);
  }
  return ok_status();
}

Status SummaryStore::put(const std::vector<StoreEntry>& batch) {
  if (batch.empty()) return ok_status();
  std::lock_guard lock(mu_);
  if (!insert_file_) return make_error(path_, Stage::kStore, "opened read-only");
  MSIT_TRY(exec(db_.get(), path_, "BEGIN IMMEDIATE"));
  const int64_t t = now_ns();
  for (const auto& e : batch) {
    Status st = insert_one(e, t);
    if (!st.ok()) {
      (void)exec(db_.get(), path_, "ROLLBACK");
      return st;
    }
  }
  // With synchronous=FULL in WAL mode, COMMIT returns after the WAL is fsynced.
  Status st = exec(db_.get(), path_, "COMMIT");
  if (!st.ok()) (void)exec(db_.get(), path_, "ROLLBACK");
  return st;
}

Result<std::optional<SummaryStore::FileRow>> SummaryStore::find_locked(std::string_view rel) {
  sqlite3_stmt* s = find_file_.get();
  sqlite3_reset(s);
  sqlite3_bind_text(s, 1, rel.data(), static_cast<int>(rel.size()), SQLITE_TRANSIENT);
  int rc = sqlite3_step(s);
  if (rc == SQLITE_DONE) return std::optional<FileRow>();
  if (rc != SQLITE_ROW) return sqlite_error(db_.get(), path_, Stage::kStore, "cannot look up " + std::string(rel));
  FileRow row;
  row.id = sqlite3_column_int64(s, 0);
  row.identity.size = static_cast<uint64_t>(sqlite3_column_int64(s, 1));
  row.identity.mtime_ns = sqlite3_column_int64(s, 2);
  row.identity.dev = static_cast<dev_t>(sqlite3_column_int64(s, 3));
  row.identity.ino = static_cast<ino_t>(sqlite3_column_int64(s, 4));
  sqlite3_reset(s);
  return std::optional<FileRow>(row);
}

Result<std::optional<FileIdentity>> SummaryStore::find_identity(std::string_view rel) {
  if (lookups_) return lookups_->find_identity(rel);
  std::lock_guard lock(mu_);
  MSIT_ASSIGN_OR_RETURN(auto row, find_locked(rel));
  if (!row) return std::optional<FileIdentity>();
  return std::optional<FileIdentity>(row->identity);
}

Result<std::optional<FileSummary>> SummaryStore::find(std::string_view rel) {
  if (lookups_) return lookups_->find(rel);
  std::lock_guard lock(mu_);
  MSIT_ASSIGN_OR_RETURN(auto row, find_locked(rel));
  if (!row) return std::optional<FileSummary>();
  MSIT_ASSIGN_OR_RETURN(FileSummary f, load_locked(row->id, rel));
  return std::optional<FileSummary>(std::move(f));
}

Result<FileSummary> SummaryStore::load(int64_t file_id) {
  std::lock_guard lock(mu_);
  return load_locked(file_id, {});
}

Result<FileSummary> SummaryStore::load_locked(int64_t file_id, std::string_view rel_hint) {
  sqlite3_stmt* f = select_file_.get();
  sqlite3_reset(f);
  sqlite3_bind_int64(f, 1, file_id);
  int rc = sqlite3_step(f);
  if (rc != SQLITE_ROW) {
    return sqlite_error(db_.get(), path_, Stage::kStore, "cannot read file row " + std::to_string(file_id));
  }
  Result<FileSummary> out = read_group(f, rc, file_id, rel_hint);
  sqlite3_reset(f);
  return out;
}

// The file at f's current row and its tensor rows (kSelectFile); its extra blocks are read by a
// second statement.
Result<FileSummary> SummaryStore::read_group(sqlite3_stmt* f, int& rc, int64_t file_id, std::string_view rel_hint) {
  sqlite3* db = db_.get();
  FileSummary out;
  const int64_t blocks = read_file_row(f, out);
  const std::string rel =
      rel_hint.empty() ? reinterpret_cast<const char*>(sqlite3_column_text(f, 10)) : std::string(rel_hint);
  out.source_name = base_name(rel);
  const std::string where = path_ + ": " + rel;
  for (; rc == SQLITE_ROW; rc = sqlite3_step(f)) {
    if (!has_tensor(f, file_columns_)) continue;  // LEFT JOIN: the one row of a file without tensors
    if (out.tensors.size() >= kMaxTensorsPerFile) return make_error(where, Stage::kStore, "more than 4096 tensors");
    MSIT_ASSIGN_OR_RETURN(TensorSummary ts, read_tensor_row(f, file_columns_, where));
    out.tensors.push_back(std::move(ts));
  }
  if (rc != SQLITE_DONE) return sqlite_error(db, path_, Stage::kStore, "cannot read the tensors of " + rel);
  if (blocks == 0) return out;
  sqlite3_stmt* b = select_blocks_.get();
  sqlite3_reset(b);
  sqlite3_bind_int64(b, 1, file_id);
  int brc;
  while ((brc = sqlite3_step(b)) == SQLITE_ROW) {
    if (out.extra_blocks.size() >= kMaxTensorsPerFile) return make_error(where, Stage::kStore, "more than 4096 blocks");
    out.extra_blocks.push_back(read_block_row(b));
  }
  if (brc != SQLITE_DONE) return sqlite_error(db, path_, Stage::kStore, "cannot read the blocks of " + rel);
  sqlite3_reset(b);
  return out;
}

// The tensor rows of file_id from f's current row on (kSelectTensors*: the file id is the last
// column); rc is left at the first row past them.
Result<FileSummary> SummaryStore::read_tensors_of(sqlite3_stmt* f, int& rc, int64_t file_id) {
  FileSummary out;
  // An error here is not reported (load_locked() reads the file again and names it by its raw
  // path), so it names only the store: no string is built per file on the way.
  for (; rc == SQLITE_ROW && sqlite3_column_int64(f, compare_columns_.file_id) == file_id; rc = sqlite3_step(f)) {
    if (out.tensors.size() >= kMaxTensorsPerFile) return make_error(path_, Stage::kStore, "more than 4096 tensors");
    MSIT_ASSIGN_OR_RETURN(TensorSummary ts, read_tensor_row(f, compare_columns_, path_));
    out.tensors.push_back(std::move(ts));
  }
  if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
    return sqlite_error(db_.get(), path_, Stage::kStore, "cannot read the tensors of file " + std::to_string(file_id));
  }
  return out;
}

void SummaryStore::load_many(const std::vector<int64_t>& ids, std::vector<std::optional<Result<FileSummary>>>& out) {
  std::lock_guard lock(mu_);
  out.assign(ids.size(), std::nullopt);
  std::vector<size_t> order(ids.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return ids[a] < ids[b]; });
  // Groups of up to kInListIds distinct ids, one statement each: neighbouring ids by a walk of
  // their range, scattered ones (the other tree's store, filled in another order) by an IN list,
  // which seeks each id and steps no row of the gaps. On 100,000 pairs whose golden ids spread
  // over ~3x their count per batch, the golden store's reads went from ~250 to ~195 ms.
  bool failed = false;
  for (size_t k = 0; k < order.size() && !failed;) {
    size_t group_end = k;
    std::vector<int64_t> group;
    while (group_end < order.size() && (group.size() < kInListIds || ids[order[group_end]] == group.back())) {
      if (group.empty() || ids[order[group_end]] != group.back()) group.push_back(ids[order[group_end]]);
      ++group_end;
    }
    const auto span = static_cast<uint64_t>(group.back()) - static_cast<uint64_t>(group.front());
    const bool range = group.front() >= 0 && span < 2 * group.size() + 8;
    sqlite3_stmt* f = range ? select_tensors_range_.get() : select_tensors_in_.get();
    sqlite3_reset(f);
    if (range) {
      sqlite3_bind_int64(f, 1, group.front());
      sqlite3_bind_int64(f, 2, group.back());
    } else {
      for (int p = 0; p < kInListIds; ++p) {
        sqlite3_bind_int64(f, p + 1, group[std::min(static_cast<size_t>(p), group.size() - 1)]);
      }
    }
    int rc = sqlite3_step(f);
    for (; k < group_end;) {
      const int64_t id = ids[order[k]];
      // Rows of files nobody asked for (gaps in a range) are stepped over.
      while (rc == SQLITE_ROW && sqlite3_column_int64(f, compare_columns_.file_id) < id) rc = sqlite3_step(f);
      size_t end = k + 1;
      while (end < group_end && ids[order[end]] == id) ++end;
      if (rc == SQLITE_ROW && sqlite3_column_int64(f, compare_columns_.file_id) == id) {
        Result<FileSummary> got = read_tensors_of(f, rc, id);
        if (!got.ok()) {
          failed = true;  // the lookups below read it and the rest again, and report it by path
          break;
        }
        for (size_t j = k + 1; j < end; ++j) out[order[j]] = got;
        out[order[k]] = std::move(got);
      } else if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
        failed = true;
        break;
      }
      k = end;
    }
    sqlite3_reset(f);
  }
  for (size_t i = 0; i < ids.size(); ++i) {  // no tensors, absent, or unreadable: the full lookup says which
    if (!out[i]) out[i] = load_locked(ids[i], {});
  }
}

Status SummaryStore::list(const std::function<void(int64_t, std::string_view)>& visit) {
  std::lock_guard lock(mu_);
  // Id and path only: the path index holds both, so the scan reads that index alone, already
  // in path order (100,000 files: 12 ms, against 17 ms for a scan of the table and a sort).
  MSIT_ASSIGN_OR_RETURN(Stmt s, prepare(db_.get(), path_, "SELECT id, path FROM files ORDER BY path"));
  int rc;
  while ((rc = sqlite3_step(s.get())) == SQLITE_ROW) {
    const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(s.get(), 1));
    visit(sqlite3_column_int64(s.get(), 0),
          std::string_view(p != nullptr ? p : "", static_cast<size_t>(sqlite3_column_bytes(s.get(), 1))));
  }
  if (rc != SQLITE_DONE) return sqlite_error(db_.get(), path_, Stage::kStore, "cannot list the files");
  return ok_status();
}

Result<uint64_t> SummaryStore::raw_size(int64_t file_id) {
  std::lock_guard lock(mu_);
  MSIT_ASSIGN_OR_RETURN(Stmt s, prepare(db_.get(), path_, "SELECT size_bytes FROM files WHERE id = ?1"));
  sqlite3_bind_int64(s.get(), 1, file_id);
  if (sqlite3_step(s.get()) != SQLITE_ROW) {
    return sqlite_error(db_.get(), path_, Stage::kStore, "no file row " + std::to_string(file_id));
  }
  return static_cast<uint64_t>(sqlite3_column_int64(s.get(), 0));
}

Status SummaryStore::for_each(const std::function<Status(std::string_view, const FileSummary&)>& visit) {
  std::vector<std::pair<int64_t, std::string>> files;
  MSIT_TRY(list([&](int64_t id, std::string_view rel) { files.emplace_back(id, std::string(rel)); }));
  for (const auto& [id, rel] : files) {
    Result<FileSummary> f = [&] {
      std::lock_guard lock(mu_);
      return load_locked(id, rel);
    }();
    if (!f.ok()) return f.take_error();
    MSIT_TRY(visit(rel, *f));
  }
  return ok_status();
}

Result<size_t> SummaryStore::file_count() {
  std::lock_guard lock(mu_);
  MSIT_ASSIGN_OR_RETURN(Stmt s, prepare(db_.get(), path_, "SELECT count(*) FROM files"));
  if (sqlite3_step(s.get()) != SQLITE_ROW)
    return sqlite_error(db_.get(), path_, Stage::kStore, "cannot count the files");
  return static_cast<size_t>(sqlite3_column_int64(s.get(), 0));
}

std::string store_dir_for(std::string_view root, std::string_view rel) {
  DumpScope scope = DumpScope::of_path(root);
  if (scope.kind() != DumpRootKind::kNone) return "";
  size_t pos = 0;
  while (true) {
    size_t slash = rel.find('/', pos);
    if (slash == std::string_view::npos) return "";  // the file itself is not under a dump root
    scope = scope.enter(rel.substr(pos, slash - pos));
    if (scope.kind() != DumpRootKind::kNone) return std::string(rel.substr(0, slash));
    pos = slash + 1;
  }
}

std::optional<StoreLocation> find_store_of(const std::string& raw_path) {
  std::string dir = raw_path;
  std::string rel;
  while (true) {
    size_t slash = dir.rfind('/');
    if (slash == std::string::npos) return std::nullopt;
    std::string name = dir.substr(slash + 1);
    rel = rel.empty() ? name : name + "/" + rel;
    dir.resize(slash);
    const std::string db = (dir.empty() ? std::string() : dir) + "/" + std::string(kStoreFileName);
    struct stat st {};
    if (::lstat(db.c_str(), &st) == 0 && S_ISREG(st.st_mode)) return StoreLocation{db, rel};
    if (dir.empty()) return std::nullopt;
  }
}

}  // namespace msit::store
