// Pinned roots: opened once without following symlinks, identified by (device, inode).
#include "common/safety/pinned_root.h"

#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>

#include "common/io/noreplace.h"

namespace msit {
namespace {

// realpath() of the longest existing prefix, the missing rest appended as given: a root that
// does not exist yet is still resolved through the symlinks its parents have at start.
std::string resolve_at_start(const std::string& path) {
  std::error_code ec;
  std::filesystem::path p = std::filesystem::absolute(path, ec).lexically_normal();
  if (ec) return path;
  std::filesystem::path rest;
  for (std::filesystem::path cur = p; !cur.empty(); cur = cur.parent_path()) {
    char buf[PATH_MAX];
    if (::realpath(cur.c_str(), buf) != nullptr) {
      std::filesystem::path out = std::filesystem::path(buf) / rest;
      std::string s = out.lexically_normal().string();
      while (s.size() > 1 && s.back() == '/') s.pop_back();
      return s;
    }
    rest = rest.empty() ? cur.filename() : cur.filename() / rest;
    if (cur == cur.parent_path()) break;
  }
  return p.string();
}

}  // namespace

PinnedRoot::PinnedRoot(std::string configured_path)
    : path_(std::move(configured_path)), resolved_(resolve_at_start(path_)) {}

Result<UniqueFd> PinnedRoot::open_no_symlinks() const {
  UniqueFd slash(::open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!slash.valid()) return make_sys_error("/", Stage::kOpen, "cannot open the file system root", errno);
  const std::string rel = resolved_ == "/" ? std::string() : resolved_.substr(1);
  return open_dir_below(slash.get(), rel, path_);
}

Result<PinnedRoot::Attach> PinnedRoot::attach() {
  MSIT_ASSIGN_OR_RETURN(UniqueFd fd, open_no_symlinks());
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return make_sys_error(path_, Stage::kStat, "fstat of the root failed", errno);
  Attach kind = !ever_                                     ? Attach::kFirst
                : (st.st_dev == dev_ && st.st_ino == ino_) ? Attach::kSameAgain
                                                           : Attach::kNewDirectory;
  ever_ = true;
  dev_ = st.st_dev;
  ino_ = st.st_ino;
  handle_ = std::make_shared<const RootHandle>(path_, std::make_shared<const UniqueFd>(std::move(fd)), dev_, ino_);
  return kind;
}

bool PinnedRoot::in_place() const {
  if (!handle_) return false;
  auto fd = open_no_symlinks();
  if (!fd.ok()) return false;
  struct stat st {};
  return ::fstat(fd->get(), &st) == 0 && st.st_dev == dev_ && st.st_ino == ino_;
}

void PinnedRoot::drop() {
  if (handle_) handle_->mark_dropped();
  handle_.reset();
}

}  // namespace msit
