// The store's tables (version kStoreVersion) and the checks made on a database before it is
// trusted: our application id, a version this build reads, and (for writers) quick_check.
#pragma once

#include <string>

#include "common/base/result.h"
#include "common/store/sqlite_handle.h"
#include "common/store/store_version.h"

namespace msit::store {

// Creates the tables of store `version` in an empty database and stamps application_id and
// user_version. Writers create kStoreVersion; version 1 only for tests of old stores.
Status create_schema(sqlite3* db, const std::string& path, int version = kStoreVersion);

// An existing database: ours, of a version this build reads (1 or 2), and with exactly that
// version's schema (check_schema). `writable` adds a PRAGMA quick_check (raw files are never
// deleted into a damaged store). Returns the store's version.
Result<int> check_existing(sqlite3* db, const std::string& path, bool writable);

// The store's tables, indexes, views and triggers are exactly the ones `version`'s schema
// makes, each defined by the same SQL: a view or a trigger would run its own SQL in the reader,
// a generated column or an index of its own make it compute or allocate. Reads sqlite_schema
// only.
Status check_schema(sqlite3* db, const std::string& path, int version);

// True when the database has no tables yet (a file just created).
Result<bool> is_empty_database(sqlite3* db, const std::string& path);

}  // namespace msit::store
