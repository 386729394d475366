// Temp-write, fsync, rename, fsync-dir: the only way summaries reach their final name.
#include "common/io/atomic_write.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <utility>
#include <vector>

#include "common/base/unique_fd.h"

namespace msit {

std::string parent_dir(const std::string& path) {
  auto pos = path.find_last_of('/');
  if (pos == std::string::npos) return ".";
  if (pos == 0) return "/";
  return path.substr(0, pos);
}

std::string base_name(const std::string& path) {
  auto pos = path.find_last_of('/');
  return pos == std::string::npos ? path : path.substr(pos + 1);
}

bool is_temp_name(std::string_view file_name) { return file_name.starts_with(kTempPrefix); }

Result<std::string> write_temp_synced(const std::string& final_path, std::string_view data) {
  std::string dir = parent_dir(final_path);
  std::string templ = dir + "/" + std::string(kTempPrefix) + base_name(final_path) + ".XXXXXX";
  // NAME_MAX is 255: keep the temp name short enough even for long op names.
  if (base_name(templ).size() > 255) templ = dir + "/" + std::string(kTempPrefix) + "XXXXXX";
  std::vector<char> buf(templ.begin(), templ.end());
  buf.push_back('\0');
  UniqueFd fd(::mkostemp(buf.data(), O_CLOEXEC));
  std::string temp(buf.data());
  if (!fd.valid()) return make_sys_error(final_path, Stage::kWrite, "cannot create temp file in " + dir, errno);
  ::fchmod(fd.get(), 0644);
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::write(fd.get(), data.data() + done, data.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::unlink(temp.c_str());
      return make_sys_error(final_path, Stage::kWrite, "writing temp file " + temp + " failed", err);
    }
    done += static_cast<size_t>(n);
  }
  if (::fsync(fd.get()) != 0) {
    int err = errno;
    ::unlink(temp.c_str());
    return make_sys_error(final_path, Stage::kFsync, "fsync of temp file failed", err);
  }
  if (::close(fd.release()) != 0) {
    int err = errno;
    ::unlink(temp.c_str());
    return make_sys_error(final_path, Stage::kWrite, "close of temp file failed", err);
  }
  return temp;
}

Result<TempFile> TempFile::create(const std::string& final_path, unsigned mode) {
  std::string dir = parent_dir(final_path);
  std::string templ = dir + "/" + std::string(kTempPrefix) + base_name(final_path) + ".XXXXXX";
  if (base_name(templ).size() > 255) templ = dir + "/" + std::string(kTempPrefix) + "XXXXXX";
  std::vector<char> buf(templ.begin(), templ.end());
  buf.push_back('\0');
  int fd = ::mkostemp(buf.data(), O_CLOEXEC);
  if (fd < 0) return make_sys_error(final_path, Stage::kWrite, "cannot create temp file in " + dir, errno);
  ::fchmod(fd, static_cast<mode_t>(mode & 07777));
  return TempFile(fd, std::string(buf.data()), final_path);
}

TempFile::TempFile(TempFile&& o) noexcept
    : fd_(std::exchange(o.fd_, -1)), path_(std::move(o.path_)), final_(std::move(o.final_)), written_(o.written_),
      writeback_(o.writeback_) {
  o.path_.clear();
}

TempFile::~TempFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!path_.empty()) ::unlink(path_.c_str());
}

Status TempFile::write(std::span<const std::byte> bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd_, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return make_sys_error(final_, Stage::kWrite, "writing temp file " + path_ + " failed", errno);
    }
    done += static_cast<size_t>(n);
  }
  written_ += bytes.size();
  // Large files (a 100,000-row report is 63 MB) start their writeback as they grow, so that
  // the fsync of sync_and_close() waits for the last few MB only: on 100,000 rows it had taken
  // 37 ms, a third of the report's phase. A failure here shows again in that fsync.
  constexpr uint64_t kWritebackStep = 8 << 20;
  if (written_ - writeback_ >= kWritebackStep) {
    (void)::sync_file_range(fd_, static_cast<off_t>(writeback_), static_cast<off_t>(written_ - writeback_),
                            SYNC_FILE_RANGE_WRITE);
    writeback_ = written_;
  }
  return ok_status();
}

Status TempFile::sync_and_close() {
  if (::fsync(fd_) != 0) return make_sys_error(final_, Stage::kFsync, "fsync of temp file " + path_ + " failed", errno);
  const int fd = std::exchange(fd_, -1);
  if (::close(fd) != 0) return make_sys_error(final_, Stage::kWrite, "close of temp file " + path_ + " failed", errno);
  return ok_status();
}

std::string TempFile::release() { return std::exchange(path_, std::string()); }

Status rename_into_place(const std::string& temp_path, const std::string& final_path) {
  if (::rename(temp_path.c_str(), final_path.c_str()) != 0) {
    int err = errno;
    ::unlink(temp_path.c_str());
    return make_sys_error(final_path, Stage::kRename, "rename from " + temp_path + " failed", err);
  }
  return ok_status();
}

Status fsync_dir(const std::string& dir) {
  UniqueFd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!fd.valid()) return make_sys_error(dir, Stage::kFsyncDir, "cannot open directory", errno);
  if (::fsync(fd.get()) != 0) return make_sys_error(dir, Stage::kFsyncDir, "fsync of directory failed", errno);
  return ok_status();
}

Status atomic_write_file(const std::string& final_path, std::string_view data) {
  MSIT_ASSIGN_OR_RETURN(std::string temp, write_temp_synced(final_path, data));
  MSIT_TRY(rename_into_place(temp, final_path));
  return fsync_dir(parent_dir(final_path));
}

}  // namespace msit
