// One owner per tree: a running `watch` holds an exclusive flock on ROOT/.msit-compact.lock;
// `compact` and `restore` take the same lock, and refuse a tree (or the part of it) that a
// live owner holds, above or below. A lock counts only when no other user can fake or squat
// it (docs/safety.md, "Owners and locks"): the file is created 0600 under a temp name, locked,
// and only then published under the lock name (no replace), so a file under that name is
// locked from birth by its creator; it is honoured only while an msit-compact process of the
// file's owner holds it, and only when that owner is root, the directory's owner or this
// user. Any other file under the lock name (planted, left by a killed run, held open by
// another user) is ignored with a warning, and a taker moves it out of the way.
#pragma once

#include <sys/types.h>

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
  // told the holder's pid. A file under the lock name that is not a live owner's is removed
  // (ours: a killed run's) or moved aside (another user's), and said in `warnings`.
  static Result<TreeLock> acquire(int root_fd, const std::string& root_path,
                                  std::vector<std::string>* warnings = nullptr);
  bool held() const { return fd_.valid(); }
  // The lock file no longer has a name (the tree, or the file, was removed).
  bool lost() const;

 private:
  TreeLock(UniqueFd fd, UniqueFd dir) : fd_(std::move(fd)), dir_(std::move(dir)) {}
  void release();
  UniqueFd fd_;
  UniqueFd dir_;
};

// What the lock name in one directory holds.
struct LockCheck {
  enum class State : uint8_t {
    kNone,     // no file, or a file nobody holds (a killed run's): no owner
    kLive,     // a live msit-compact owner: `holder` ("pid 123 (msit-compact, uid 0)")
    kIgnored,  // a file that is held or placed by someone who cannot own the tree: `why`
  };
  State state = State::kNone;
  std::string holder;
  std::string why;
  bool present = false;  // a directory entry exists under the lock name
  uid_t file_uid = 0;
};
// Never creates, opens for writing or changes anything. `dir_path` only names it in texts.
LockCheck check_lock(int dir_fd, const std::string& dir_path);

// Checks the ancestors of `abs_root` for a live lock of another process: a `watch` of /data
// owns /data/dump too. Returns the first ancestor owned, with its holder, or an empty path;
// `ignored` lists lock files on the way that do not count (planted, squatted), one line each.
struct LockedAncestor {
  std::string dir;
  std::string holder;
  std::vector<std::string> ignored;
};
LockedAncestor locked_ancestor(const std::string& abs_root);

// The live owners of subtrees strictly below `root_fd` (directories holding an honoured lock),
// found by walking the tree's directories without following links; `ignored` as above.
struct OwnedSubtree {
  std::string rel;  // relative to the root
  std::string holder;
};
std::vector<OwnedSubtree> owned_subtrees(int root_fd, const std::string& root_path,
                                         std::vector<std::string>* ignored = nullptr);

}  // namespace msit
