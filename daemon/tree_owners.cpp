#include "daemon/tree_owners.h"

#include <fcntl.h>

#include <algorithm>

#include "common/base/unique_fd.h"

namespace msit::daemon {

std::vector<std::string> TreeOwners::add_root(int root_fd, const std::string& root) {
  std::vector<std::string> lines;
  std::vector<OwnedSubtree> found = owned_subtrees(root_fd, root, &lines);
  std::lock_guard lock(mu_);
  for (const auto& o : found) {
    const std::string dir = root == "/" ? "/" + o.rel : root + "/" + o.rel;
    owned_.push_back({root, dir, o.holder});
    lines.push_back("skipped " + dir + ": owned by " + o.holder +
                    " (a running msit-compact); its files, temps and claims are left to it");
  }
  return lines;
}

void TreeOwners::drop_root(const std::string& root) {
  std::lock_guard lock(mu_);
  std::erase_if(owned_, [&](const Owned& o) { return o.root == root; });
}

std::vector<std::string> TreeOwners::refresh() {
  std::lock_guard lock(mu_);
  std::vector<std::string> lines;
  std::erase_if(owned_, [&](const Owned& o) {
    UniqueFd fd(::open(o.dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (fd.valid() && check_lock(fd.get(), o.dir).state == LockCheck::State::kLive) return false;
    lines.push_back(o.dir + ": its owner (" + o.holder + ") is gone; watched by this watch from now on");
    return true;
  });
  return lines;
}

std::string TreeOwners::owner_of(const std::string& path) const {
  std::lock_guard lock(mu_);
  for (const auto& o : owned_) {
    if (path.size() > o.dir.size() && path.compare(0, o.dir.size(), o.dir) == 0 && path[o.dir.size()] == '/')
      return o.holder;
  }
  return {};
}

}  // namespace msit::daemon
