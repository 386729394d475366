// Lists directories and walks directory trees without ever following symbolic links.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "common/base/result.h"

namespace msit {

enum class EntryType : uint8_t { kFile, kDirectory, kSymlink, kOther };

struct WalkEntry {
  std::string path;  // root-relative paths are joined onto the root given
  std::string name;  // last component
  EntryType type = EntryType::kOther;
};

// Calls fn for each entry of a directory (not . and ..), typed without following it: readdir's
// d_type, or fstatat(AT_SYMLINK_NOFOLLOW) on filesystems that leave d_type unknown (an entry
// gone meanwhile is skipped). Entries come in readdir order. dir_fd stays open and unmoved for
// the caller; shown_path names it in the error.
using DirEntryFn = std::function<void(std::string_view name, EntryType type)>;
Status list_dir_fd(int dir_fd, const std::string& shown_path, const DirEntryFn& fn);
// The same for a path (opened like opendir(3): a symlink naming the directory itself is followed).
Status list_dir_path(const std::string& path, const DirEntryFn& fn);

// Calls visit for every entry below root (root itself excluded), depth-first, names sorted
// within a directory. Symlinks are reported as kSymlink and never descended into.
// Unreadable directories are reported through `errors` and skipped.
void walk_tree(const std::string& root, const std::function<void(const WalkEntry&)>& visit, std::vector<Error>& errors);
// The same below an open directory (a pinned root): every directory is opened from its parent's
// fd with O_NOFOLLOW, so nothing is re-resolved by path; `root` only names the entries.
void walk_tree_fd(int root_fd, const std::string& root, const std::function<void(const WalkEntry&)>& visit,
                  std::vector<Error>& errors);

}  // namespace msit
