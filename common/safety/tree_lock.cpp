// flock-based tree ownership (the lock file is ours: never followed, never a dump).
#include "common/safety/tree_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sys/sysmacros.h>

#include <cerrno>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace msit {
namespace {

// The lock file stays empty (an idempotent rerun changes nothing in the tree): the holder is
// found in /proc/locks by the file's device and inode.
std::string holder_text(int fd) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return "another process";
  char key[64];
  std::snprintf(key, sizeof key, "%02x:%02x:%llu", major(st.st_dev), minor(st.st_dev),
                static_cast<unsigned long long>(st.st_ino));
  std::ifstream locks("/proc/locks");
  std::string line;
  while (std::getline(locks, line)) {
    std::istringstream in(line);
    std::string id, kind, mode, rw, pid, dev;
    if (!(in >> id >> kind >> mode >> rw >> pid >> dev) || kind != "FLOCK" || dev != key) continue;
    std::ifstream comm("/proc/" + pid + "/comm");
    std::string name;
    std::getline(comm, name);
    return "pid " + pid + (name.empty() ? "" : " (" + name + ")");
  }
  return "another process";
}

}  // namespace

Result<TreeLock> TreeLock::acquire(int root_fd, const std::string& root_path) {
  const std::string path = root_path + "/" + std::string(kLockName);
  const std::string name(kLockName);
  for (int attempt = 0; attempt < 8; ++attempt) {
    UniqueFd fd(::openat(root_fd, name.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0644));
    if (!fd.valid()) {
      if (errno == ELOOP) return make_error(path, Stage::kLock, "the lock file is a symbolic link; refusing the tree");
      return make_sys_error(path, Stage::kLock, "cannot open the tree's lock file", errno);
    }
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode))
      return make_error(path, Stage::kLock, "the lock file is not a regular file; refusing the tree");
    if (::flock(fd.get(), LOCK_EX | LOCK_NB) != 0) {
      if (errno == EWOULDBLOCK) {
        return make_error(root_path, Stage::kLock,
                          "the tree is owned by " + holder_text(fd.get()) +
                              " (a running msit-compact); stop it first, or pass --force");
      }
      return make_sys_error(path, Stage::kLock, "cannot lock the tree", errno);
    }
    struct stat now {};
    if (::fstatat(root_fd, name.c_str(), &now, AT_SYMLINK_NOFOLLOW) != 0 || now.st_ino != st.st_ino ||
        now.st_dev != st.st_dev) {
      continue;  // the previous holder removed it between our open and our lock
    }
    UniqueFd dir(::fcntl(root_fd, F_DUPFD_CLOEXEC, 0));
    return TreeLock(std::move(fd), std::move(dir));
  }
  return make_error(path, Stage::kLock, "the lock file keeps changing; another process is racing for the tree");
}

TreeLock& TreeLock::operator=(TreeLock&& o) noexcept {
  if (this != &o) {
    release();
    fd_ = std::move(o.fd_);
    dir_ = std::move(o.dir_);
  }
  return *this;
}

TreeLock::~TreeLock() { release(); }

bool TreeLock::lost() const {
  struct stat st {};
  return fd_.valid() && ::fstat(fd_.get(), &st) == 0 && st.st_nlink == 0;
}

void TreeLock::release() {
  if (!fd_.valid()) return;
  if (dir_.valid()) ::unlinkat(dir_.get(), std::string(kLockName).c_str(), 0);
  fd_.reset();
  dir_.reset();
}

std::string live_lock_holder(int dir_fd) {
  UniqueFd fd(::openat(dir_fd, std::string(kLockName).c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK));
  if (!fd.valid()) return {};
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) return {};
  if (::flock(fd.get(), LOCK_SH | LOCK_NB) == 0) {
    ::flock(fd.get(), LOCK_UN);
    return {};
  }
  return errno == EWOULDBLOCK ? holder_text(fd.get()) : std::string();
}

LockedAncestor locked_ancestor(const std::string& abs_root) {
  std::string dir = abs_root;
  while (dir.size() > 1) {
    size_t slash = dir.rfind('/');
    dir = slash == 0 ? "/" : dir.substr(0, slash);
    UniqueFd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!fd.valid()) continue;
    std::string holder = live_lock_holder(fd.get());
    if (!holder.empty()) return {dir, holder};
  }
  return {};
}

}  // namespace msit
