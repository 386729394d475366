// The store's files checked by the one rule, and connections opened the one way (through the
// directory fd and the msit-beneath VFS), hardened and bounded before the first read.
#include "common/store/store_open.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>

#include "common/store/store_vfs.h"

namespace msit::store {
namespace {

// Work allowed to one query between two rows it returns (or before its first), in SQLite
// virtual-machine steps: a fixed part, and one step per byte of the database and its WAL (a
// sort of every tensor row of a real store takes ~25 steps per row of 100s of bytes). Only a
// crafted store runs over it; the query is then interrupted (SQLITE_INTERRUPT).
constexpr uint64_t kBaseSteps = 10'000'000;
constexpr int kStepsPerCheck = 10'000;

// Steps since the calling thread's last row or statement start: a connection is used by one
// thread at a time, and its progress handler and trace callback run on that thread.
thread_local uint64_t steps_since_row = 0;

int on_progress(void* budget) {
  steps_since_row += kStepsPerCheck;
  return steps_since_row > reinterpret_cast<uintptr_t>(budget) ? 1 : 0;
}

int on_statement_or_row(unsigned, void*, void*, void*) {
  steps_since_row = 0;
  return 0;
}

void harden(sqlite3* db, uint64_t bytes) {
  sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);
  sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, nullptr);
  sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, nullptr);
  sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_VIEW, 1, nullptr);  // docs/store.md's tensor_stats
  // clang-format off
  sqlite3_limit(db, SQLITE_LIMIT_LENGTH,              kMaxStoreValueBytes);
  sqlite3_limit(db, SQLITE_LIMIT_SQL_LENGTH,          100'000);
  sqlite3_limit(db, SQLITE_LIMIT_COLUMN,              128);
  sqlite3_limit(db, SQLITE_LIMIT_EXPR_DEPTH,          100);
  sqlite3_limit(db, SQLITE_LIMIT_COMPOUND_SELECT,     4);
  sqlite3_limit(db, SQLITE_LIMIT_VDBE_OP,             50'000);
  sqlite3_limit(db, SQLITE_LIMIT_FUNCTION_ARG,        8);
  sqlite3_limit(db, SQLITE_LIMIT_ATTACHED,            0);
  sqlite3_limit(db, SQLITE_LIMIT_LIKE_PATTERN_LENGTH, 100);
  sqlite3_limit(db, SQLITE_LIMIT_VARIABLE_NUMBER,     64);
  sqlite3_limit(db, SQLITE_LIMIT_TRIGGER_DEPTH,       1);
  sqlite3_limit(db, SQLITE_LIMIT_WORKER_THREADS,      0);
  // clang-format on
  const uint64_t budget = kBaseSteps + bytes;
  sqlite3_progress_handler(db, kStepsPerCheck, on_progress, reinterpret_cast<void*>(static_cast<uintptr_t>(budget)));
  sqlite3_trace_v2(db, SQLITE_TRACE_STMT | SQLITE_TRACE_ROW, on_statement_or_row, nullptr);
  sqlite3_busy_timeout(db, 10000);
}

// '%', '?' and '#' would end or escape the file name of an SQLite URI.
std::string uri_of(const std::string& name, const char* query) {
  std::string out = "file:";
  for (char c : name) {
    if (c == '%' || c == '?' || c == '#') {
      static const char kHex[] = "0123456789ABCDEF";
      out += '%';
      out += kHex[(static_cast<unsigned char>(c) >> 4) & 15];
      out += kHex[static_cast<unsigned char>(c) & 15];
    } else {
      out += c;
    }
  }
  return out + "?" + query;
}

const char* kSuffixes[] = {"-wal", "-shm", "-journal"};

std::string uid_text(uid_t uid) { return "uid " + std::to_string(uid); }

// The database file itself.
Status check_database(const std::string& path, const struct stat& st, StoreAccess access) {
  const std::string kept = access == StoreAccess::kWrite ? "; raw files kept" : "; nothing was read from it";
  if (!S_ISREG(st.st_mode)) {
    return make_error(path, Stage::kStore,
                      "is not a regular file (a symbolic link or something else): a store is never opened through "
                      "one" +
                          kept + ". Remove it or move it aside");
  }
  if (st.st_nlink != 1) {
    return make_error(path, Stage::kStore,
                      "has " + std::to_string(st.st_nlink) +
                          " hard links: another name shares this file, which may be anyone's, so it is never opened "
                          "as a store" +
                          kept + ". Remove the other names or move the store aside");
  }
  // As root, a writer fills stores of other users too: the store was created with the owner of
  // the raw files whose rows it holds (docs/store.md, "Who can read a store"), and its side
  // files must then be that owner's as well (check_side_file()).
  if (access == StoreAccess::kWrite && st.st_uid != ::geteuid() && ::geteuid() != 0) {
    return make_error(path, Stage::kStore,
                      "belongs to " + uid_text(st.st_uid) + ", not to this process (" + uid_text(::geteuid()) +
                          "): not written to; raw files kept");
  }
  return ok_status();
}

// A -wal, -shm or -journal beside the database: SQLite would read it (a WAL's rows are the
// store's newest rows), and as a writer truncate and write it.
Status check_side_file(const std::string& path, const struct stat& st, uid_t owner, StoreAccess access) {
  const std::string refused =
      access == StoreAccess::kWrite ? "the store is not opened (raw files kept)" : "the store is not read";
  if (!S_ISREG(st.st_mode)) {
    return make_error(path, Stage::kStore,
                      "is not a regular file (a symbolic link or something else): never opened, and " + refused +
                          " while it is there. Remove it");
  }
  if (st.st_nlink != 1) {
    return make_error(path, Stage::kStore,
                      "has " + std::to_string(st.st_nlink) +
                          " hard links: it may be another file of anyone's, which SQLite would overwrite or give "
                          "away, so " +
                          refused +
                          " while it is there. Remove this name (the other names keep the file) if the store's "
                          "owner did not make it");
  }
  if (st.st_uid != owner) {
    return make_error(path, Stage::kStoreOwner,
                      "belongs to " + uid_text(st.st_uid) + ", but the store belongs to " + uid_text(owner) +
                          ": a file another user put beside the store (it could forge its rows), so " + refused +
                          " while it is there. Find out who made it, then remove it");
  }
  return ok_status();
}

}  // namespace

Result<StoreFiles> check_store_files(const DirRef& dir, std::string_view name, StoreAccess access) {
  StoreFiles files;
  const std::string db_path = dir.path + "/" + std::string(name);
  struct stat st {};
  if (::fstatat(dir.get(), std::string(name).c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) {
    MSIT_TRY(check_database(db_path, st, access));
    files.exists = true;
    files.owner = st.st_uid;
    files.bytes = static_cast<uint64_t>(st.st_size);
  } else if (errno != ENOENT || access == StoreAccess::kRead) {
    return make_sys_error(db_path, Stage::kStore, "cannot look at the summary store", errno);
  } else {
    files.owner = ::geteuid();
  }
  for (const char* suffix : kSuffixes) {
    const std::string side = std::string(name) + suffix;
    if (::fstatat(dir.get(), side.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
      if (errno == ENOENT) continue;
      return make_sys_error(dir.path + "/" + side, Stage::kStore, "cannot look at the store's file", errno);
    }
    MSIT_TRY(check_side_file(dir.path + "/" + side, st, files.owner, access));
    if (suffix == kSuffixes[0]) {
      files.has_wal = true;
      files.bytes += static_cast<uint64_t>(st.st_size);
    }
  }
  return files;
}

Result<DbHandle> open_store_connection(const DirRef& dir, std::string_view name, StoreAccess access,
                                       const StoreFiles& files, bool create, const std::string& path) {
  init_sqlite();
  const char* vfs = beneath_vfs();
  if (vfs == nullptr) {
    return make_error(path, Stage::kStore,
                      "this SQLite build cannot open files through a directory fd; use --summary-format json");
  }
  const bool read = access == StoreAccess::kRead;
  // Every file of the store must have the database's owner (a root writer's new -wal and -shm
  // are given it by the VFS).
  std::string filename =
      beneath_filename(dir.get(), name, read ? BeneathAccess::kRead : BeneathAccess::kWrite, files.owner);
  int flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE;
  if (read) {
    flags |= SQLITE_OPEN_READONLY;
    // Without a WAL the database file holds every committed row; a reader may not create the
    // WAL and -shm that SQLite would otherwise make, so it reads the file as immutable.
    if (!files.has_wal) {
      filename = uri_of(filename, "immutable=1");
      flags |= SQLITE_OPEN_URI;
    }
  } else {
    flags |= SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0);
  }
  forget_refusal();
  sqlite3* raw = nullptr;
  const int rc = sqlite3_open_v2(filename.c_str(), &raw, flags, vfs);
  DbHandle db(raw);
  if (rc != SQLITE_OK) return store_open_error(db.get(), dir, path, "cannot open the summary store");
  harden(db.get(), files.bytes);
  return db;
}

Error store_open_error(sqlite3* db, const DirRef& dir, const std::string& path, const std::string& what) {
  std::optional<VfsRefusal> refused = last_refusal();
  forget_refusal();
  if (refused) {
    return make_error(dir.path + "/" + refused->name, refused->foreign_owner ? Stage::kStoreOwner : Stage::kStore,
                      refused->why + " (found when SQLite opened it): the store " + path +
                          " is not opened. Remove the file if the store's owner did not make it");
  }
  return sqlite_error(db, path, Stage::kStore, what);
}

Status with_refusal(Status st, const DirRef& dir, const std::string& path) {
  if (st.ok() || !last_refusal()) {
    forget_refusal();
    return st;
  }
  return store_open_error(nullptr, dir, path, "");
}

}  // namespace msit::store
