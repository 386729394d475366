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

std::string join(const DirRef& d, const std::string& name) { return d.path + "/" + name; }

}  // namespace

Status rename_noreplace(const DirRef& dir, const std::string& from, const std::string& to) {
  MSIT_ASSIGN_OR_RETURN(PublishResult r, publish_noreplace(dir.get(), from, to, join(dir, to)));
  if (r == PublishResult::kPublished) return ok_status();
  return make_error(join(dir, to), Stage::kConflict,
                    "a different file already exists under this name; it is kept, and so is " + join(dir, from));
}

Result<DirTemp> DirTemp::create(const DirRef& dir, std::string_view final_name, unsigned mode) {
  // The random tag goes last: a temp never ends like the summary or archive it will become.
  for (int attempt = 0; attempt < 16; ++attempt) {
    std::string name = std::string(kTempPrefix) + std::string(final_name) + "." + random_name_tag();
    if (name.size() > NAME_MAX) name = std::string(kTempPrefix) + random_name_tag();
    int fd = ::openat(dir.get(), name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                      static_cast<mode_t>(mode & 0777));
    if (fd >= 0) {
      ::fchmod(fd, static_cast<mode_t>(mode & 0777));  // umask would otherwise narrow it
      return DirTemp(dir, fd, std::move(name), std::string(final_name));
    }
    if (errno != EEXIST) {
      return make_sys_error(join(dir, std::string(final_name)), Stage::kWrite,
                            "cannot create a temp file in " + dir.path, errno);
    }
  }
  return make_error(join(dir, std::string(final_name)), Stage::kWrite, "cannot find a free temp file name");
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
  return write_all(fd_, bytes, final_path_ + " (temp " + temp_ + ")");
}

Status DirTemp::sync_and_close() {
  if (fd_ < 0) return ok_status();
  if (::fsync(fd_) != 0)
    return make_sys_error(final_path_, Stage::kFsync, "fsync of temp file " + temp_ + " failed", errno);
  if (::close(std::exchange(fd_, -1)) != 0)
    return make_sys_error(final_path_, Stage::kWrite, "close of temp file " + temp_ + " failed", errno);
  return ok_status();
}

Status DirTemp::publish() {
  MSIT_TRY(rename_noreplace(dir_, temp_, final_));
  temp_.clear();
  return ok_status();
}

Status remove_if_same(const FileRef& f, int read_fd, const FileIdentity& read_id) {
  struct stat st {};
  if (::fstat(read_fd, &st) != 0) return make_sys_error(f.path, Stage::kUnlink, "fstat of the read file failed", errno);
  FileIdentity now = identity_from_stat(st);
  if (!now.same_content_as(read_id) || now.ctime_ns != read_id.ctime_ns) {
    return make_error(f.path, Stage::kUnlink,
                      "raw file changed after it was summarised (size, mtime or ctime differ); kept");
  }
  test_pause(PausePoint::kBeforeClaim);
  std::string why;
  MSIT_ASSIGN_OR_RETURN(bool removed, unlink_if_same(f.dir.get(), f.name, read_id, f.path, &why));
  if (removed || why == kGoneAlready) return ok_status();
  if (why == kClaimNameTooLong) {
    const size_t claim_bytes = claim_name_for(f.name, std::string(kClaimTagChars, 'x')).size();
    return make_error(f.path, Stage::kUnlink,
                      "name too long to remove safely: its claim name (" + std::string(kClaimPrefix) + "TAG." +
                          "NAME) would be " + std::to_string(claim_bytes) +
                          " bytes, over the 255-byte limit of a file name (ENAMETOOLONG); the raw file is kept, its "
                          "summary is written");
  }
  return make_error(
      f.path, Stage::kUnlink,
      "the file under this name was replaced after it was summarised (" + why + "); the new file is kept");
}

Result<bool> restore_claim(const DirRef& dir, const std::string& claim_name) {
  std::string raw = raw_name_of_claim(claim_name);
  if (raw.empty()) return false;
  if (::renameat2(dir.get(), claim_name.c_str(), dir.get(), raw.c_str(), RENAME_NOREPLACE) == 0) return true;
  if (errno == EEXIST) return false;
  return make_sys_error(join(dir, claim_name), Stage::kRename, "cannot give a claimed raw file its name back", errno);
}

}  // namespace msit
