// What a failed SQLite call means, said plainly: SQLite's own text for a full disk is "disk I/O
// error (SQLite code 4874)"; the errno underneath (sqlite3_system_errno) tells the real cause.
#pragma once

#include <string>

namespace msit::store {

// The user's message for a failed call on the store at `db_path` (extended result code and the
// errno SQLite saw), or "" when the code has no plainer wording than SQLite's own message. Store
// failures never remove a raw file (docs/store.md), so the message says they are kept.
std::string sqlite_failure_text(int extended_code, int sys_errno, const std::string& db_path);

}  // namespace msit::store
