// Walks a directory tree without ever following symbolic links.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "common/base/result.h"

namespace msit {

enum class EntryType : uint8_t { kFile, kDirectory, kSymlink, kOther };

struct WalkEntry {
  std::string path;       // root-relative paths are joined onto the root given
  std::string name;       // last component
  EntryType type = EntryType::kOther;
};

// Calls visit for every entry below root (root itself excluded), depth-first, names sorted
// within a directory. Symlinks are reported as kSymlink and never descended into.
// Unreadable directories are reported through `errors` and skipped.
void walk_tree(const std::string& root, const std::function<void(const WalkEntry&)>& visit,
               std::vector<Error>& errors);

}  // namespace msit
