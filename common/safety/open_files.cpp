// /proc scan: fd links (stat through the magic link gives dev/ino) and file mappings.
#include "common/safety/open_files.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>

#include "common/base/test_hooks.h"
#include "common/base/unique_fd.h"

namespace msit {
namespace {

bool is_pid(const char* name) {
  if (*name == '\0') return false;
  for (const char* p = name; *p; ++p) {
    if (*p < '0' || *p > '9') return false;
  }
  return true;
}

// Returns false when the process's fds could not be read (permission), true otherwise
// (a process that exited meanwhile has nothing open).
bool scan_fds(int pid_fd, std::set<std::pair<dev_t, ino_t>>& out) {
  int fd_dir = ::openat(pid_fd, "fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd_dir < 0) return errno == ENOENT || errno == ESRCH;
  DIR* d = ::fdopendir(fd_dir);
  if (d == nullptr) {
    ::close(fd_dir);
    return false;
  }
  while (dirent* e = ::readdir(d)) {
    if (e->d_name[0] == '.') continue;
    struct stat st {};
    if (::fstatat(::dirfd(d), e->d_name, &st, 0) == 0 && S_ISREG(st.st_mode)) out.insert({st.st_dev, st.st_ino});
  }
  ::closedir(d);
  return true;
}

// maps lines: "addr perms offset MAJ:MIN inode path"; inode 0 = anonymous.
bool scan_maps(int pid_fd, std::set<std::pair<dev_t, ino_t>>& out) {
  int fd = ::openat(pid_fd, "maps", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return errno == ENOENT || errno == ESRCH;
  FILE* f = ::fdopen(fd, "r");
  if (f == nullptr) {
    ::close(fd);
    return false;
  }
  char line[4096];
  bool readable = true;
  while (std::fgets(line, sizeof line, f) != nullptr) {
    unsigned maj = 0, min = 0;
    unsigned long long ino = 0;
    if (std::sscanf(line, "%*s %*s %*s %x:%x %llu", &maj, &min, &ino) == 3 && ino != 0)
      out.insert({makedev(maj, min), static_cast<ino_t>(ino)});
  }
  if (std::ferror(f)) readable = false;
  std::fclose(f);
  return readable;
}

}  // namespace

OpenFileIndex OpenFileIndex::scan(const std::string& proc_root) {
  OpenFileIndex idx;
  DIR* proc = ::opendir(proc_root.c_str());
  if (proc == nullptr) {
    idx.complete_ = false;
    idx.gap_ = proc_root + " cannot be read";
    return idx;
  }
  if (::geteuid() != 0 || test_proc_unreadable()) {
    // Other users' processes may be hidden or unreadable: "not open" would be a guess.
    idx.complete_ = false;
    idx.gap_ = "not running as root: other users' open files cannot be seen";
  }
  const pid_t self = ::getpid();
  while (dirent* e = ::readdir(proc)) {
    if (!is_pid(e->d_name) || std::atoi(e->d_name) == self) continue;
    UniqueFd pid_fd(::openat(::dirfd(proc), e->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!pid_fd.valid()) continue;  // exited
    bool ok = scan_fds(pid_fd.get(), idx.open_);
    ok = scan_maps(pid_fd.get(), idx.open_) && ok;
    if (!ok && idx.complete_) {
      idx.complete_ = false;
      idx.gap_ = "the open files of process " + std::string(e->d_name) + " cannot be read (not root?)";
    }
  }
  ::closedir(proc);
  return idx;
}

}  // namespace msit
