// Subtrees of the watched roots that another live msit-compact owned when this watch took its
// roots (a compact or watch of one rank started first): the watch leaves their files, temps
// and claims alone, says so, and takes them over once their owner is gone (docs/safety.md).
#pragma once

#include <mutex>
#include <string>
#include <vector>

#include "common/safety/tree_lock.h"

namespace msit::daemon {

class TreeOwners {
 public:
  // Records the live owners below `root` (opened as `root_fd`); returns one log line per
  // subtree skipped and per lock file ignored.
  std::vector<std::string> add_root(int root_fd, const std::string& root);
  // Forgets the subtrees of `root` (its lock was released).
  void drop_root(const std::string& root);
  // Re-checks every recorded owner; returns one line per subtree whose owner is gone.
  std::vector<std::string> refresh();
  // The holder of the subtree that `path` lies in, or "" when it is the watch's own.
  std::string owner_of(const std::string& path) const;

 private:
  struct Owned {
    std::string root;
    std::string dir;  // absolute
    std::string holder;
  };
  mutable std::mutex mu_;
  std::vector<Owned> owned_;
};

}  // namespace msit::daemon
