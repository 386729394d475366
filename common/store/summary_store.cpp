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
#include "common/io/path_name.h"
#include "common/safety/dump_roots.h"
#include "common/store/store_codec.h"
#include "common/store/store_open.h"
#include "common/store/store_schema.h"
#include "common/store/store_sql.h"
#include "common/store/store_vfs.h"

namespace msit::store {
namespace {

constexpr const char* kInsertDir = "INSERT INTO dirs(path) VALUES (?1) ON CONFLICT(path) DO NOTHING";
constexpr const char* kFindDir = "SELECT id FROM dirs WHERE path = ?1";

// A hostile summary store must not make a reader allocate without bound.
constexpr int kMaxTensorsPerFile = 4096;

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// A relative path as version 2 stores it: directory ("" for the store's own) and name.
std::pair<std::string_view, std::string_view> split_rel(std::string_view rel) {
  const size_t slash = rel.rfind('/');
  if (slash == std::string_view::npos) return {std::string_view(), rel};
  return {rel.substr(0, slash), rel.substr(slash + 1)};
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

Result<uint64_t> SummaryStore::raw_size(int64_t file_id) {
  std::lock_guard lock(mu_);
  MSIT_ASSIGN_OR_RETURN(Stmt s, prepare(db_.get(), path_, "SELECT size_bytes FROM files WHERE id = ?1"));
  sqlite3_bind_int64(s.get(), 1, file_id);
  if (sqlite3_step(s.get()) != SQLITE_ROW) {
    return sqlite_error(db_.get(), path_, Stage::kStore, "no file row " + std::to_string(file_id));
  }
  return static_cast<uint64_t>(sqlite3_column_int64(s.get(), 0));
}

}  // namespace msit::store
