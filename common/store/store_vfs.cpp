#include "common/store/store_vfs.h"

#include <fcntl.h>
#include <sqlite3.h>
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

OpenFn real_open = nullptr;
AccessFn real_access = nullptr;
StatFn real_stat = nullptr;
StatFn real_lstat = nullptr;
UnlinkFn real_unlink = nullptr;
sqlite3_vfs beneath;
int (*unix_full_pathname)(sqlite3_vfs*, const char*, int, char*) = nullptr;

struct LastOpen {
  std::string name;
  FileKey key{};
};
thread_local std::optional<LastOpen> last_open;

// Splits one of our names into (dir fd, entry); entry "" names the directory itself.
bool split(const char* path, int* fd, const char** entry) {
  if (path == nullptr || std::strncmp(path, kPrefix.data(), kPrefix.size()) != 0) return false;
  const char* p = path + kPrefix.size();
  const char* end = p + std::strlen(p);
  auto [ptr, ec] = std::from_chars(p, end, *fd);
  if (ec != std::errc() || *fd < 0) return false;
  if (*ptr == '\0') {
    *entry = "";
    return true;
  }
  if (*ptr != '/' || std::strchr(ptr + 1, '/') != nullptr) return false;
  *entry = ptr + 1;
  return true;
}

int beneath_open(const char* path, int flags, int mode) {
  int fd = -1;
  const char* entry = nullptr;
  if (!split(path, &fd, &entry)) {
    if (path != nullptr && std::strncmp(path, kPrefix.data(), kPrefix.size()) == 0) return errno = ENOENT, -1;
    return real_open(path, flags, mode);
  }
  if (*entry == '\0') return ::openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  const int opened = ::openat(fd, entry, flags | O_NOFOLLOW | O_CLOEXEC, mode);
  struct stat st {};
  if (opened >= 0 && ::fstat(opened, &st) == 0) last_open = LastOpen{entry, FileKey{st.st_dev, st.st_ino}};
  // A -wal or -shm planted as a hard link after the writer's checks: as root, SQLite would
  // give it the database's owner (a user's, docs/store.md) and write into it. Refused here,
  // before SQLite sees the descriptor.
  if (opened >= 0 && (!S_ISREG(st.st_mode) || st.st_nlink > 1)) {
    ::close(opened);
    return errno = EPERM, -1;
  }
  return opened;
}

int beneath_stat_common(const char* path, struct stat* st, StatFn real) {
  int fd = -1;
  const char* entry = nullptr;
  if (!split(path, &fd, &entry)) return real(path, st);
  if (*entry == '\0') return ::fstat(fd, st);
  const int rc = ::fstatat(fd, entry, st, AT_SYMLINK_NOFOLLOW);
  // SQLite looks a database name up with stat() first and, when this process still holds an
  // unused descriptor of that very file (a closed connection's, kept while another holds a
  // lock), takes it instead of opening: then the file stat() found is the one reached.
  if (rc == 0) last_open = LastOpen{entry, FileKey{st->st_dev, st->st_ino}};
  return rc;
}
int beneath_stat(const char* path, struct stat* st) { return beneath_stat_common(path, st, real_stat); }
int beneath_lstat(const char* path, struct stat* st) { return beneath_stat_common(path, st, real_lstat); }

int beneath_access(const char* path, int mode) {
  int fd = -1;
  const char* entry = nullptr;
  if (!split(path, &fd, &entry)) return real_access(path, mode);
  return ::faccessat(fd, *entry == '\0' ? "." : entry, mode, AT_EACCESS | AT_SYMLINK_NOFOLLOW);
}

int beneath_unlink(const char* path) {
  int fd = -1;
  const char* entry = nullptr;
  if (!split(path, &fd, &entry)) return real_unlink(path);
  if (*entry == '\0') return errno = EISDIR, -1;
  return ::unlinkat(fd, entry, 0);
}

// Our names are already absolute and must not be resolved through /proc or symlinks.
int beneath_full_pathname(sqlite3_vfs* vfs, const char* path, int n_out, char* out) {
  if (std::strncmp(path, kPrefix.data(), kPrefix.size()) != 0) return unix_full_pathname(vfs, path, n_out, out);
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

std::string beneath_filename(int dir_fd, std::string_view name) {
  return std::string(kPrefix) + std::to_string(dir_fd) + "/" + std::string(name);
}

}  // namespace msit::store
