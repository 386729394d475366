// fsync of a directory, and atomic_write_file() over write_output_file().
#include "common/io/atomic_write.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "common/base/unique_fd.h"
#include "common/io/output_file.h"

namespace msit {

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
