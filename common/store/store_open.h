// One way to open a summary store, for its writers and its readers alike: its files are
// checked first (regular, one link, one owner), the connection goes through the directory fd
// and the checked VFS (store_vfs.h), and values and query work are bounded before anything is
// read. Rules and tests: docs/safety.md ("Store readers", R1-R5); docs/store.md.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "common/base/result.h"
#include "common/safety/beneath.h"
#include "common/store/sqlite_handle.h"

namespace msit::store {

enum class StoreAccess : uint8_t { kRead, kWrite };

// No value msit-compact writes comes near this (the largest is a 65,536-bucket float64 sketch,
// 512 KiB); SQLite refuses longer strings, blobs and rows (SQLITE_TOOBIG) before allocating them.
inline constexpr int kMaxStoreValueBytes = 4 << 20;

struct StoreFiles {
  uid_t owner = 0;       // the database file's owner (a writer's uid when there is none yet)
  bool exists = false;   // the database file is there
  bool has_wal = false;  // a -wal is there
  uint64_t bytes = 0;    // database and WAL sizes: they scale the query budget
};

// The rule for store `name` in `dir` and its side files (-wal, -shm, -journal): each one present
// is a regular file with one link, the side files owned by the database file's owner; a writer
// also owns the database, a reader needs it to exist. Otherwise an error naming the file, what
// is wrong and what to do. The VFS checks the same on every descriptor SQLite opens.
Result<StoreFiles> check_store_files(const DirRef& dir, std::string_view name, StoreAccess access);

// A connection to store `name` in `dir` whose files passed check_store_files(). kWrite:
// read-write (`create`: the database may be created); kRead: read-only and, when there is no
// WAL, immutable (a reader creates nothing). Hardened (defensive, no triggers, no untrusted
// schema functions), with kMaxStoreValueBytes and the other limits, and a work budget per
// query row that interrupts a query running away on a crafted store.
Result<DbHandle> open_store_connection(const DirRef& dir, std::string_view name, StoreAccess access,
                                       const StoreFiles& files, bool create, const std::string& path);

// The error of an open or a first read that failed: when the VFS refused a file, that file
// by path and why; else SQLite's message. Forgets the refusal.
Error store_open_error(sqlite3* db, const DirRef& dir, const std::string& path, const std::string& what);

// `st`, or, when it failed because the VFS refused a file meanwhile (a WAL or -shm is opened at
// the first read, not at the open), that refusal by path.
Status with_refusal(Status st, const DirRef& dir, const std::string& path);

}  // namespace msit::store
