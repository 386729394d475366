// Sorted, symlink-safe recursive directory walk (readdir + lstat where d_type is unknown).
#include "common/io/tree_walk.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>

namespace msit {
namespace {

EntryType type_of(const std::string& path, unsigned char d_type) {
  switch (d_type) {
    case DT_REG: return EntryType::kFile;
    case DT_DIR: return EntryType::kDirectory;
    case DT_LNK: return EntryType::kSymlink;
    case DT_UNKNOWN: break;
    default: return EntryType::kOther;
  }
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return EntryType::kOther;
  if (S_ISREG(st.st_mode)) return EntryType::kFile;
  if (S_ISDIR(st.st_mode)) return EntryType::kDirectory;
  if (S_ISLNK(st.st_mode)) return EntryType::kSymlink;
  return EntryType::kOther;
}

void walk_dir(const std::string& dir, const std::function<void(const WalkEntry&)>& visit,
              std::vector<Error>& errors) {
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) {
    errors.push_back(make_sys_error(dir, "scan", "cannot open directory", errno));
    return;
  }
  std::vector<WalkEntry> entries;
  while (dirent* e = ::readdir(d)) {
    std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    WalkEntry w;
    w.path = dir == "/" ? "/" + name : dir + "/" + name;
    w.name = std::move(name);
    w.type = type_of(w.path, e->d_type);
    entries.push_back(std::move(w));
  }
  ::closedir(d);
  std::sort(entries.begin(), entries.end(), [](const WalkEntry& a, const WalkEntry& b) { return a.name < b.name; });
  for (const auto& w : entries) {
    visit(w);
    if (w.type == EntryType::kDirectory) walk_dir(w.path, visit, errors);
  }
}

}  // namespace

void walk_tree(const std::string& root, const std::function<void(const WalkEntry&)>& visit,
               std::vector<Error>& errors) {
  std::string r = root;
  while (r.size() > 1 && r.back() == '/') r.pop_back();
  walk_dir(r, visit, errors);
}

}  // namespace msit
