// A dump directory as compare's index sees it: the entries on disk merged with the raw files
// its summary stores still record there, one source (raw, summary, stored, _min_max, stats CSV)
// per raw file, and the sorted pre-order walk msit's os.walk makes.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "common/compare/dump_index.h"
#include "common/store/store_catalog.h"

namespace msit {

struct DirEntry {
  std::string disk_name;  // an entry read from the directory itself
  bool is_dir = false;
  bool is_file = false;
  // A raw file known only from the summary store covering the directory (raw data removed):
  // its name stays in the catalog's listing of the directory, not copied into each entry.
  const store::StoredName* stored = nullptr;
  const std::string* store_db = nullptr;
  std::string_view name() const { return stored != nullptr ? std::string_view(stored->name) : disk_name; }
};

// A directory's entries, sorted by name, and what holds the names of its stored entries.
struct DirListing {
  std::vector<DirEntry> entries;
  store::StoredList stored;
  auto begin() const { return entries.begin(); }
  auto end() const { return entries.end(); }
};

// Which regular files a listing keeps (all when empty). Trees hold 100,000s of dump files and
// most walks look for a handful of names: skipped names cost no allocation and no sorting.
using FileFilter = std::function<bool(std::string_view name)>;

// What a listing reads: the directory and the names its stores record there, or the directory
// alone (graph text files, sub-directories: a store records dump files only). Either way the
// sub-directories the stores record files below are listed (docs/store.md "A store alone").
enum class Stored : uint8_t { kWith, kWithout };

// Sorted listing; symlinks are neither dirs nor files here, so they are never followed.
DirListing list_dir(const std::string& dir, const FileFilter& keep_file = {}, Stored stored = Stored::kWith);

// Pre-order walk in sorted order (os.walk top-down with sorted names); visit returns false to
// stop. visit may move the listing of a directory without sub-directories (nothing follows them).
using VisitDir = std::function<bool(const std::string& dir, DirListing& listing)>;
void walk(const std::string& dir, int depth, const VisitDir& visit, bool* stop, const FileFilter& keep_file = {},
          const SkipDir& skip = {}, Stored stored = Stored::kWith);

// One source per raw file: a raw file beats its summary, which beats a _min_max file. Sorted
// by raw_path.
std::vector<SourceFile> sources_in(const std::string& dir, const DirListing& listing);

// dir + "/" + name (no doubled slash; just name when dir is empty).
std::string child_path(const std::string& dir, std::string_view name);

}  // namespace msit
