// Path helpers, fsync of a directory, and atomic_write_file() over write_output_file().
#include "common/io/atomic_write.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "common/base/unique_fd.h"
#include "common/io/output_file.h"

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

Status fsync_dir(const std::string& dir) {
  UniqueFd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!fd.valid()) return make_sys_error(dir, Stage::kFsyncDir, "cannot open directory", errno);
  if (::fsync(fd.get()) != 0) return make_sys_error(dir, Stage::kFsyncDir, "fsync of directory failed", errno);
  return ok_status();
}

Status atomic_write_file(const std::string& final_path, std::string_view data) {
  return write_output_file(final_path, data, OnExisting::kReplaceOwnFile);
}

}  // namespace msit
