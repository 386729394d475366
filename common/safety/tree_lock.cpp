// flock-based tree ownership that no other user can squat (the lock file is ours: never
// followed, never a dump); the rules are in docs/safety.md, "Owners and locks".
#include "common/safety/tree_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sys/sysmacros.h>

#include <cerrno>
#include <cstdio>
#include <fstream>
#include <functional>
#include <sstream>

#include "common/io/noreplace.h"
#include "common/io/tree_walk.h"

namespace msit {
namespace {

constexpr int kMaxDepth = 64;  // deeper trees are not dump trees; bounds the fds a walk holds

std::string lock_path(const std::string& dir) { return (dir == "/" ? "" : dir) + "/" + std::string(kLockName); }

// One flock on the lock file's inode, from /proc/locks (blocked waiters, "->", are skipped).
struct FlockHolder {
  std::string pid;
  bool exclusive = false;
};
std::vector<FlockHolder> flock_holders(const struct stat& st) {
  char key[64];
  std::snprintf(key, sizeof key, "%02x:%02x:%llu", major(st.st_dev), minor(st.st_dev),
                static_cast<unsigned long long>(st.st_ino));
  std::vector<FlockHolder> out;
  std::ifstream locks("/proc/locks");
  std::string line;
  while (std::getline(locks, line)) {
    std::istringstream in(line);
    std::string id, kind, mode, rw, pid, dev;
    if (!(in >> id >> kind >> mode >> rw >> pid >> dev) || kind != "FLOCK" || dev != key) continue;
    out.push_back({pid, rw == "WRITE"});
  }
  return out;
}

std::string first_line(const std::string& path) {
  std::ifstream f(path);
  std::string s;
  std::getline(f, s);
  return s;
}

// The effective uid of process `pid` (its "Uid:" line), or -1.
long long effective_uid_of(const std::string& pid) {
  std::ifstream f("/proc/" + pid + "/status");
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind("Uid:", 0) != 0) continue;
    std::istringstream in(line.substr(4));
    long long real = -1, effective = -1;
    in >> real >> effective;
    return effective;
  }
  return -1;
}

// An msit-compact process: its name says so, or it runs this very binary (tests fork).
bool is_msit_compact(const std::string& pid) {
  if (first_line("/proc/" + pid + "/comm") == "msit-compact") return true;
  struct stat mine {
  }, theirs{};
  return ::stat("/proc/self/exe", &mine) == 0 && ::stat(("/proc/" + pid + "/exe").c_str(), &theirs) == 0 &&
         mine.st_dev == theirs.st_dev && mine.st_ino == theirs.st_ino;
}

// Whether anyone holds a flock on the file, tried ourselves where we may open it (a taker
// racing us keeps it; /proc/locks can miss a holder where st_dev is not the lock's device).
enum class Held : uint8_t { kNo, kYes, kUnknown };
Held try_flock(int dir_fd) {
  UniqueFd fd(::openat(dir_fd, std::string(kLockName).c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK));
  if (!fd.valid()) return Held::kUnknown;
  if (::flock(fd.get(), LOCK_SH | LOCK_NB) == 0) return Held::kNo;
  return errno == EWOULDBLOCK ? Held::kYes : Held::kUnknown;
}

// Moves the name to a private one only if it still names the file `expected`; back otherwise.
Result<std::string> move_aside_if_same(int dir_fd, const struct stat& expected, const std::string& shown) {
  const std::string aside = std::string(kLockName) + ".ignored." + random_name_tag();
  auto moved = publish_noreplace(dir_fd, std::string(kLockName), aside, shown);
  if (!moved.ok()) return moved.take_error();
  if (*moved != PublishResult::kPublished)
    return make_error(shown, Stage::kLock, "cannot move it aside: " + aside + " exists");
  struct stat now {};
  if (::fstatat(dir_fd, aside.c_str(), &now, AT_SYMLINK_NOFOLLOW) == 0 && now.st_dev == expected.st_dev &&
      now.st_ino == expected.st_ino)
    return aside;
  (void)publish_noreplace(dir_fd, aside, std::string(kLockName), shown);
  return make_error(shown, Stage::kLock, "the lock file changed while it was checked");
}

}  // namespace

LockCheck check_lock(int dir_fd, const std::string& dir_path) {
  LockCheck c;
  struct stat st {
  }, dir{};
  if (::fstatat(dir_fd, std::string(kLockName).c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return c;
  c.present = true;
  c.file_uid = st.st_uid;
  const std::string shown = lock_path(dir_path);
  auto ignored = [&](const std::string& why) {
    c.state = LockCheck::State::kIgnored;
    c.why = shown + ": " + why;
    return c;
  };
  if (!S_ISREG(st.st_mode)) return ignored("not a regular file; ignored, it does not make an owner");
  if (st.st_nlink != 1) return ignored("has more than one link; ignored, it does not make an owner");
  std::vector<FlockHolder> holders = flock_holders(st);
  if (holders.empty()) {
    // /proc/locks names no holder: nobody, unless our own try says otherwise.
    if (try_flock(dir_fd) != Held::kYes) return c;
    c.state = LockCheck::State::kLive;  // held, by a holder we cannot identify: keep clear of it
    c.holder = "another process (not identified in /proc/locks)";
    return c;
  }
  const uid_t dir_uid = ::fstat(dir_fd, &dir) == 0 ? dir.st_uid : 0;
  const bool owner_may = st.st_uid == 0 || st.st_uid == dir_uid || st.st_uid == ::geteuid();
  for (const auto& h : holders) {
    if (!h.exclusive) continue;
    const long long euid = effective_uid_of(h.pid);
    if (!is_msit_compact(h.pid) || euid != static_cast<long long>(st.st_uid) || !owner_may) continue;
    c.state = LockCheck::State::kLive;
    std::string name = first_line("/proc/" + h.pid + "/comm");
    c.holder = "pid " + h.pid + " (" + (name.empty() ? "msit-compact" : name) + ", uid " + std::to_string(euid) + ")";
    return c;
  }
  const FlockHolder& h = holders.front();
  std::string name = first_line("/proc/" + h.pid + "/comm");
  std::string who = "pid " + h.pid + (name.empty() ? "" : " (" + name + ")");
  if (!owner_may) {
    return ignored("belongs to uid " + std::to_string(st.st_uid) +
                   ", who owns neither this directory nor this run; ignored (held by " + who + ")");
  }
  return ignored("held by " + who + ", which is not an msit-compact of the file's owner (uid " +
                 std::to_string(st.st_uid) + "); ignored");
}

Result<TreeLock> TreeLock::acquire(int root_fd, const std::string& root_path, std::vector<std::string>* warnings) {
  const std::string path = lock_path(root_path);
  auto warn = [&](std::string w) {
    if (warnings != nullptr) warnings->push_back(std::move(w));
  };
  for (int attempt = 0; attempt < 8; ++attempt) {
    LockCheck c = check_lock(root_fd, root_path);
    if (c.state == LockCheck::State::kLive) {
      return make_error(
          root_path, Stage::kLock,
          "the tree is owned by " + c.holder + " (a running msit-compact); stop it first, or pass --force");
    }
    if (c.present) {
      struct stat st {};
      if (::fstatat(root_fd, std::string(kLockName).c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
      if (c.state == LockCheck::State::kIgnored) warn(c.why);
      if (S_ISREG(st.st_mode) && st.st_uid == ::geteuid() && st.st_nlink == 1) {
        // Ours and nobody's owner: a killed run's lock (perhaps held open by another user).
        std::string kept;
        auto gone = unlink_if_same(root_fd, std::string(kLockName), identity_from_stat(st), path, &kept);
        if (!gone.ok()) return gone.take_error();
        continue;
      }
      auto aside = move_aside_if_same(root_fd, st, path);
      if (!aside.ok()) {
        return make_error(path, Stage::kLock,
                          "another user's file (uid " + std::to_string(st.st_uid) +
                              ") holds the lock name and cannot be moved aside (" + aside.error().message +
                              "); ask its owner or root to remove it");
      }
      warn(path + ": moved aside to " + *aside + " (not a live msit-compact owner's lock)");
      continue;
    }
    // Created 0600 under a temp name and locked before it has the lock name: nobody else can
    // open it, and no one sees it unlocked while its creator lives.
    MSIT_ASSIGN_OR_RETURN(TempAt temp, create_temp_at(root_fd, std::string(kLockName), path));
    if (::flock(temp.fd.get(), LOCK_EX | LOCK_NB) != 0)
      return make_sys_error(path, Stage::kLock, "cannot lock the new lock file", errno);
    auto published = publish_noreplace(root_fd, temp.name.path(), std::string(kLockName), path);
    if (!published.ok()) return published.take_error();
    if (*published != PublishResult::kPublished) continue;  // another taker was faster: look again
    temp.name.release();
    UniqueFd dir(::fcntl(root_fd, F_DUPFD_CLOEXEC, 0));
    return TreeLock(std::move(temp.fd), std::move(dir));
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
  struct stat mine {
  }, named{};
  // Only our own file goes: the name may have been taken over after ours was removed.
  if (dir_.valid() && ::fstat(fd_.get(), &mine) == 0 &&
      ::fstatat(dir_.get(), std::string(kLockName).c_str(), &named, AT_SYMLINK_NOFOLLOW) == 0 &&
      named.st_dev == mine.st_dev && named.st_ino == mine.st_ino)
    ::unlinkat(dir_.get(), std::string(kLockName).c_str(), 0);
  fd_.reset();
  dir_.reset();
}

LockedAncestor locked_ancestor(const std::string& abs_root) {
  LockedAncestor out;
  std::string dir = abs_root;
  while (dir.size() > 1) {
    size_t slash = dir.rfind('/');
    dir = slash == 0 ? "/" : dir.substr(0, slash);
    UniqueFd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!fd.valid()) continue;
    LockCheck c = check_lock(fd.get(), dir);
    if (c.state == LockCheck::State::kIgnored) out.ignored.push_back(c.why);
    if (c.state != LockCheck::State::kLive) continue;
    out.dir = dir;
    out.holder = c.holder;
    return out;
  }
  return out;
}

namespace {

void find_owned(int dir_fd, const std::string& rel, const std::string& shown, int depth, std::vector<OwnedSubtree>& out,
                std::vector<std::string>* ignored) {
  std::vector<std::string> subdirs;
  bool has_lock = false;
  (void)list_dir_fd(dir_fd, shown, [&](std::string_view name, EntryType type) {
    if (name == kLockName) has_lock = true;
    else if (type == EntryType::kDirectory) subdirs.emplace_back(name);
  });
  if (has_lock && depth > 0) {
    LockCheck c = check_lock(dir_fd, shown);
    if (c.state == LockCheck::State::kIgnored && ignored != nullptr) ignored->push_back(c.why);
    if (c.state == LockCheck::State::kLive) {
      out.push_back({rel, c.holder});
      return;  // all of it is that owner's
    }
  }
  if (depth >= kMaxDepth) return;
  for (const auto& name : subdirs) {
    UniqueFd sub(::openat(dir_fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!sub.valid()) continue;
    find_owned(sub.get(), rel.empty() ? name : rel + "/" + name, shown + "/" + name, depth + 1, out, ignored);
  }
}

}  // namespace

std::vector<OwnedSubtree> owned_subtrees(int root_fd, const std::string& root_path, std::vector<std::string>* ignored) {
  std::vector<OwnedSubtree> out;
  find_owned(root_fd, "", root_path, 0, out, ignored);
  return out;
}

}  // namespace msit
