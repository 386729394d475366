// Moving bad files aside inside their tree (see quarantine.h).
#include "common/safety/quarantine.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

namespace msit {
namespace {

// Opens (creating where missing) directory `rel` below root_fd, one component at a time,
// never following a symlink.
Result<UniqueFd> make_dirs_beneath(int root_fd, std::string_view rel, const std::string& shown) {
  UniqueFd cur(::fcntl(root_fd, F_DUPFD_CLOEXEC, 0));
  if (!cur.valid()) return make_sys_error(shown, Stage::kQuarantine, "cannot duplicate the root directory fd", errno);
  while (!rel.empty()) {
    const size_t slash = rel.find('/');
    const std::string part(rel.substr(0, slash));
    rel = slash == std::string_view::npos ? std::string_view() : rel.substr(slash + 1);
    if (part.empty() || part == ".") continue;
    if (part == "..") return make_error(shown, Stage::kQuarantine, "path leaves the tree (\"..\"); refused");
    if (::mkdirat(cur.get(), part.c_str(), 0755) != 0 && errno != EEXIST)
      return make_sys_error(shown, Stage::kQuarantine, "cannot create directory \"" + part + "\"", errno);
    UniqueFd next(::openat(cur.get(), part.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!next.valid()) {
      return make_sys_error(shown, Stage::kQuarantine,
                            "cannot open directory \"" + part + "\" (a symlink is never followed)", errno);
    }
    cur = std::move(next);
  }
  return cur;
}

Status move_noreplace(int from_dir, int to_dir, const std::string& name, const std::string& shown) {
  if (::renameat2(from_dir, name.c_str(), to_dir, name.c_str(), RENAME_NOREPLACE) == 0) return ok_status();
  int err = errno;
  if (err == EINVAL || err == ENOSYS) {  // no RENAME_NOREPLACE here: a hard link never replaces either
    if (::linkat(from_dir, name.c_str(), to_dir, name.c_str(), 0) != 0) {
      err = errno;
    } else if (::unlinkat(from_dir, name.c_str(), 0) != 0) {
      return make_sys_error(shown, Stage::kQuarantine,
                            "linked into the quarantine but the old name could not be removed", errno);
    } else {
      return ok_status();
    }
  }
  if (err == EEXIST)
    return make_error(shown, Stage::kQuarantine, "a file of that name is in the quarantine already; left in place");
  return make_sys_error(shown, Stage::kQuarantine, "cannot move it aside; left in place", err);
}

}  // namespace

Status check_quarantine_dir(std::string_view rel) {
  if (rel.empty()) return make_error(std::string(rel), Stage::kQuarantine, "empty directory name");
  if (rel.front() == '/')
    return make_error(std::string(rel), Stage::kQuarantine, "must be relative to the tree (inside it)");
  std::string_view rest = rel;
  while (!rest.empty()) {
    const size_t slash = rest.find('/');
    if (rest.substr(0, slash) == "..")
      return make_error(std::string(rel), Stage::kQuarantine, "must not leave the tree (\"..\")");
    rest = slash == std::string_view::npos ? std::string_view() : rest.substr(slash + 1);
  }
  return ok_status();
}

Result<std::string> quarantine_file(const DirRef& root, const std::string& rel, const std::string& qdir) {
  const std::string shown = root.path + "/" + rel;
  MSIT_TRY(check_quarantine_dir(qdir));
  auto [parent, name] = split_parent(rel);
  MSIT_ASSIGN_OR_RETURN(UniqueFd from, open_dir_beneath(root.get(), parent, shown));
  struct stat st {};
  if (::fstatat(from.get(), std::string(name).c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
    return make_sys_error(shown, Stage::kQuarantine, "cannot look at it", errno);
  if (!S_ISREG(st.st_mode)) return make_error(shown, Stage::kQuarantine, "not a regular file; left in place");
  const std::string to_rel = parent.empty() ? qdir : qdir + "/" + std::string(parent);
  MSIT_ASSIGN_OR_RETURN(UniqueFd to, make_dirs_beneath(root.get(), to_rel, shown));
  MSIT_TRY(move_noreplace(from.get(), to.get(), std::string(name), shown));
  // The move is durable once both directories are: a crash must not leave two names or none.
  if (::fsync(to.get()) != 0 || ::fsync(from.get()) != 0)
    return make_sys_error(shown, Stage::kQuarantine, "moved aside, but the directories could not be synced", errno);
  return root.path + "/" + to_rel + "/" + std::string(name);
}

}  // namespace msit
