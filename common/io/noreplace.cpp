// publish_noreplace, owned temps, openat2-beneath and proven unlinks (see noreplace.h).
#include "common/io/noreplace.h"

#include <linux/openat2.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <utility>

#include "common/io/derived_names.h"
#include "common/io/path_name.h"

namespace msit {
namespace {

std::string random_suffix_impl() {
  unsigned char r[kClaimTagChars] = {};  // claim names rely on this length
  if (::getrandom(r, sizeof r, 0) != static_cast<ssize_t>(sizeof r)) {
    // Never fails for 6 bytes once the pool is initialised; mix in the pid and address anyway.
    const auto v = static_cast<unsigned long>(::getpid()) ^ reinterpret_cast<uintptr_t>(&r);
    for (size_t i = 0; i < sizeof r; ++i) r[i] = static_cast<unsigned char>(v >> (8 * i));
  }
  static const char kAlphabet[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  std::string s;
  for (unsigned char c : r) s.push_back(kAlphabet[c % 62]);
  return s;
}

std::string temp_name_for(const std::string& final_name, const char* kind) {
  std::string name = std::string(kTempPrefix) + kind + base_name(final_name) + "." + random_suffix_impl();
  // NAME_MAX is 255: keep the temp name short enough even for long op names.
  if (name.size() > 255) name = std::string(kTempPrefix) + kind + random_suffix_impl();
  return name;
}

Result<UniqueFd> open_dir_per_component(int root_fd, const std::string& rel, const std::string& shown_as) {
  UniqueFd cur(::fcntl(root_fd, F_DUPFD_CLOEXEC, 0));
  if (!cur.valid()) return make_sys_error(shown_as, Stage::kOpen, "cannot duplicate the root directory fd", errno);
  size_t pos = 0;
  while (pos <= rel.size()) {
    const size_t slash = rel.find('/', pos);
    const std::string part = rel.substr(pos, slash == std::string::npos ? std::string::npos : slash - pos);
    pos = slash == std::string::npos ? rel.size() + 1 : slash + 1;
    if (part.empty() || part == ".") continue;
    if (part == "..") return make_error(shown_as, Stage::kOpen, "path leaves the root (\"..\"); refused");
    UniqueFd next(::openat(cur.get(), part.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!next.valid()) {
      const int err = errno;
      if (err == ELOOP || err == ENOTDIR) {
        return make_error(shown_as, Stage::kOpen,
                          "component \"" + part + "\" is a symbolic link or not a directory; not followed");
      }
      return make_sys_error(shown_as, Stage::kOpen, "cannot open directory component \"" + part + "\"", err);
    }
    cur = std::move(next);
  }
  return cur;
}

}  // namespace

std::string random_name_tag() { return random_suffix_impl(); }

Result<PublishResult> publish_noreplace(int dir_fd, const std::string& temp_name, const std::string& final_name,
                                        const std::string& shown_as) {
  const std::string& shown = shown_as.empty() ? final_name : shown_as;
  if (::renameat2(dir_fd, temp_name.c_str(), dir_fd, final_name.c_str(), RENAME_NOREPLACE) == 0) {
    return PublishResult::kPublished;
  }
  int err = errno;
  if (err == EEXIST) return PublishResult::kTargetExists;
  if (err != EINVAL && err != ENOSYS) {
    return make_sys_error(shown, Stage::kRename, "cannot publish temp file " + temp_name, err);
  }
  // The filesystem refuses RENAME_NOREPLACE: a hard link never replaces either.
  if (::linkat(dir_fd, temp_name.c_str(), dir_fd, final_name.c_str(), 0) != 0) {
    err = errno;
    if (err == EEXIST) return PublishResult::kTargetExists;
    return make_sys_error(shown, Stage::kRename,
                          "filesystem supports neither RENAME_NOREPLACE nor hard links; not published", err);
  }
  // Published; a failure here leaves a second name of the same file, which the caller's owner
  // of the temp name removes.
  (void)::unlinkat(dir_fd, temp_name.c_str(), 0);
  return PublishResult::kPublished;
}

OwnedTempPath::OwnedTempPath(OwnedTempPath&& o) noexcept
    : dir_(std::move(o.dir_)), path_(std::exchange(o.path_, std::string())) {}

OwnedTempPath& OwnedTempPath::operator=(OwnedTempPath&& o) noexcept {
  if (this != &o) {
    remove();
    dir_ = std::move(o.dir_);
    path_ = std::exchange(o.path_, std::string());
  }
  return *this;
}

void OwnedTempPath::remove() {
  if (path_.empty()) return;
  (void)::unlinkat(dir_fd(), path_.c_str(), 0);
  path_.clear();
}

std::string OwnedTempPath::release() { return std::exchange(path_, std::string()); }

Result<TempAt> create_temp_at(int dir_fd, const std::string& final_name, const std::string& shown_as) {
  for (int attempt = 0; attempt < 16; ++attempt) {
    std::string name = temp_name_for(final_name, "");
    UniqueFd fd(::openat(dir_fd, name.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
    if (!fd.valid()) {
      if (errno == EEXIST) continue;
      return make_sys_error(shown_as, Stage::kWrite, "cannot create a temp file in its directory", errno);
    }
    UniqueFd dir_copy(::fcntl(dir_fd, F_DUPFD_CLOEXEC, 0));
    if (!dir_copy.valid()) {
      const int err = errno;
      (void)::unlinkat(dir_fd, name.c_str(), 0);
      return make_sys_error(shown_as, Stage::kWrite, "cannot duplicate the directory fd", err);
    }
    return TempAt{std::move(fd), OwnedTempPath(std::move(dir_copy), std::move(name))};
  }
  return make_error(shown_as, Stage::kWrite, "cannot find a free temp file name");
}

Status write_all(int fd, std::span<const std::byte> bytes, const std::string& shown_as) {
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return make_sys_error(shown_as, Stage::kWrite, "writing the temp file failed", errno);
    }
    done += static_cast<size_t>(n);
  }
  return ok_status();
}

Result<UniqueFd> open_dir_below(int root_fd, const std::string& rel, const std::string& shown_as) {
  if (rel.empty() || rel == ".") {
    UniqueFd fd(::fcntl(root_fd, F_DUPFD_CLOEXEC, 0));
    if (!fd.valid()) return make_sys_error(shown_as, Stage::kOpen, "cannot duplicate the root directory fd", errno);
    return fd;
  }
#ifdef SYS_openat2
  struct open_how how {};
  how.flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC;
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
  const long fd = ::syscall(SYS_openat2, root_fd, rel.c_str(), &how, sizeof how);
  if (fd >= 0) return UniqueFd(static_cast<int>(fd));
  const int err = errno;
  if (err == ELOOP)
    return make_error(shown_as, Stage::kOpen, "a directory on the way is a symbolic link; not followed");
  if (err == EXDEV) return make_error(shown_as, Stage::kOpen, "path leaves the root; refused");
  if (err != ENOSYS && err != EPERM) return make_sys_error(shown_as, Stage::kOpen, "cannot open directory", err);
    // ENOSYS: kernel before 5.6; EPERM: a seccomp filter that forbids openat2.
#endif
  return open_dir_per_component(root_fd, rel, shown_as);
}

Result<UniqueFd> open_regular_at(int dir_fd, const std::string& name, const std::string& shown_as) {
  UniqueFd fd(::openat(dir_fd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
  if (!fd.valid()) {
    const int err = errno;
    if (err == ELOOP) return make_error(shown_as, Stage::kOpen, "is a symbolic link; links are never followed");
    return make_sys_error(shown_as, Stage::kOpen, "cannot open for reading", err);
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return make_sys_error(shown_as, Stage::kOpen, "fstat failed", errno);
  if (!S_ISREG(st.st_mode)) return make_error(shown_as, Stage::kOpen, "not a regular file");
  ::fcntl(fd.get(), F_SETFL, 0);
  return fd;
}

Result<bool> unlink_if_same(int dir_fd, const std::string& name, const FileIdentity& expected,
                            const std::string& shown_as, std::string* kept_reason) {
  auto keep = [&](std::string why) -> Result<bool> {
    if (kept_reason != nullptr) *kept_reason = std::move(why);
    return false;
  };
  const std::string claim = claim_name_for(name, random_suffix_impl(), static_cast<uint32_t>(::geteuid()));
  if (claim.size() > 255) return keep(std::string(kClaimNameTooLong));
  if (::renameat2(dir_fd, name.c_str(), dir_fd, claim.c_str(), RENAME_NOREPLACE) != 0) {
    const int err = errno;
    if (err == ENOENT) return keep(std::string(kGoneAlready));
    // Without RENAME_NOREPLACE a fresh random name is as good: nothing is there to replace.
    if ((err != EINVAL && err != ENOSYS) || ::renameat(dir_fd, name.c_str(), dir_fd, claim.c_str()) != 0) {
      return make_sys_error(shown_as, Stage::kUnlink, "cannot move the file aside to remove it", errno);
    }
  }
  struct stat st {};
  if (::fstatat(dir_fd, claim.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 &&
      identity_from_stat(st).same_content_as(expected)) {
    if (::unlinkat(dir_fd, claim.c_str(), 0) != 0) {
      return make_sys_error(shown_as, Stage::kUnlink, "cannot remove " + claim, errno);
    }
    return true;
  }
  // Not the file we checked: put it back where it was, never over anything.
  auto back = publish_noreplace(dir_fd, claim, name, shown_as);
  if (!back.ok() || *back != PublishResult::kPublished) {
    return make_error(shown_as, Stage::kUnlink,
                      "file changed before removal and could not be moved back; it is at " + claim);
  }
  return keep("it changed after it was checked");
}

}  // namespace msit
