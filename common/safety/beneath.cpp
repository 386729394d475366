// Symlink-free resolution below a root (openat2, or per-component O_NOFOLLOW on old kernels).
#include "common/safety/beneath.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <vector>

#include "common/io/noreplace.h"

namespace msit {

Result<UniqueFd> open_dir_beneath(int root_fd, std::string_view rel, const std::string& display) {
  return open_dir_below(root_fd, std::string(rel), display);
}

Result<UniqueFd> open_trusted_dir(const std::string& path) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!fd.valid()) return make_sys_error(path, Stage::kOpen, "cannot open directory", errno);
  return fd;
}

std::pair<std::string_view, std::string_view> split_parent(std::string_view rel) {
  size_t slash = rel.rfind('/');
  if (slash == std::string_view::npos) return {std::string_view(), rel};
  return {rel.substr(0, slash), rel.substr(slash + 1)};
}

Result<FileRef> file_ref_of_path(const std::string& path) {
  size_t slash = path.rfind('/');
  std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  if (name.empty() || name == "." || name == "..") return make_error(path, Stage::kOpen, "not a file name");
  MSIT_ASSIGN_OR_RETURN(UniqueFd fd, open_trusted_dir(dir));
  FileRef f;
  f.dir = DirRef{std::make_shared<const UniqueFd>(std::move(fd)), dir};
  f.name = std::move(name);
  f.path = path;
  return f;
}

namespace {

// Index of the innermost root enclosing `path`, or -1.
int enclosing_root(const std::vector<std::string>& roots, const std::string& path) {
  int best = -1;
  for (size_t i = 0; i < roots.size(); ++i) {
    const std::string& r = roots[i];
    bool inside = r == "/" ? path.size() > 1 && path.front() == '/'
                           : path.size() > r.size() + 1 && path.compare(0, r.size(), r) == 0 && path[r.size()] == '/';
    if (inside && (best < 0 || r.size() > roots[static_cast<size_t>(best)].size())) best = static_cast<int>(i);
  }
  return best;
}

std::string_view rel_below(const std::string& root, const std::string& path) {
  return std::string_view(path).substr(root == "/" ? 1 : root.size() + 1);
}

}  // namespace

Result<FileRef> file_ref_beneath(const std::vector<std::string>& roots, const std::string& path) {
  RootsResolver r(roots);
  return r.file(path);
}

Result<FileRef> RootsResolver::file(const std::string& path) {
  int idx = enclosing_root(roots_, path);
  if (idx < 0) return make_error(path, Stage::kOpen, "not below any watched root; never touched");
  const size_t i = static_cast<size_t>(idx);
  for (auto& [k, res] : open_) {
    if (k == i) return res.file(rel_below(roots_[i], path));
  }
  MSIT_ASSIGN_OR_RETURN(UniqueFd fd, open_trusted_dir(roots_[i]));
  open_.emplace_back(i, BeneathResolver(std::make_shared<const UniqueFd>(std::move(fd)), roots_[i]));
  return open_.back().second.file(rel_below(roots_[i], path));
}

Result<FileRef> BeneathResolver::file(std::string_view rel) {
  auto [dir, name] = split_parent(rel);
  if (name.empty() || name == "." || name == "..")
    return make_error(root_path_ + "/" + std::string(rel), Stage::kOpen, "not a file name");
  if (!last_dir_.fd || dir != last_rel_dir_) {
    std::string dir_path = dir.empty() ? root_path_ : root_path_ + "/" + std::string(dir);
    MSIT_ASSIGN_OR_RETURN(UniqueFd fd, open_dir_beneath(root_fd_->get(), dir, dir_path));
    last_dir_ = DirRef{std::make_shared<const UniqueFd>(std::move(fd)), std::move(dir_path)};
    last_rel_dir_ = std::string(dir);
  }
  FileRef f;
  f.dir = last_dir_;
  f.name = std::string(name);
  f.path = last_dir_.path + "/" + f.name;
  return f;
}

}  // namespace msit
