// Owning handles for SQLite connections and statements, and the error text of a failed call.
#pragma once

#include <memory>
#include <string>

#include "common/base/result.h"

struct sqlite3;
struct sqlite3_stmt;

namespace msit::store {

// Out of line, so that headers naming a store need no <sqlite3.h>.
struct DbClose {
  void operator()(sqlite3* db) const;
};
struct StmtFinalize {
  void operator()(sqlite3_stmt* s) const;
};
using DbHandle = std::unique_ptr<sqlite3, DbClose>;
using Stmt = std::unique_ptr<sqlite3_stmt, StmtFinalize>;

// Process-wide SQLite set-up, once, before any connection: no memory statistics (their
// global mutex is taken on every allocation, which serialised compare's reader threads).
void init_sqlite();

// "what: SQLite's message (extended code)" as an Error about `path`.
Error sqlite_error(sqlite3* db, const std::string& path, Stage stage, const std::string& what);

// Runs SQL with no result rows (DDL, PRAGMA setters, BEGIN/COMMIT).
Status exec(sqlite3* db, const std::string& path, const char* sql);

Result<Stmt> prepare(sqlite3* db, const std::string& path, const char* sql);

}  // namespace msit::store
