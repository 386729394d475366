// The store's tables (version kStoreVersion) and the checks made on a database before it is
// trusted: our application id, a version this build reads, and (for writers) quick_check.
#pragma once

#include <string>

#include "common/base/result.h"
#include "common/store/sqlite_handle.h"

namespace msit::store {

// Creates the tables in an empty database and stamps application_id and user_version.
Status create_schema(sqlite3* db, const std::string& path);

// An existing database: ours, and of a version this build reads. `writable` adds a
// PRAGMA quick_check (raw files are never deleted into a damaged store).
Status check_existing(sqlite3* db, const std::string& path, bool writable);

// True when the database has no tables yet (a file just created).
Result<bool> is_empty_database(sqlite3* db, const std::string& path);

}  // namespace msit::store
