#include "common/store/store_vfs.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <mutex>
#include <optional>
#include <string>

#include "common/store/sqlite_handle.h"

namespace msit::store {
namespace {

constexpr std::string_view kPrefix = "/.msit-dirfd/";

using OpenFn = int (*)(const char*, int, int);
using AccessFn = int (*)(const char*, int);
using StatFn = int (*)(const char*, struct stat*);
using UnlinkFn = int (*)(const char*);
using FchownFn = int (*)(int, uid_t, gid_t);
using FchmodFn = int (*)(int, mode_t);

OpenFn real_open = nullptr;
AccessFn real_access = nullptr;
StatFn real_stat = nullptr;
StatFn real_lstat = nullptr;
UnlinkFn real_unlink = nullptr;
FchmodFn real_fchmod = nullptr;
sqlite3_vfs beneath;
int (*unix_full_pathname)(sqlite3_vfs*, const char*, int, char*) = nullptr;

struct LastOpen {
  std::string name;
  FileKey key{};
};
thread_local std::optional<LastOpen> last_open;
thread_local std::optional<VfsRefusal> refusal;

// One of our names: "/.msit-dirfd/{w|r}FD:UID/ENTRY"; entry "" names the directory itself.
struct Name {
  bool read_only = false;
  int fd = -1;
  uid_t owner = 0;
  const char* entry = "";
};

bool has_prefix(const char* path) { return path != nullptr && std::strncmp(path, kPrefix.data(), kPrefix.size()) == 0; }

bool split(const char* path, Name* n) {
  if (!has_prefix(path)) return false;
  const char* p = path + kPrefix.size();
  if (*p != 'w' && *p != 'r') return false;
  n->read_only = *p++ == 'r';
  const char* end = p + std::strlen(p);
  auto [colon, ec] = std::from_chars(p, end, n->fd);
  if (ec != std::errc() || n->fd < 0 || *colon != ':') return false;
  unsigned long long owner = 0;
  auto [after, ec2] = std::from_chars(colon + 1, end, owner);
  if (ec2 != std::errc() || owner != static_cast<uid_t>(owner)) return false;
  n->owner = static_cast<uid_t>(owner);
  if (*after == '\0') {
    n->entry = "";
    return true;
  }
  if (*after != '/' || std::strchr(after + 1, '/') != nullptr || after[1] == '\0') return false;
  n->entry = after + 1;
  return true;
}

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// What is wrong with a file SQLite opened under one of our names ("" when nothing): the rule
// of check_store_files() (store_open.cpp) again, on the very descriptor SQLite will use, so
// that a file planted after that check is refused all the same.
std::string wrong_with(const struct stat& st, uid_t owner) {
  if (!S_ISREG(st.st_mode)) return "is not a regular file";
  if (st.st_nlink != 1) return "has " + std::to_string(st.st_nlink) + " hard links";
  if (st.st_uid != owner) {
    return "belongs to uid " + std::to_string(st.st_uid) + ", not to uid " + std::to_string(owner) +
           " that owns the store";
  }
  return {};
}

// A reader finds a WAL without its -shm index (a writer killed, the index removed): the WAL
// is read through a private, empty index instead of creating the file. SQLite sees an index
// that no writer holds and reads the WAL into memory (its "heap-memory" mode for read-only
// indexes), as it does for a stale -shm it may not write.
int private_shm() {
  const int fd = ::memfd_create("msit-store-shm", MFD_CLOEXEC);
  return fd >= 0 ? fd : (errno = ENOENT, -1);
}

// A root writer filling the store of user A (docs/store.md, "Who can read a store") has just
// created its -wal, -shm or -journal: the file is root's, empty, with one link. It is given
// the database's owner and group here, before the owner check, as SQLite would give them right
// after (its fchown is neutralised, beneath_fchown()); else the next open of the store would
// refuse its own side file. Only root makes root's files, so none planted is given away.
bool give_to_store_owner(const Name& n, int fd, struct stat& st) {
  if (n.read_only || ::geteuid() != 0 || n.owner == 0 || st.st_uid != 0 || !S_ISREG(st.st_mode) || st.st_nlink != 1 ||
      st.st_size != 0)
    return false;
  const std::string_view entry(n.entry);
  std::string_view db;
  for (std::string_view suffix : {"-wal", "-shm", "-journal"}) {
    if (ends_with(entry, suffix)) db = entry.substr(0, entry.size() - suffix.size());
  }
  struct stat db_st {};
  if (db.empty() || ::fstatat(n.fd, std::string(db).c_str(), &db_st, AT_SYMLINK_NOFOLLOW) != 0 ||
      !S_ISREG(db_st.st_mode) || db_st.st_uid != n.owner)
    return false;
  return ::fchown(fd, db_st.st_uid, db_st.st_gid) == 0 && ::fstat(fd, &st) == 0;
}

int beneath_open(const char* path, int flags, int mode) {
  Name n;
  if (!split(path, &n)) {
    if (has_prefix(path)) return errno = ENOENT, -1;
    return real_open(path, flags, mode);
  }
  if (*n.entry == '\0') return ::openat(n.fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  // A reader asks for nothing but reading: SQLite then retries read-only (database, WAL,
  // -shm) or reports the file it cannot create.
  if (n.read_only && ((flags & O_ACCMODE) != O_RDONLY || (flags & (O_CREAT | O_TRUNC)) != 0)) return errno = EACCES, -1;
  // O_NONBLOCK: a FIFO planted under the name must not block the open (cleared below).
  const int opened = ::openat(n.fd, n.entry, flags | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, mode);
  if (opened < 0) {
    if (n.read_only && errno == ENOENT && ends_with(n.entry, "-shm")) return private_shm();
    return -1;
  }
  struct stat st {};
  std::string why = ::fstat(opened, &st) == 0 ? wrong_with(st, n.owner) : "cannot be looked at";
  if (!why.empty() && give_to_store_owner(n, opened, st)) why = wrong_with(st, n.owner);
  if (why.empty() && (flags & O_NONBLOCK) == 0) {
    const int now = ::fcntl(opened, F_GETFL);
    if (now < 0 || ::fcntl(opened, F_SETFL, now & ~O_NONBLOCK) != 0) why = "cannot be set to blocking reads";
  }
  if (!why.empty()) {
    ::close(opened);
    const bool foreign = S_ISREG(st.st_mode) && st.st_nlink == 1 && st.st_uid != n.owner;
    refusal = VfsRefusal{n.entry, std::move(why), foreign};
    return errno = EPERM, -1;
  }
  last_open = LastOpen{n.entry, FileKey{st.st_dev, st.st_ino}};
  return opened;
}

int beneath_stat_common(const char* path, struct stat* st, StatFn real) {
  Name n;
  if (!split(path, &n)) return real(path, st);
  if (*n.entry == '\0') return ::fstat(n.fd, st);
  const int rc = ::fstatat(n.fd, n.entry, st, AT_SYMLINK_NOFOLLOW);
  // SQLite looks a database name up with stat() first and, when this process still holds an
  // unused descriptor of that very file (a closed connection's, kept while another holds a
  // lock), takes it instead of opening: then the file stat() found is the one reached.
  if (rc == 0) last_open = LastOpen{n.entry, FileKey{st->st_dev, st->st_ino}};
  return rc;
}
int beneath_stat(const char* path, struct stat* st) { return beneath_stat_common(path, st, real_stat); }
int beneath_lstat(const char* path, struct stat* st) { return beneath_stat_common(path, st, real_lstat); }

int beneath_access(const char* path, int mode) {
  Name n;
  if (!split(path, &n)) return real_access(path, mode);
  return ::faccessat(n.fd, *n.entry == '\0' ? "." : n.entry, mode, AT_EACCESS | AT_SYMLINK_NOFOLLOW);
}

int beneath_unlink(const char* path) {
  Name n;
  if (!split(path, &n)) return real_unlink(path);
  if (*n.entry == '\0') return errno = EISDIR, -1;
  if (n.read_only) return errno = EACCES, -1;  // a reader removes nothing (not even an empty WAL)
  return ::unlinkat(n.fd, n.entry, 0);
}

// Running as root, SQLite gives every WAL, journal and -shm it opens the database file's owner
// and group. Every file opened already has the database's owner (checked; a root writer's new
// side files got it in beneath_open()), so there is nothing to change; a reader must change
// nothing. SQLite ignores the result.
int beneath_fchown(int fd, uid_t uid, gid_t gid) {
  struct stat st {};
  if (::fstat(fd, &st) == 0 && (uid == static_cast<uid_t>(-1) || st.st_uid == uid) &&
      (gid == static_cast<gid_t>(-1) || st.st_gid == gid))
    return 0;
  return errno = EPERM, -1;
}

// SQLite sets the mode of an empty file it opened to the database's; never through a
// descriptor opened for reading (a reader changes nothing).
int beneath_fchmod(int fd, mode_t mode) {
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags < 0 || (flags & O_ACCMODE) == O_RDONLY) return errno = EPERM, -1;
  return real_fchmod(fd, mode);
}

// Our names are already absolute and must not be resolved through /proc or symlinks.
int beneath_full_pathname(sqlite3_vfs* vfs, const char* path, int n_out, char* out) {
  if (!has_prefix(path)) return unix_full_pathname(vfs, path, n_out, out);
  const size_t len = std::strlen(path);
  if (len + 1 > static_cast<size_t>(n_out)) return SQLITE_CANTOPEN;
  std::memcpy(out, path, len + 1);
  return SQLITE_OK;
}

template <class Fn>
Fn swap_syscall(sqlite3_vfs* unix_vfs, const char* name, Fn ours) {
  auto old = reinterpret_cast<Fn>(unix_vfs->xGetSystemCall(unix_vfs, name));
  unix_vfs->xSetSystemCall(unix_vfs, name, reinterpret_cast<sqlite3_syscall_ptr>(ours));
  return old;
}

void install() {
  init_sqlite();
  sqlite3_vfs* unix_vfs = sqlite3_vfs_find("unix");
  if (unix_vfs == nullptr || unix_vfs->iVersion < 3) return;
  real_open = swap_syscall<OpenFn>(unix_vfs, "open", beneath_open);
  real_access = swap_syscall<AccessFn>(unix_vfs, "access", beneath_access);
  real_stat = swap_syscall<StatFn>(unix_vfs, "stat", beneath_stat);
  real_lstat = swap_syscall<StatFn>(unix_vfs, "lstat", beneath_lstat);
  real_unlink = swap_syscall<UnlinkFn>(unix_vfs, "unlink", beneath_unlink);
  real_fchmod = swap_syscall<FchmodFn>(unix_vfs, "fchmod", beneath_fchmod);
  (void)swap_syscall<FchownFn>(unix_vfs, "fchown", beneath_fchown);
  beneath = *unix_vfs;
  beneath.zName = "msit-beneath";
  beneath.pNext = nullptr;
  unix_full_pathname = unix_vfs->xFullPathname;
  beneath.xFullPathname = beneath_full_pathname;
  sqlite3_vfs_register(&beneath, 0);
}

}  // namespace

const char* beneath_vfs() {
  static std::once_flag once;
  std::call_once(once, install);
  return beneath.zName;  // nullptr when the unix VFS could not be wrapped
}

void forget_last_open() { last_open.reset(); }

std::optional<FileKey> last_open_of(std::string_view name) {
  if (!last_open || last_open->name != name) return std::nullopt;
  return last_open->key;
}

void forget_refusal() { refusal.reset(); }

std::optional<VfsRefusal> last_refusal() { return refusal; }

std::string beneath_filename(int dir_fd, std::string_view name, BeneathAccess access, uid_t owner) {
  return std::string(kPrefix) + (access == BeneathAccess::kRead ? "r" : "w") + std::to_string(dir_fd) + ":" +
         std::to_string(owner) + "/" + std::string(name);
}

std::string beneath_filename(int dir_fd, std::string_view name) {
  return beneath_filename(dir_fd, name, BeneathAccess::kWrite, ::geteuid());
}

}  // namespace msit::store
