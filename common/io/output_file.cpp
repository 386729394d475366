// Output files: directory fd, O_EXCL|O_NOFOLLOW temp, no-replace publication.
#include "common/io/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

namespace msit {
namespace {

// ("a/b", "c") of "a/b/c" after trailing slashes are dropped; ("", "c") for a bare name.
std::pair<std::string, std::string> split_last(std::string path) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return {"", path};
  return {slash == 0 ? "/" : path.substr(0, slash), path.substr(slash + 1)};
}

// Why an existing final name is not ours to replace; empty when it is.
std::string not_ours(int dir_fd, const std::string& name) {
  struct stat st {};
  if (::fstatat(dir_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return "it cannot be examined";
  if (S_ISLNK(st.st_mode)) return "it is a symbolic link, never followed";
  if (!S_ISREG(st.st_mode)) return "it is not a regular file";
  if (st.st_uid != ::geteuid()) return "it belongs to uid " + std::to_string(st.st_uid);
  if (st.st_nlink != 1) return "it has " + std::to_string(st.st_nlink) + " hard links";
  return {};
}

}  // namespace

Result<UniqueFd> open_output_dir(const std::string& dir) {
  const std::string d = dir.empty() ? "." : dir;
  UniqueFd fd(::open(d.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (fd.valid()) return fd;
  if (errno != ENOENT) return make_sys_error(d, Stage::kOpen, "cannot open the output directory", errno);
  auto [parent, name] = split_last(d);
  if (name.empty() || name == "." || name == "..")
    return make_sys_error(d, Stage::kOpen, "cannot open the output directory", ENOENT);
  MSIT_ASSIGN_OR_RETURN(UniqueFd up, open_output_dir(parent.empty() ? "." : parent));
  if (::mkdirat(up.get(), name.c_str(), 0755) != 0 && errno != EEXIST)
    return make_sys_error(d, Stage::kWrite, "cannot create the output directory", errno);
  UniqueFd made(::openat(up.get(), name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (made.valid()) return made;
  if (errno == ELOOP || errno == ENOTDIR)
    return make_error(d, Stage::kOpen,
                      "a symbolic link or file appeared under the name while it was created; not "
                      "followed, nothing written");
  return make_sys_error(d, Stage::kOpen, "cannot open the output directory", errno);
}

Result<OutputFile> OutputFile::create(const std::string& path, OnExisting on_existing, unsigned mode) {
  auto [dir, name] = split_last(path);
  if (name.empty() || name == "." || name == "..") return make_error(path, Stage::kWrite, "not a file name");
  MSIT_ASSIGN_OR_RETURN(UniqueFd dir_fd, open_output_dir(dir.empty() ? "." : dir));
  MSIT_ASSIGN_OR_RETURN(TempAt temp, create_temp_at(dir_fd.get(), name, path));
  ::fchmod(temp.fd.get(), static_cast<mode_t>(mode & 0777));  // created 0600: umask cannot widen it
  return OutputFile(std::move(dir_fd), std::move(temp), path, name, on_existing);
}

Status OutputFile::write(std::span<const std::byte> bytes) {
  MSIT_TRY(write_all(temp_.fd.get(), bytes, path_ + " (temp " + temp_.name.path() + ")"));
  written_ += bytes.size();
  // Large reports (a 100,000-row CSV is 63 MB) start their writeback as they grow, so that the
  // fsync of commit() waits for the last few MB only. A failure here shows again in that fsync.
  constexpr uint64_t kWritebackStep = 8 << 20;
  if (written_ - writeback_ >= kWritebackStep) {
    (void)::sync_file_range(temp_.fd.get(), static_cast<off_t>(writeback_), static_cast<off_t>(written_ - writeback_),
                            SYNC_FILE_RANGE_WRITE);
    writeback_ = written_;
  }
  return ok_status();
}

std::string OutputFile::fd_path() const { return "/proc/self/fd/" + std::to_string(temp_.fd.get()); }

Status OutputFile::commit() {
  if (::fsync(temp_.fd.get()) != 0) return make_sys_error(path_, Stage::kFsync, "fsync of the temp file failed", errno);
  if (::close(temp_.fd.release()) != 0)
    return make_sys_error(path_, Stage::kWrite, "close of the temp file failed", errno);
  MSIT_TRY(publish());
  if (::fsync(dir_.get()) != 0) return make_sys_error(path_, Stage::kFsyncDir, "fsync of its directory failed", errno);
  return ok_status();
}

Status OutputFile::publish() {
  const std::string& temp = temp_.name.path();
  MSIT_ASSIGN_OR_RETURN(PublishResult r, publish_noreplace(dir_.get(), temp, name_, path_));
  if (r == PublishResult::kPublished) {
    temp_.name.release();
    return ok_status();
  }
  std::string why = on_ == OnExisting::kKeep ? "existing files are never replaced" : not_ours(dir_.get(), name_);
  if (why.empty()) {
    // Our own previous file: rename replaces the name, it never opens or truncates the old file.
    if (::renameat(dir_.get(), temp.c_str(), dir_.get(), name_.c_str()) != 0)
      return make_sys_error(path_, Stage::kRename, "cannot replace the previous file", errno);
    temp_.name.release();
    return ok_status();
  }
  return make_error(path_, Stage::kConflict,
                    "already exists and is not a previous output of ours (" + why +
                        "); it is kept and nothing was written: remove it or choose another name");
}

Status write_output_file(const std::string& path, std::string_view data, OnExisting on_existing) {
  MSIT_ASSIGN_OR_RETURN(OutputFile f, OutputFile::create(path, on_existing));
  MSIT_TRY(f.write(data));
  return f.commit();
}

}  // namespace msit
