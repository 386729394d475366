// SQLite extended result codes + errno -> what happened and what to do.
#include "common/store/sqlite_message.h"

#include <sqlite3.h>

#include <cerrno>
#include <cstring>

#include "common/io/path_name.h"

namespace msit::store {
namespace {

// Causes that the errno names whatever the SQLite code (a write, an mmap of -shm, a truncate).
std::string errno_text(int err, const std::string& dir) {
  switch (err) {
    case ENOSPC: return "no space left on device under " + dir + "; raw files kept; free space and rerun";
    case EDQUOT: return "disk quota exceeded under " + dir + "; raw files kept; free space in the quota and rerun";
    case EROFS: return "the filesystem under " + dir + " is read-only; raw files kept";
    case EIO: return "the device under " + dir + " reported an I/O error (EIO); raw files kept; check the disk (dmesg)";
    case EACCES:
    case EPERM: return "permission denied under " + dir + "; raw files kept";
    case ENOMEM: return "out of memory; raw files kept";
    default: return {};
  }
}

}  // namespace

std::string sqlite_failure_text(int extended_code, int sys_errno, const std::string& db_path) {
  const std::string dir = parent_dir(db_path);
  const int primary = extended_code & 0xff;
  // SQLite records the errno for these two only (sqlite3SystemError); for others it may be stale.
  if (primary == SQLITE_IOERR || primary == SQLITE_CANTOPEN) {
    if (std::string t = errno_text(sys_errno, dir); !t.empty()) return t;
  }
  switch (primary) {
    case SQLITE_FULL: return errno_text(ENOSPC, dir);  // SQLite's own word for ENOSPC
    case SQLITE_IOERR:
      if (sys_errno != 0) return "I/O error under " + dir + " (" + std::strerror(sys_errno) + "); raw files kept";
      return {};
    case SQLITE_NOMEM: return errno_text(ENOMEM, dir);
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB: return "the store is damaged or not a summary store; raw files kept; move it aside";
    case SQLITE_BUSY:
    case SQLITE_LOCKED: return "the store is locked by another process; raw files kept; rerun when it is done";
    default: return {};
  }
}

}  // namespace msit::store
