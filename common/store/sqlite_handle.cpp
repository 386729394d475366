#include "common/store/sqlite_handle.h"

#include <sqlite3.h>

#include <mutex>

#include "common/store/sqlite_message.h"
#include "common/store/store_open.h"

namespace msit::store {

void init_sqlite() {
  static std::once_flag once;
  std::call_once(once, [] {
    sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
    sqlite3_initialize();
  });
}

void DbClose::operator()(sqlite3* db) const { sqlite3_close_v2(db); }
void StmtFinalize::operator()(sqlite3_stmt* s) const { sqlite3_finalize(s); }

namespace {

// "plain cause (SQLite: its message, code N)" when the cause has plainer words (a full disk, a
// read-only filesystem: sqlite_message.h), else SQLite's message plus what it means for a store
// where SQLite's own words would not say it: the bounds that store_open.cpp sets are only ever
// reached by a crafted or damaged store.
std::string explained(sqlite3* db, const std::string& path, const std::string& sqlite_text) {
  const int code = sqlite3_extended_errcode(db);
  const std::string raw = sqlite_text + " (SQLite code " + std::to_string(code) + ")";
  const std::string plain = sqlite_failure_text(code, sqlite3_system_errno(db), path);
  if (!plain.empty()) return plain + " (SQLite: " + raw + ")";
  if (code == SQLITE_TOOBIG) {
    return raw + ": a value or row over " + std::to_string(kMaxStoreValueBytes >> 20) +
           " MiB, which msit-compact never writes (a crafted or damaged store); not read further";
  }
  if (code == SQLITE_INTERRUPT) {
    return raw +
           ": a query ran over its work budget, which no store msit-compact writes needs (a crafted or "
           "damaged store); not read further";
  }
  return raw;
}

}  // namespace

Error sqlite_error(sqlite3* db, const std::string& path, Stage stage, const std::string& what) {
  std::string msg = what;
  if (db != nullptr) msg += ": " + explained(db, path, sqlite3_errmsg(db));
  return make_error(path, stage, std::move(msg));
}

Status exec(sqlite3* db, const std::string& path, const char* sql) {
  char* err = nullptr;
  if (sqlite3_exec(db, sql, nullptr, nullptr, &err) == SQLITE_OK) return ok_status();
  std::string text = err != nullptr ? err : "unknown error";
  sqlite3_free(err);
  return make_error(path, Stage::kStore, std::string(sql).substr(0, 40) + ": " + explained(db, path, text));
}

Result<Stmt> prepare(sqlite3* db, const std::string& path, const char* sql) {
  sqlite3_stmt* s = nullptr;
  if (sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, &s, nullptr) != SQLITE_OK) {
    return sqlite_error(db, path, Stage::kStore, "cannot prepare a statement");
  }
  return Stmt(s);
}

}  // namespace msit::store
