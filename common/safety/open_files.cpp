// /proc scan: fd links (stat through the magic link gives dev/ino) and file mappings.
#include "common/safety/open_files.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "common/base/test_hooks.h"
#include "common/base/unique_fd.h"
#include "common/safety/proc_text.h"

namespace msit {
namespace {

// Returns false when the process's fds could not be read (permission; *err gets the errno),
// true otherwise (a process that exited meanwhile has nothing open).
bool scan_fds(int pid_fd, std::set<std::pair<dev_t, ino_t>>& out, int* err) {
  int fd_dir = ::openat(pid_fd, "fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd_dir < 0) {
    *err = errno;
    return errno == ENOENT || errno == ESRCH;
  }
  DIR* d = ::fdopendir(fd_dir);
  if (d == nullptr) {
    ::close(fd_dir);
    return false;
  }
  while (dirent* e = ::readdir(d)) {
    if (e->d_name[0] == '.') continue;
    struct stat st {};
    if (::fstatat(::dirfd(d), e->d_name, &st, 0) == 0) {
      if (S_ISREG(st.st_mode)) out.insert({st.st_dev, st.st_ino});
    } else if (errno == EACCES || errno == EPERM) {
      // The fd directory can be listed (mode bits) while its links cannot be followed (the
      // ptrace check): nothing of this process was seen.
      *err = errno;
      ::closedir(d);
      return false;
    }
  }
  ::closedir(d);
  return true;
}

// maps lines: "addr perms offset MAJ:MIN inode path"; inode 0 = anonymous.
bool scan_maps(int pid_fd, std::set<std::pair<dev_t, ino_t>>& out, int* err) {
  int fd = ::openat(pid_fd, "maps", O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    *err = errno;
    return errno == ENOENT || errno == ESRCH;
  }
  FILE* f = ::fdopen(fd, "r");
  if (f == nullptr) {
    ::close(fd);
    return false;
  }
  // Whole lines, however long: a fixed buffer would cut a long file name and read its tail,
  // which the file's creator chose, as a line of its own.
  char* line = nullptr;
  size_t cap = 0;
  bool readable = true;
  while (::getline(&line, &cap, f) != -1) {
    if (auto key = maps_file(line)) out.insert(*key);
  }
  if (std::ferror(f)) {
    readable = false;
    *err = errno;
  }
  std::free(line);
  std::fclose(f);
  return readable;
}

// A "CapPrm:"/"CapEff:" mask from a /proc status file (0 when unreadable).
uint64_t cap_mask(int dir_fd, const char* status, const char* field) {
  UniqueFd fd(::openat(dir_fd, status, O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return 0;
  char buf[4096];
  const ssize_t n = ::read(fd.get(), buf, sizeof buf - 1);
  if (n <= 0) return 0;
  buf[n] = '\0';
  const char* p = std::strstr(buf, field);
  return p == nullptr ? 0 : std::strtoull(p + std::strlen(field), nullptr, 16);
}

// The owner of a /proc/PID entry, for the message.
std::string owner_of(int proc_fd, const char* pid) {
  struct stat st {};
  if (::fstatat(proc_fd, pid, &st, 0) != 0) return "?";
  return std::to_string(st.st_uid);
}

}  // namespace

bool has_effective_capability(int cap) {
  __user_cap_header_struct head{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = {};
  if (::syscall(SYS_capget, &head, data) != 0) return false;
  return (data[cap / 32].effective & (1u << (cap % 32))) != 0;
}

std::string proc_hidepid(const std::string& mountinfo) {
  FILE* f = std::fopen(mountinfo.c_str(), "re");
  if (f == nullptr) return {};
  std::string found;
  char line[4096];
  while (std::fgets(line, sizeof line, f) != nullptr) {
    // "... /proc rw,nosuid - proc proc rw,hidepid=2": the fields after " - " are fstype, source, options.
    const char* sep = std::strstr(line, " - proc ");
    if (sep == nullptr) continue;
    const char* hp = std::strstr(sep, "hidepid=");
    if (hp == nullptr) continue;
    std::string v(hp + 8, std::strcspn(hp + 8, ", \n"));
    if (v != "0" && v != "off") found = v;
  }
  std::fclose(f);
  return found;
}

std::string unreadable_process_reason(const std::string& pid, const std::string& uid, int err, bool is_root,
                                      bool has_ptrace_cap, uint64_t caps_it_has_we_lack) {
  const std::string who = "the open files of process " + pid + " (uid " + uid + ") cannot be read";
  if (!is_root) return who + ": not running as root";
  if (err != EACCES && err != EPERM) return who + " (" + std::strerror(err) + ")";
  if (!has_ptrace_cap) {
    return who +
           ": this root lacks CAP_SYS_PTRACE, which reading another user's /proc/PID/fd needs (container "
           "runtimes drop it by default: docker run --cap-add SYS_PTRACE, or CapabilityBoundingSet in the unit)";
  }
  if (caps_it_has_we_lack != 0) {
    int first = 0;
    while ((caps_it_has_we_lack >> first & 1) == 0) ++first;
    return who + ": it holds capabilities this process lacks (capability " + std::to_string(first) +
           (first == CAP_SYS_RESOURCE ? ", CAP_SYS_RESOURCE" : "") +
           ", dropped from this process's bounding set, as in a container or sandbox) and the kernel refuses";
  }
  return who +
         " although this process has CAP_SYS_PTRACE: a security module (AppArmor, SELinux) denies it, or the "
         "process belongs to another user namespace";
}

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
  const bool is_root = ::geteuid() == 0;
  const bool ptrace_cap = has_effective_capability(CAP_SYS_PTRACE);
  if (idx.complete_ && !ptrace_cap) {
    // hidepid hides the processes that fail the ptrace check: they are not even listed, and the
    // scan below would look complete.
    const std::string hp = proc_hidepid(proc_root + "/self/mountinfo");
    if (!hp.empty()) {
      idx.complete_ = false;
      idx.gap_ = proc_root + " is mounted with hidepid=" + hp +
                 " and this process lacks CAP_SYS_PTRACE: other users' processes are hidden from it";
    }
  }
  const pid_t self = ::getpid();
  while (dirent* e = ::readdir(proc)) {
    const pid_t pid = pid_of(e->d_name);
    if (pid < 0 || pid == self) continue;
    UniqueFd pid_fd(::openat(::dirfd(proc), e->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!pid_fd.valid()) continue;  // exited
    int err = 0;
    bool ok = scan_fds(pid_fd.get(), idx.open_, &err);
    ok = scan_maps(pid_fd.get(), idx.open_, &err) && ok;
    if (!ok && idx.complete_) {
      idx.complete_ = false;
      const uint64_t theirs = cap_mask(pid_fd.get(), "status", "CapPrm:");
      const uint64_t ours = cap_mask(::dirfd(proc), "self/status", "CapEff:");
      idx.gap_ = unreadable_process_reason(e->d_name, owner_of(::dirfd(proc), e->d_name), err, is_root, ptrace_cap,
                                           theirs & ~ours);
    }
  }
  ::closedir(proc);
  return idx;
}

}  // namespace msit
