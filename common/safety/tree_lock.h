// One owner per tree: a running `watch` holds an exclusive flock on ROOT/.msit-compact.lock;
// `compact` and `restore` take the same lock, and refuse a tree (or the part of it) that a
// live process owns. flock dies with its holder, so a killed owner leaves no stale lock. The
// holder removes the file when done; a taker checks after locking that the name still names
// the inode it locked (else a holder removed it meanwhile, and it tries again).
#pragma once

#include <string>
#include <vector>

#include "common/base/result.h"
#include "common/base/unique_fd.h"
#include "common/io/derived_names.h"

namespace msit {

class TreeLock {
 public:
  TreeLock() = default;
  TreeLock(TreeLock&&) noexcept = default;
  TreeLock& operator=(TreeLock&& o) noexcept;
  // Removes the lock file while still holding it: a finished run leaves the tree as it was.
  ~TreeLock();
  // Takes the lock of `root` (a directory fd the caller opened); another process asking is
  // told the holder's pid, found in /proc/locks.
  static Result<TreeLock> acquire(int root_fd, const std::string& root_path);
  bool held() const { return fd_.valid(); }
  // The lock file no longer has a name (the tree, or the file, was removed).
  bool lost() const;

 private:
  TreeLock(UniqueFd fd, UniqueFd dir) : fd_(std::move(fd)), dir_(std::move(dir)) {}
  void release();
  UniqueFd fd_;
  UniqueFd dir_;
};

// The holder ("pid 123 (msit-compact)") of a live lock in directory `dir_fd`, or "" when there is
// none. Never creates anything.
std::string live_lock_holder(int dir_fd);

// Checks the ancestors of `abs_root` for a live lock of another process: a `watch` of /data
// owns /data/dump too. Returns the first ancestor owned, with its holder, or an empty path.
struct LockedAncestor {
  std::string dir;
  std::string holder;
};
LockedAncestor locked_ancestor(const std::string& abs_root);

}  // namespace msit
