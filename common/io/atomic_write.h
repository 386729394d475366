// Durable publication of small files: temp file, fsync, rename, fsync of the directory.
// Split into steps so callers can amortise directory fsyncs over a batch.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "common/base/result.h"
#include "common/io/derived_names.h"

namespace msit {

// Writes data to a fresh temp file next to final_path and fsyncs it. Returns the temp path.
Result<std::string> write_temp_synced(const std::string& final_path, std::string_view data);
// rename(temp, final). The rename is durable only after fsync_dir(dir of final).
Status rename_into_place(const std::string& temp_path, const std::string& final_path);
Status fsync_dir(const std::string& dir);
// A temp file written in pieces (archives, restored files): created next to final_path,
// unlinked by the destructor unless release()d after a successful sync_and_close().
class TempFile {
 public:
  static Result<TempFile> create(const std::string& final_path, unsigned mode = 0644);
  TempFile(TempFile&& o) noexcept;
  TempFile& operator=(TempFile&&) = delete;
  ~TempFile();
  Status write(std::span<const std::byte> bytes);
  // fsync + close; the temp file then holds durable content (not yet under its final name).
  Status sync_and_close();
  int fd() const { return fd_; }
  const std::string& path() const { return path_; }
  // Hands the file over (typically to rename_into_place); the destructor keeps it.
  std::string release();

 private:
  TempFile(int fd, std::string path, std::string final_path)
      : fd_(fd), path_(std::move(path)), final_(std::move(final_path)) {}
  int fd_ = -1;
  std::string path_;
  std::string final_;
  uint64_t written_ = 0;    // bytes written so far
  uint64_t writeback_ = 0;  // bytes whose writeback has been started
};

// All three steps for one file.
Status atomic_write_file(const std::string& final_path, std::string_view data);

bool is_temp_name(std::string_view file_name);
std::string parent_dir(const std::string& path);
std::string base_name(const std::string& path);

}  // namespace msit
