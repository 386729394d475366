// Directory listing (readdir + fstatat where d_type is unknown) and the sorted, symlink-safe
// recursive walk over it.
#include "common/io/tree_walk.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "common/base/unique_fd.h"

namespace msit {
namespace {

EntryType type_of_d_type(unsigned char d_type) {
  switch (d_type) {
    case DT_REG: return EntryType::kFile;
    case DT_DIR: return EntryType::kDirectory;
    case DT_LNK: return EntryType::kSymlink;
    default: return EntryType::kOther;
  }
}

EntryType type_of_mode(mode_t mode) {
  if (S_ISREG(mode)) return EntryType::kFile;
  if (S_ISDIR(mode)) return EntryType::kDirectory;
  if (S_ISLNK(mode)) return EntryType::kSymlink;
  return EntryType::kOther;
}

void walk_dir(const std::string& dir, const std::function<void(const WalkEntry&)>& visit, std::vector<Error>& errors) {
  std::vector<WalkEntry> entries;
  Status listed = list_dir_path(dir, [&](std::string_view name, EntryType type) {
    WalkEntry w;
    w.path = dir == "/" ? "/" + std::string(name) : dir + "/" + std::string(name);
    w.name = std::string(name);
    w.type = type;
    entries.push_back(std::move(w));
  });
  if (!listed.ok()) {
    errors.push_back(make_sys_error(dir, Stage::kScan, "cannot open directory", listed.error().sys_errno));
    return;
  }
  std::sort(entries.begin(), entries.end(), [](const WalkEntry& a, const WalkEntry& b) { return a.name < b.name; });
  for (const auto& w : entries) {
    visit(w);
    if (w.type == EntryType::kDirectory) walk_dir(w.path, visit, errors);
  }
}

void walk_dir_fd(int dir_fd, const std::string& dir, const std::function<void(const WalkEntry&)>& visit,
                 std::vector<Error>& errors) {
  std::vector<WalkEntry> entries;
  Status listed = list_dir_fd(dir_fd, dir, [&](std::string_view name, EntryType type) {
    WalkEntry w;
    w.path = dir == "/" ? "/" + std::string(name) : dir + "/" + std::string(name);
    w.name = std::string(name);
    w.type = type;
    entries.push_back(std::move(w));
  });
  if (!listed.ok()) {
    errors.push_back(listed.error());
    return;
  }
  std::sort(entries.begin(), entries.end(), [](const WalkEntry& a, const WalkEntry& b) { return a.name < b.name; });
  for (const auto& w : entries) {
    visit(w);
    if (w.type != EntryType::kDirectory) continue;
    UniqueFd sub(::openat(dir_fd, w.name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!sub.valid()) {
      // Swapped for a symlink (ELOOP/ENOTDIR) or removed since it was listed: not entered.
      if (errno != ENOENT) errors.push_back(make_sys_error(w.path, Stage::kScan, "cannot open directory", errno));
      continue;
    }
    walk_dir_fd(sub.get(), w.path, visit, errors);
  }
}

}  // namespace

Status list_dir_fd(int dir_fd, const std::string& shown_path, const DirEntryFn& fn) {
  // A duplicate for readdir: closedir closes it, the caller's fd stays open.
  int fd = ::fcntl(dir_fd, F_DUPFD_CLOEXEC, 0);
  DIR* d = fd < 0 ? nullptr : ::fdopendir(fd);
  if (d == nullptr) {
    int err = errno;
    if (fd >= 0) ::close(fd);
    return make_sys_error(shown_path, Stage::kList, "cannot list the directory", err);
  }
  ::rewinddir(d);  // the duplicate shares the caller's offset
  while (const dirent* e = ::readdir(d)) {
    std::string_view name = e->d_name;
    if (name == "." || name == "..") continue;
    EntryType type = type_of_d_type(e->d_type);
    if (e->d_type == DT_UNKNOWN) {
      struct stat st {};
      if (::fstatat(dir_fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;  // gone meanwhile
      type = type_of_mode(st.st_mode);
    }
    fn(name, type);
  }
  ::closedir(d);
  return ok_status();
}

Status list_dir_path(const std::string& path, const DirEntryFn& fn) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!fd.valid()) return make_sys_error(path, Stage::kList, "cannot list the directory", errno);
  return list_dir_fd(fd.get(), path, fn);
}

bool DirNames::has_dir(std::string_view n) const { return std::binary_search(dirs.begin(), dirs.end(), n); }
bool DirNames::has_file(std::string_view n) const { return std::binary_search(files.begin(), files.end(), n); }

Result<DirNames> list_sorted_fd(int dir_fd, const std::string& shown_path, const ListOptions& o) {
  DirNames l;
  size_t seen = 0;
  MSIT_TRY(list_dir_fd(dir_fd, shown_path, [&](std::string_view name, EntryType t) {
    if (++seen > o.max_entries || (!o.hidden && !name.empty() && name.front() == '.')) return;
    if (t == EntryType::kDirectory) l.dirs.emplace_back(name);
    else if (t == EntryType::kFile) l.files.emplace_back(name);
    else ++l.others;
  }));
  if (seen > o.max_entries)
    return make_error(shown_path, Stage::kList,
                      "more than " + std::to_string(o.max_entries) + " entries: not listed (too many to hold)");
  std::sort(l.dirs.begin(), l.dirs.end());
  std::sort(l.files.begin(), l.files.end());
  return l;
}

Result<DirNames> list_sorted(const std::string& path, const ListOptions& o) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!fd.valid()) return make_sys_error(path, Stage::kList, "cannot list the directory", errno);
  return list_sorted_fd(fd.get(), path, o);
}

void walk_tree(const std::string& root, const std::function<void(const WalkEntry&)>& visit,
               std::vector<Error>& errors) {
  std::string r = root;
  while (r.size() > 1 && r.back() == '/') r.pop_back();
  walk_dir(r, visit, errors);
}

}  // namespace msit

namespace msit {

void walk_tree_fd(int root_fd, const std::string& root, const std::function<void(const WalkEntry&)>& visit,
                  std::vector<Error>& errors) {
  std::string r = root;
  while (r.size() > 1 && r.back() == '/') r.pop_back();
  walk_dir_fd(root_fd, r, visit, errors);
}

}  // namespace msit
