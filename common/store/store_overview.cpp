// A store's overview from a reader's connection (SummaryStore::open_read_only): counts and the
// top tensors are aggregate queries that SummaryStore (one entry at a time) does not offer.
#include "common/store/store_overview.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>

#include <algorithm>

#include "common/store/sqlite_handle.h"
#include "common/store/summary_store.h"

namespace msit::store {
namespace {

// Per store version (store_version.h).
constexpr const char* kTopSqlV1 =
    "SELECT f.path, t.role, t.idx, t.sub_index, t.dtype, t.shape, t.abs_max FROM tensors t JOIN files f ON "
    "f.id = t.file_id WHERE t.abs_max IS NOT NULL ORDER BY t.abs_max DESC, f.path, t.ord LIMIT ?";
constexpr const char* kTopSqlV2 =
    "SELECT iif(d.path = '', f.name, d.path || '/' || f.name) AS path, t.role, t.idx, t.sub_index, t.dtype, t.shape, "
    "t.abs_max FROM tensors t JOIN files f ON f.id = t.key >> 20 JOIN dirs d ON d.id = f.dir_id "
    "WHERE t.abs_max IS NOT NULL ORDER BY t.abs_max DESC, path, t.key LIMIT ?";

Result<Stmt> step_row(sqlite3* db, const std::string& path, const char* sql) {
  MSIT_ASSIGN_OR_RETURN(Stmt s, prepare(db, path, sql));
  if (sqlite3_step(s.get()) != SQLITE_ROW)
    return sqlite_error(db, path, Stage::kStore, std::string("cannot read: ") + sql);
  return s;
}

std::string text_of(sqlite3_stmt* s, int col) {
  const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(s, col));
  return p != nullptr ? std::string(p, static_cast<size_t>(sqlite3_column_bytes(s, col))) : std::string();
}

uint64_t u64_at(sqlite3_stmt* s, int col) {
  const int64_t v = sqlite3_column_int64(s, col);
  return v < 0 ? 0 : static_cast<uint64_t>(v);
}

void add_file_sizes(const DirRef& dir, StoreOverview& o) {
  const size_t slash = o.path.rfind('/');
  const std::string name = slash == std::string::npos ? o.path : o.path.substr(slash + 1);
  for (const char* suffix : {"", "-wal", "-shm"}) {
    struct stat st {};
    if (::fstatat(dir.get(), (name + suffix).c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode)) continue;
    o.apparent_bytes += static_cast<uint64_t>(st.st_size);
    o.allocated_bytes += static_cast<uint64_t>(st.st_blocks) * 512;
  }
}

Status read_top(sqlite3* db, int version, StoreOverview& o, size_t top_n) {
  MSIT_ASSIGN_OR_RETURN(Stmt s, prepare(db, o.path, version == 1 ? kTopSqlV1 : kTopSqlV2));
  sqlite3_bind_int64(s.get(), 1, static_cast<int64_t>(std::min<size_t>(top_n, 10000)));
  int rc;
  while ((rc = sqlite3_step(s.get())) == SQLITE_ROW) {
    TopTensor t;
    t.path = text_of(s.get(), 0);
    t.role = text_of(s.get(), 1);
    t.index = static_cast<uint32_t>(sqlite3_column_int64(s.get(), 2));
    if (sqlite3_column_type(s.get(), 3) != SQLITE_NULL)
      t.sub_index = static_cast<uint32_t>(sqlite3_column_int64(s.get(), 3));
    t.dtype = text_of(s.get(), 4);
    t.shape = text_of(s.get(), 5);
    t.abs_max = sqlite3_column_double(s.get(), 6);
    o.top.push_back(std::move(t));
  }
  if (rc != SQLITE_DONE) return sqlite_error(db, o.path, Stage::kStore, "cannot read the largest tensors");
  return ok_status();
}

}  // namespace

Result<StoreOverview> read_overview(const std::string& db_path, size_t top_n) {
  // Checked and opened as every reader opens a store (summary_store.h), one snapshot throughout.
  MSIT_ASSIGN_OR_RETURN(auto store, SummaryStore::open_read_only(db_path));
  MSIT_TRY(store->begin_snapshot());
  sqlite3* db = store->connection();
  StoreOverview o;
  o.path = db_path;
  {
    MSIT_ASSIGN_OR_RETURN(Stmt s, step_row(db, db_path, "PRAGMA user_version"));
    o.version = sqlite3_column_int64(s.get(), 0);
  }
  {
    MSIT_ASSIGN_OR_RETURN(Stmt s, prepare(db, db_path, "SELECT value FROM meta WHERE key = 'created_by'"));
    if (sqlite3_step(s.get()) == SQLITE_ROW) o.created_by = text_of(s.get(), 0);
  }
  {
    MSIT_ASSIGN_OR_RETURN(Stmt s, step_row(db, db_path, "SELECT count(*), coalesce(sum(size_bytes), 0) FROM files"));
    o.files = u64_at(s.get(), 0);
    o.raw_bytes = u64_at(s.get(), 1);
  }
  {
    MSIT_ASSIGN_OR_RETURN(Stmt s, step_row(db, db_path,
                                           "SELECT (SELECT count(*) FROM tensors), "
                                           "(SELECT count(*) FROM extra_blocks)"));
    o.tensors = u64_at(s.get(), 0);
    o.extra_blocks = u64_at(s.get(), 1);
  }
  MSIT_TRY(read_top(db, store->version(), o, top_n));
  add_file_sizes(store->dir(), o);
  return o;
}

}  // namespace msit::store
