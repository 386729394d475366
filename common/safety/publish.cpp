// No-replace publication and claim-then-unlink removal, all relative to directory fds.
#include "common/safety/publish.h"

#include <fcntl.h>
#include <linux/limits.h>
#include <stdio.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <utility>

#include "common/base/test_hooks.h"
#include "common/io/atomic_write.h"

namespace msit {
namespace {

constexpr size_t kRandChars = 6;

std::string random_tag() {
  static constexpr char kAlphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789";
  unsigned char bytes[kRandChars] = {};
  if (::getrandom(bytes, sizeof bytes, GRND_NONBLOCK) != static_cast<ssize_t>(sizeof bytes)) {
    static std::atomic<unsigned> counter{0};
    unsigned v = static_cast<unsigned>(::getpid()) * 2654435761u + counter.fetch_add(1) * 40503u;
    for (auto& b : bytes) { b = static_cast<unsigned char>(v); v = v * 1103515245u + 12345u; }
  }
  std::string s;
  for (unsigned char b : bytes) s.push_back(kAlphabet[b % (sizeof kAlphabet - 1)]);
  return s;
}

std::string join(const DirRef& d, const std::string& name) { return d.path + "/" + name; }

}  // namespace

bool is_claim_name(std::string_view name) { return name.starts_with(kClaimPrefix); }

std::string raw_name_of_claim(std::string_view n) {
  if (!is_claim_name(n)) return {};
  n.remove_prefix(kClaimPrefix.size());
  if (n.size() <= kRandChars + 1 || n[kRandChars] != '.') return {};
  return std::string(n.substr(kRandChars + 1));
}

Status rename_noreplace(const DirRef& dir, const std::string& from, const std::string& to) {
  if (::renameat2(dir.get(), from.c_str(), dir.get(), to.c_str(), RENAME_NOREPLACE) == 0) return ok_status();
  int err = errno;
  if (err == EINVAL || err == ENOSYS) {
    // No RENAME_NOREPLACE here (some network filesystems): a hard link never replaces either.
    if (::linkat(dir.get(), from.c_str(), dir.get(), to.c_str(), 0) == 0) {
      ::unlinkat(dir.get(), from.c_str(), 0);
      return ok_status();
    }
    err = errno;
  }
  if (err == EEXIST) {
    return make_error(join(dir, to), "rename",
                      "a different file already exists under this name; it is kept, and so is " + join(dir, from));
  }
  return make_sys_error(join(dir, to), "rename", "rename from " + from + " failed", err);
}

Result<DirTemp> DirTemp::create(const DirRef& dir, std::string_view final_name, unsigned mode) {
  // The random tag goes last: a temp never ends like the summary or archive it will become.
  for (int attempt = 0; attempt < 16; ++attempt) {
    std::string name = std::string(kTempPrefix) + std::string(final_name) + "." + random_tag();
    if (name.size() > NAME_MAX) name = std::string(kTempPrefix) + random_tag();
    int fd = ::openat(dir.get(), name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                      static_cast<mode_t>(mode & 0777));
    if (fd >= 0) {
      ::fchmod(fd, static_cast<mode_t>(mode & 0777));  // umask would otherwise narrow it
      return DirTemp(dir, fd, std::move(name), std::string(final_name));
    }
    if (errno != EEXIST) {
      return make_sys_error(join(dir, std::string(final_name)), "write", "cannot create a temp file in " + dir.path, errno);
    }
  }
  return make_error(join(dir, std::string(final_name)), "write", "cannot find a free temp file name");
}

DirTemp::DirTemp(DirRef dir, int fd, std::string temp, std::string final_name)
    : dir_(std::move(dir)), fd_(fd), temp_(std::move(temp)), final_(std::move(final_name)),
      final_path_(join(dir_, final_)) {}

DirTemp::DirTemp(DirTemp&& o) noexcept
    : dir_(std::move(o.dir_)), fd_(std::exchange(o.fd_, -1)), temp_(std::exchange(o.temp_, {})),
      final_(std::move(o.final_)), final_path_(std::move(o.final_path_)) {}

DirTemp& DirTemp::operator=(DirTemp&& o) noexcept {
  if (this != &o) {
    discard();
    dir_ = std::move(o.dir_);
    fd_ = std::exchange(o.fd_, -1);
    temp_ = std::exchange(o.temp_, {});
    final_ = std::move(o.final_);
    final_path_ = std::move(o.final_path_);
  }
  return *this;
}

DirTemp::~DirTemp() { discard(); }

void DirTemp::discard() {
  if (fd_ >= 0) ::close(std::exchange(fd_, -1));
  if (!temp_.empty()) ::unlinkat(dir_.get(), std::exchange(temp_, {}).c_str(), 0);
}

Status DirTemp::write(std::span<const std::byte> bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd_, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return make_sys_error(final_path_, "write", "writing temp file " + temp_ + " failed", errno);
    }
    done += static_cast<size_t>(n);
  }
  return ok_status();
}

Status DirTemp::sync_and_close() {
  if (fd_ < 0) return ok_status();
  if (::fsync(fd_) != 0) return make_sys_error(final_path_, "fsync", "fsync of temp file " + temp_ + " failed", errno);
  if (::close(std::exchange(fd_, -1)) != 0)
    return make_sys_error(final_path_, "write", "close of temp file " + temp_ + " failed", errno);
  return ok_status();
}

Status DirTemp::publish() {
  MSIT_TRY(rename_noreplace(dir_, temp_, final_));
  temp_.clear();
  return ok_status();
}

Status remove_if_same(const FileRef& f, int read_fd, const FileIdentity& read_id) {
  struct stat st {};
  if (::fstat(read_fd, &st) != 0) return make_sys_error(f.path, "unlink", "fstat of the read file failed", errno);
  FileIdentity now = identity_from_stat(st);
  if (!now.same_content_as(read_id) || now.ctime_ns != read_id.ctime_ns) {
    return make_error(f.path, "unlink", "raw file changed after it was summarised (size, mtime or ctime differ); kept");
  }
  std::string claim = std::string(kClaimPrefix) + random_tag() + "." + f.name;
  if (claim.size() > NAME_MAX) {
    return make_error(f.path, "unlink", "name too long to be claimed safely before removal; raw file kept");
  }
  test_pause(PausePoint::kBeforeClaim);
  if (::renameat2(f.dir.get(), f.name.c_str(), f.dir.get(), claim.c_str(), RENAME_NOREPLACE) != 0) {
    const int err = errno;
    if (err == ENOENT) return ok_status();  // already gone: nothing of ours to remove
    return make_sys_error(f.path, "unlink", "cannot move the raw file to its private name before removal; kept", err);
  }
  struct stat cst {};
  bool same = ::fstatat(f.dir.get(), claim.c_str(), &cst, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(cst.st_mode) &&
              identity_from_stat(cst).same_content_as(read_id);
  if (!same) {
    if (::renameat2(f.dir.get(), claim.c_str(), f.dir.get(), f.name.c_str(), RENAME_NOREPLACE) != 0) {
      return make_error(f.path, "unlink",
                        "the file under this name was replaced after it was summarised; the new file is kept as " +
                            join(f.dir, claim) + " because the name was taken again");
    }
    return make_error(f.path, "unlink", "the file under this name was replaced after it was summarised; the new file is kept");
  }
  if (::unlinkat(f.dir.get(), claim.c_str(), 0) != 0) {
    const int err = errno;
    ::renameat2(f.dir.get(), claim.c_str(), f.dir.get(), f.name.c_str(), RENAME_NOREPLACE);
    return make_sys_error(f.path, "unlink", "cannot remove raw file after summarising", err);
  }
  return ok_status();
}

Result<bool> restore_claim(const DirRef& dir, const std::string& claim_name) {
  std::string raw = raw_name_of_claim(claim_name);
  if (raw.empty()) return false;
  if (::renameat2(dir.get(), claim_name.c_str(), dir.get(), raw.c_str(), RENAME_NOREPLACE) == 0) return true;
  if (errno == EEXIST) return false;
  return make_sys_error(join(dir, claim_name), "rename", "cannot give a claimed raw file its name back", errno);
}

}  // namespace msit
