// The store's tables (version kStoreVersion) and the checks made on a database before it is
// trusted: our application id, a version this build reads, and (for writers) quick_check.
#pragma once

#include <string>

#include "common/base/result.h"
#include "common/store/sqlite_handle.h"

namespace msit::store {

// Creates the tables in an empty database and stamps application_id and user_version.
Status create_schema(sqlite3* db, const std::string& path);

// An existing database: ours, of a version this build reads, and with exactly our schema
// (check_schema). `writable` adds a PRAGMA quick_check (raw files are never deleted into a
// damaged store).
Status check_existing(sqlite3* db, const std::string& path, bool writable);

// The store's tables, indexes, views and triggers are exactly the ones kSchemaV1 makes, each
// defined by the same SQL: a view or a trigger would run its own SQL in the reader, a generated
// column or an index of its own make it compute or allocate. Reads sqlite_schema only.
Status check_schema(sqlite3* db, const std::string& path);

// True when the database has no tables yet (a file just created).
Result<bool> is_empty_database(sqlite3* db, const std::string& path);

}  // namespace msit::store
