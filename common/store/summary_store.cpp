// Opening stores (readers and writers alike through store_open.h: a directory fd, never a link
// or another user's file), batched durable writes, and reads by path or file id.
#include "common/store/summary_store.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>

#include "common/base/test_hooks.h"
#include "common/safety/dump_roots.h"
#include "common/store/store_codec.h"
#include "common/store/store_open.h"
#include "common/store/store_schema.h"
#include "common/store/store_vfs.h"

namespace msit::store {
namespace {

// The statements of each store version. Column order of the file and tensor reads:
// store_codec.h (file_column_list(), kFilePathColumn; tensor columns found by name). Bind order
// of the inserts: store_codec.h (version 2 binds the file's name where version 1 binds its path,
// its directory as ?kFileDirParam, and makes the tensor's key of ?1 and ?2). The file columns
// are those of the version's rows of kFileFields (common/summary/file_fields.h), the tensor
// columns those of its rows of kTensorFields (common/summary/tensor_fields.h).
struct StoreSql {
  std::string insert_file, insert_tensor, find_file, select_file, select_tensors_range, select_tensors_in, list,
      list_dir;
};

// "?,?,...": one parameter per files column of `version` (kFileFields, common/summary/file_fields.h)
// and `extra` more (the path, or the name and the directory).
std::string file_params(int version, int extra) {
  int n = extra;
  for (const FileField& f : kFileFields) n += has_column(f) && f.since_store_version <= version ? 1 : 0;
  std::string out;
  for (int i = 0; i < n; ++i) out += i ? ",?" : "?";
  return out;
}
// Version 2: a file's tensors are the keys [id * 2^20, id * 2^20 + 2^20) (store_version.h).
#define MSIT_STORE_KEY_SCALE "1048576"
#define MSIT_STORE_TENSORS_OF(id)                                                                                 \
  "t.key BETWEEN " id " * " MSIT_STORE_KEY_SCALE " AND " id " * " MSIT_STORE_KEY_SCALE " + " MSIT_STORE_KEY_SCALE \
  " -"                                                                                                            \
  " 1"
#define MSIT_STORE_PATH_V2 "iif(d.path = '', f.name, d.path || '/' || f.name) AS path"
static_assert(int64_t{1} << 20 == kTensorKeyScale, "MSIT_STORE_KEY_SCALE is kTensorKeyScale");

// ?1 .. ?kInListIds: load_many binds a group's ids, repeating the last one in the spare slots.
constexpr int kInListIds = 32;
std::string in_list() {
  std::string ids;
  for (int p = 1; p <= kInListIds; ++p) ids += (p > 1 ? ",?" : "?") + std::to_string(p);
  return ids;
}

// Compare's batched reads: the tensors alone (one walk along the tensors table's primary key
// instead of a lookup into it per file row: on 100,000 stored pairs compare's evaluate phase
// went from 0.53-0.56 s to 0.38-0.41 s), and only the columns compare reads. Stepping a column
// costs ~4 ms per 100,000 rows: these 28 of 33 read 100,000 rows in ~130 ms instead of ~195.
// A file without tensors, or an id not in the store, has no rows here: load_locked() says which.
StoreSql make_sql_v1() {
  const std::string cols = tensor_column_list("", 1), all = tensor_column_list("t.", 1),
                    compare = tensor_column_list("t.", 1, true);
  return {
      "INSERT INTO files(path, " + file_column_list("", 1) + ") VALUES (" + file_params(1, 1) + ")",
      "INSERT INTO tensors(file_id, ord, " + cols + ") VALUES (?1,?2," + tensor_param_list(1) + ")",
      "SELECT id, size_bytes, mtime_ns, dev, ino FROM files WHERE path = ?1",
      // One statement per file: its row and its tensors (LEFT JOIN: a file without tensors
      // still gives its row).
      "SELECT " + file_column_list("f.", 1, true) + ", f.path, " + all +
          " FROM files f LEFT JOIN tensors t ON t.file_id = f.id WHERE f.id = ? ORDER BY t.ord",
      "SELECT t.file_id, " + compare + " FROM tensors t WHERE t.file_id BETWEEN ?1 AND ?2 ORDER BY t.file_id, t.ord",
      "SELECT t.file_id, " + compare + " FROM tensors t WHERE t.file_id IN (" + in_list() +
          ") ORDER BY t.file_id, t.ord",
      // Id and path only: the path index holds both, so the scan reads that index alone, already
      // in path order (100,000 files: 12 ms, against 17 ms for a scan of the table and a sort).
      "SELECT id, '', path FROM files ORDER BY path",
      // One directory: the paths in [dir/, dir0) from the path index (deeper ones skipped by the
      // caller); the store's own directory reads them all (no directory table in version 1).
      "SELECT id, path FROM files WHERE path >= ?1 AND path < ?2 ORDER BY path",
  };
}

StoreSql make_sql_v2() {
  const std::string cols = tensor_column_list("", 2), all = tensor_column_list("t.", 2),
                    compare = tensor_column_list("t.", 2, true);
  return {
      "INSERT INTO files(name, " + file_column_list("", 2) + ", dir_id) VALUES (" + file_params(2, 2) + ")",
      "INSERT INTO tensors(key, " + cols + ") VALUES (?1 * " MSIT_STORE_KEY_SCALE " + ?2," + tensor_param_list(2) + ")",
      "SELECT f.id, f.size_bytes, f.mtime_ns, f.dev, f.ino FROM dirs d JOIN files f ON f.dir_id = d.id AND f.name = "
      "?2 WHERE d.path = ?1",
      "SELECT " + file_column_list("f.", 2, true) + ", " MSIT_STORE_PATH_V2 ", " + all +
          " FROM files f JOIN dirs d ON d.id = f.dir_id LEFT JOIN tensors t ON " MSIT_STORE_TENSORS_OF(
              "f.id") " WHERE f.id = ?1 ORDER BY t.key",
      "SELECT t.key >> 20 AS file_id, " + compare +
          " FROM tensors t WHERE t.key BETWEEN ?1 * " MSIT_STORE_KEY_SCALE " AND ?2 * " MSIT_STORE_KEY_SCALE
          " + " MSIT_STORE_KEY_SCALE " - 1 ORDER BY t.key",
      // Each id is a seek in files, then a walk of its tensors' keys: in key order, no sort.
      "SELECT t.key >> 20 AS file_id, " + compare +
          " FROM files f JOIN tensors t ON " MSIT_STORE_TENSORS_OF("f.id") " WHERE f.id IN (" + in_list() +
          ") ORDER BY f.id, t.key",
      // By directory, then name: the directories' path index, and per directory the (dir_id, name)
      // index, both covering: no table row is read and nothing is sorted.
      "SELECT f.id, d.path, f.name FROM dirs d JOIN files f ON f.dir_id = d.id ORDER BY d.path, f.name",
      // One directory: a seek in the directories' path index, then its run of the (dir_id, name)
      // index (covering, in name order).
      "SELECT f.id, f.name FROM dirs d JOIN files f ON f.dir_id = d.id WHERE d.path = ?1 ORDER BY f.name",
  };
}

const StoreSql& sql_of(int version) {
  static const StoreSql v1 = make_sql_v1(), v2 = make_sql_v2();
  return version == 1 ? v1 : v2;
}
#undef MSIT_STORE_KEY_SCALE
#undef MSIT_STORE_TENSORS_OF
#undef MSIT_STORE_PATH_V2
// The extra_blocks statements, both versions (kBlockFields, common/summary/block_fields.h).
const std::string& insert_block_sql() {
  static const std::string sql = [] {
    std::string params = "?1,?2";
    for (size_t i = 0; i < kBlockFieldCount; ++i) params += ",?" + std::to_string(block_param(i));
    return "INSERT INTO extra_blocks(file_id, ord, " + block_column_list() + ") VALUES (" + params + ")";
  }();
  return sql;
}
const std::string& select_blocks_sql() {
  static const std::string sql = "SELECT " + block_column_list() + " FROM extra_blocks WHERE file_id = ? ORDER BY ord";
  return sql;
}
constexpr const char* kInsertDir = "INSERT INTO dirs(path) VALUES (?1) ON CONFLICT(path) DO NOTHING";
constexpr const char* kFindDir = "SELECT id FROM dirs WHERE path = ?1";

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

// A relative path as version 2 stores it: directory ("" for the store's own) and name.
std::pair<std::string_view, std::string_view> split_rel(std::string_view rel) {
  const size_t slash = rel.rfind('/');
  if (slash == std::string_view::npos) return {std::string_view(), rel};
  return {rel.substr(0, slash), rel.substr(slash + 1)};
}

// Text, never NULL: an empty view's data() may be a null pointer, which SQLite binds as NULL.
void bind_view(sqlite3_stmt* s, int col, std::string_view v) {
  sqlite3_bind_text(s, col, v.empty() ? "" : v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
}

}  // namespace

SummaryStore::~SummaryStore() {
  lookups_.reset();  // closed first: the writer's close then checkpoints and removes the WAL
  insert_file_.reset();
  insert_tensor_.reset();
  insert_block_.reset();
  insert_dir_.reset();
  find_dir_.reset();
  find_file_.reset();
  list_dir_.reset();
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
  MSIT_ASSIGN_OR_RETURN(const StoreFiles files, check_store_files(dir, kStoreFileName, StoreAccess::kWrite));
  forget_last_open();
  MSIT_ASSIGN_OR_RETURN(s->db_, open_store_connection(dir, kStoreFileName, StoreAccess::kWrite, files, true, s->path_));
  const std::optional<FileKey> written = last_open_of(kStoreFileName);
  MSIT_TRY(with_refusal(s->init_schema(true), dir, s->path_));
  MSIT_TRY(s->prepare_statements(true));
  MSIT_ASSIGN_OR_RETURN(s->lookups_, open_lookups(dir, s->path_, written, files));
  return s;
}

Result<std::unique_ptr<SummaryStore>> SummaryStore::open_lookups(const DirRef& dir, const std::string& path,
                                                                 const std::optional<FileKey>& written,
                                                                 const StoreFiles& files) {
  std::unique_ptr<SummaryStore> s(new SummaryStore());
  s->dir_ = dir;
  s->path_ = path;
  // Opened the way the writer opens the store (through the directory fd, read-write flags);
  // query_only makes SQLite refuse any write through this connection.
  forget_last_open();
  MSIT_ASSIGN_OR_RETURN(s->db_, open_store_connection(dir, kStoreFileName, StoreAccess::kWrite, files, false, path));
  // The name is opened a second time: a file put in its place since the writer's open would
  // answer lookups with rows the writer never committed ("already summarised": raw removed).
  const std::optional<FileKey> read = last_open_of(kStoreFileName);
  if (!written || !read || *written != *read) {
    return make_error(path, Stage::kStore,
                      "was replaced by another file while it was being opened (or its identity could not be "
                      "checked): not written to; raw files kept");
  }
  MSIT_TRY(exec(s->db_.get(), path, "PRAGMA query_only=1"));
  MSIT_TRY(with_refusal(s->init_schema(false), dir, path));
  MSIT_TRY(s->prepare_statements(false));
  return s;
}

Result<std::unique_ptr<SummaryStore>> SummaryStore::open_read_only(const std::string& db_path) {
  const size_t slash = db_path.rfind('/');
  const std::string dir_path = slash == std::string::npos ? "." : slash == 0 ? "/" : db_path.substr(0, slash);
  const std::string name = slash == std::string::npos ? db_path : db_path.substr(slash + 1);
  if (name.empty() || name == "." || name == "..")
    return make_error(db_path, Stage::kStore, "is not the name of a summary store file");
  MSIT_ASSIGN_OR_RETURN(UniqueFd fd, open_trusted_dir(dir_path));
  return open_read_only(DirRef{std::make_shared<const UniqueFd>(std::move(fd)), dir_path}, name, db_path);
}

// A reader never creates, writes, truncates, removes or re-owns a file (the VFS's "r" names):
// with a WAL it reads WAL and -shm read-only (SQLite reads a WAL whose writer is gone into
// memory), without one it reads the database file as immutable.
Result<std::unique_ptr<SummaryStore>> SummaryStore::open_read_only(const DirRef& dir, const std::string& name,
                                                                   const std::string& db_path) {
  std::unique_ptr<SummaryStore> s(new SummaryStore());
  s->dir_ = dir;
  s->path_ = db_path;
  auto attempt = [&]() -> Status {
    MSIT_ASSIGN_OR_RETURN(const StoreFiles files, check_store_files(dir, name, StoreAccess::kRead));
    MSIT_ASSIGN_OR_RETURN(s->db_, open_store_connection(dir, name, StoreAccess::kRead, files, false, db_path));
    return with_refusal(s->init_schema(false), dir, db_path);
  };
  Status st = attempt();
  // The writer closed the store between the check and the first read, removing its WAL: the
  // database now holds every row. Once more, then as immutable.
  if (!st.ok() && s->db_) {
    const int code = sqlite3_extended_errcode(s->db_.get());
    struct stat st_wal {};
    const std::string wal = name + "-wal";
    if (((code & 0xff) == SQLITE_CANTOPEN || code == SQLITE_READONLY_DIRECTORY) &&
        ::fstatat(dir.get(), wal.c_str(), &st_wal, AT_SYMLINK_NOFOLLOW) != 0 && errno == ENOENT) {
      s->db_.reset();
      st = attempt();
    }
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
  if (!empty) { MSIT_ASSIGN_OR_RETURN(version_, check_existing(db, path_, writable)); }
  if (writable) {
    // WAL: readers (compare during a dump) never block the writer; FULL: each commit is
    // fsynced before put() returns, the precondition of every raw file removal.
    MSIT_ASSIGN_OR_RETURN(Stmt mode, prepare(db, path_, "PRAGMA journal_mode=WAL"));
    if (sqlite3_step(mode.get()) != SQLITE_ROW) return sqlite_error(db, path_, Stage::kStore, "cannot switch to WAL");
    MSIT_TRY(exec(db, path_, "PRAGMA synchronous=FULL"));
  }
  if (!empty) return ok_status();
  MSIT_TRY(create_schema(db, path_));
  // Ours, or another writer's that created it first (of this version or an older one).
  MSIT_ASSIGN_OR_RETURN(version_, check_existing(db, path_, false));
  return ok_status();
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
  const StoreSql& q = sql_of(version_);
  if (writable) {
    MSIT_ASSIGN_OR_RETURN(insert_file_, prepare(db, path_, q.insert_file.c_str()));
    MSIT_ASSIGN_OR_RETURN(insert_tensor_, prepare(db, path_, q.insert_tensor.c_str()));
    MSIT_ASSIGN_OR_RETURN(insert_block_, prepare(db, path_, insert_block_sql().c_str()));
    if (version_ >= 2) {
      MSIT_ASSIGN_OR_RETURN(insert_dir_, prepare(db, path_, kInsertDir));
      MSIT_ASSIGN_OR_RETURN(find_dir_, prepare(db, path_, kFindDir));
    }
  }
  MSIT_ASSIGN_OR_RETURN(find_file_, prepare(db, path_, q.find_file.c_str()));
  MSIT_ASSIGN_OR_RETURN(list_dir_, prepare(db, path_, q.list_dir.c_str()));
  MSIT_ASSIGN_OR_RETURN(select_file_, prepare(db, path_, q.select_file.c_str()));
  MSIT_ASSIGN_OR_RETURN(select_tensors_range_, prepare(db, path_, q.select_tensors_range.c_str()));
  MSIT_ASSIGN_OR_RETURN(select_tensors_in_, prepare(db, path_, q.select_tensors_in.c_str()));
  MSIT_ASSIGN_OR_RETURN(select_blocks_, prepare(db, path_, select_blocks_sql().c_str()));
  file_columns_ = tensor_columns_of(select_file_.get());
  compare_columns_ = tensor_columns_of(select_tensors_range_.get());  // kSelectTensorsIn's are the same
  return ok_status();
}

Result<int64_t> SummaryStore::dir_id_locked(std::string_view dir) {
  if (auto it = dir_ids_.find(std::string(dir)); it != dir_ids_.end()) return it->second;
  sqlite3* db = db_.get();
  sqlite3_stmt* ins = insert_dir_.get();
  sqlite3_reset(ins);
  bind_view(ins, 1, dir);
  if (sqlite3_step(ins) != SQLITE_DONE)
    return sqlite_error(db, path_, Stage::kStore, "cannot insert directory " + std::string(dir));
  sqlite3_reset(ins);
  sqlite3_stmt* find = find_dir_.get();
  sqlite3_reset(find);
  bind_view(find, 1, dir);
  if (sqlite3_step(find) != SQLITE_ROW)
    return sqlite_error(db, path_, Stage::kStore, "cannot find directory " + std::string(dir));
  const int64_t id = sqlite3_column_int64(find, 0);
  sqlite3_reset(find);
  dir_ids_.emplace(std::string(dir), id);
  return id;
}

Status SummaryStore::insert_one(const StoreEntry& e, int64_t stored_ns) {
  sqlite3* db = db_.get();
  sqlite3_stmt* f = insert_file_.get();
  sqlite3_reset(f);
  if (version_ >= 2) {
    const auto [dir, name] = split_rel(e.rel);
    MSIT_ASSIGN_OR_RETURN(const int64_t dir_id, dir_id_locked(dir));
    bind_file(f, name, e, stored_ns);
    sqlite3_bind_int64(f, kFileDirParam, dir_id);
  } else {
    bind_file(f, e.rel, e, stored_ns);
  }
  if (sqlite3_step(f) != SQLITE_DONE) return sqlite_error(db, path_, Stage::kStore, "cannot insert " + e.rel);
  const int64_t id = sqlite3_last_insert_rowid(db);
  // Version 2 keys a tensor by id * 2^20 + ord (store_version.h): both must fit.
  if (version_ >= 2 && (id < 0 || id >= (INT64_MAX >> 20) || e.summary->tensors.size() >= size_t{kTensorKeyScale})) {
    return make_error(path_, Stage::kStore,
                      "cannot store " + e.rel + ": file id " + std::to_string(id) + " or its " +
                          std::to_string(e.summary->tensors.size()) + " tensors exceed the store's tensor keys");
  }
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
      dir_ids_.clear();  // ids of directories this transaction inserted are gone with it
      return st;
    }
  }
  if (test_fail_commit()) {
    (void)exec(db_.get(), path_, "ROLLBACK");
    return make_error(path_, Stage::kStore, "commit failed (MSIT_TEST_FAIL_COMMIT_AFTER)");
  }
  // With synchronous=FULL in WAL mode, COMMIT returns after the WAL is fsynced.
  Status st = exec(db_.get(), path_, "COMMIT");
  if (!st.ok()) {
    (void)exec(db_.get(), path_, "ROLLBACK");
    dir_ids_.clear();
  }
  return st;
}

Result<std::optional<SummaryStore::FileRow>> SummaryStore::find_locked(std::string_view rel) {
  sqlite3_stmt* s = find_file_.get();
  sqlite3_reset(s);
  if (version_ >= 2) {
    const auto [dir, name] = split_rel(rel);
    bind_view(s, 1, dir);
    bind_view(s, 2, name);
  } else {
    bind_view(s, 1, rel);
  }
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
      rel_hint.empty() ? reinterpret_cast<const char*>(sqlite3_column_text(f, kFilePathColumn)) : std::string(rel_hint);
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
  MSIT_ASSIGN_OR_RETURN(Stmt s, prepare(db_.get(), path_, sql_of(version_).list.c_str()));
  return list_rows(s.get(), visit);
}

Status SummaryStore::list_dir(std::string_view dir, const std::function<void(int64_t, std::string_view)>& visit) {
  std::lock_guard lock(mu_);
  sqlite3_stmt* s = list_dir_.get();
  sqlite3_reset(s);
  std::string prefix;  // version 1: the paths' part before the name
  if (version_ >= 2) {
    bind_view(s, 1, dir);
  } else {
    if (!dir.empty()) prefix.assign(dir).append("/");
    bind_view(s, 1, prefix);
    // Above every path of the directory: "dir0" ('0' follows '/'), or for the store's own
    // directory a blob, which SQLite orders after all text.
    if (dir.empty()) sqlite3_bind_zeroblob(s, 2, 0);
    else bind_view(s, 2, std::string(dir) + '0');
  }
  int rc;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(s, 1));
    std::string_view name(p != nullptr ? p : "", static_cast<size_t>(sqlite3_column_bytes(s, 1)));
    if (version_ < 2) {
      if (!name.starts_with(prefix)) continue;
      name.remove_prefix(prefix.size());
      if (name.find('/') != std::string_view::npos) continue;  // below a sub-directory
    }
    visit(sqlite3_column_int64(s, 0), name);
  }
  sqlite3_reset(s);
  if (rc != SQLITE_DONE) return sqlite_error(db_.get(), path_, Stage::kStore, "cannot list the files");
  return ok_status();
}

Status SummaryStore::list_subdirs(std::string_view dir, const std::function<void(std::string_view name)>& visit) {
  std::lock_guard lock(mu_);
  // The paths below `dir`, in [dir/, dir0) (everything for the store's own directory, ""): in a
  // version 2 store the directories' path index (a row per directory holding files, so a few per
  // token), in a version 1 store the files' path index (every file below: O(files)).
  const char* sql = version_ >= 2 ? "SELECT path FROM dirs WHERE path >= ?1 AND path < ?2 ORDER BY path"
                                  : "SELECT path FROM files WHERE path >= ?1 AND path < ?2 ORDER BY path";
  MSIT_ASSIGN_OR_RETURN(Stmt s, prepare(db_.get(), path_, sql));
  const std::string prefix = dir.empty() ? std::string() : std::string(dir) + '/';
  bind_view(s.get(), 1, prefix);
  if (dir.empty()) sqlite3_bind_zeroblob(s.get(), 2, 0);  // a blob orders after all text
  else bind_view(s.get(), 2, std::string(dir) + '0');     // '0' follows '/'
  std::string last;
  int rc;
  while ((rc = sqlite3_step(s.get())) == SQLITE_ROW) {
    const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(s.get(), 0));
    std::string_view rest(p != nullptr ? p : "", static_cast<size_t>(sqlite3_column_bytes(s.get(), 0)));
    if (!rest.starts_with(prefix)) continue;
    rest.remove_prefix(prefix.size());
    const size_t slash = rest.find('/');
    // Version 2: a path is a directory (the child itself, or below it); version 1: a file, whose
    // directory is a child only when it lies below one.
    if (rest.empty() || (version_ < 2 && slash == std::string_view::npos)) continue;
    const std::string_view child = rest.substr(0, slash);
    if (child == last) continue;
    last.assign(child);
    visit(child);
  }
  if (rc != SQLITE_DONE) return sqlite_error(db_.get(), path_, Stage::kStore, "cannot list the directories");
  return ok_status();
}

Result<std::optional<int64_t>> SummaryStore::find_id(std::string_view rel) {
  std::lock_guard lock(mu_);
  MSIT_ASSIGN_OR_RETURN(auto row, find_locked(rel));
  if (!row) return std::optional<int64_t>();
  return std::optional<int64_t>(row->id);
}

Status SummaryStore::list_rows(sqlite3_stmt* stmt, const std::function<void(int64_t, std::string_view)>& visit) {
  auto text = [&](int col) {
    const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt, col));
    return std::string_view(p != nullptr ? p : "", static_cast<size_t>(sqlite3_column_bytes(stmt, col)));
  };
  std::string rel;
  int rc;
  while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
    const std::string_view dir = text(1);
    if (dir.empty()) {
      visit(sqlite3_column_int64(stmt, 0), text(2));
      continue;
    }
    rel.assign(dir);
    rel += '/';
    rel += text(2);
    visit(sqlite3_column_int64(stmt, 0), rel);
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

Status SummaryStore::for_each(const std::function<Status(std::string_view, const FileSummary&)>& visit,
                              std::string_view under) {
  std::vector<std::pair<int64_t, std::string>> files;
  MSIT_TRY(list([&](int64_t id, std::string_view rel) {
    if (under.empty() || (rel.size() > under.size() && rel.starts_with(under) && rel[under.size()] == '/'))
      files.emplace_back(id, std::string(rel));
  }));
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

}  // namespace msit::store
