// Lists directories and walks directory trees without ever following symbolic links.
#pragma once

#include <cstddef>
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

// One directory's names by kind, each list sorted (byte order): what the resolver and msProbe's
// layout and pairing look at (is there a dump.json, which step{N} / rank{R} folders). One
// listing, no link followed (a symbolic link is an `other`, never a directory or a file).
struct DirNames {
  std::vector<std::string> dirs, files;
  size_t others = 0;                       // symbolic links, FIFOs, sockets, devices
  bool has_dir(std::string_view n) const;  // binary search: the lists are sorted
  bool has_file(std::string_view n) const;
};
struct ListOptions {
  bool hidden = true;  // false: names with a leading '.' are left out
  // Bound: a directory with more entries is refused (Stage::kList, "more than N entries") rather
  // than held in memory whole; the folders these listings look at hold a dump's top levels, and a
  // token folder of the largest dumps holds ~10^5 files.
  size_t max_entries = size_t{1} << 21;
};
// Lists an open directory (dir_fd stays open and unmoved; shown_path names it in errors).
Result<DirNames> list_sorted_fd(int dir_fd, const std::string& shown_path, const ListOptions& o = {});
// The same for a path (opened like opendir(3), as list_dir_path()).
Result<DirNames> list_sorted(const std::string& path, const ListOptions& o = {});

// Calls visit for every entry below root (root itself excluded), depth-first, names sorted
// within a directory. Symlinks are reported as kSymlink and never descended into.
// Unreadable directories are reported through `errors` and skipped.
void walk_tree(const std::string& root, const std::function<void(const WalkEntry&)>& visit, std::vector<Error>& errors);
// The same below an open directory (a pinned root): every directory is opened from its parent's
// fd with O_NOFOLLOW, so nothing is re-resolved by path; `root` only names the entries.
void walk_tree_fd(int root_fd, const std::string& root, const std::function<void(const WalkEntry&)>& visit,
                  std::vector<Error>& errors);

}  // namespace msit
