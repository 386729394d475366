// Reads many small files (summaries) at once. Opening, reading and closing 200,000 files one
// system call at a time costs ~9 us per file on a virtualised host; with io_uring, each file's
// open, read and close are linked in one ring and a whole batch costs one system call.
// Where io_uring is unavailable (old kernel, seccomp, io_uring_disabled) or a file does not fit
// the ring's buffer, that file is read with read_small_file_into: same result, same errors.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/base/result.h"
#include "common/base/unique_fd.h"

namespace msit {

class SmallFileBatch {
 public:
  // Up to max_files per read() through the ring (any more, and every file of more than
  // slot_bytes - padding - 1 bytes, take the one-by-one path). One instance per thread: it
  // owns a ring and its buffers. use_ring=false: always one by one (tests and benchmarks
  // compare the two paths).
  SmallFileBatch(size_t max_files, size_t slot_bytes, size_t padding, bool use_ring = true);
  ~SmallFileBatch();
  SmallFileBatch(const SmallFileBatch&) = delete;
  SmallFileBatch& operator=(const SmallFileBatch&) = delete;

  // Reads paths[i] (regular files only, no final symlink followed, at most max_bytes each).
  // Contents stay valid until the next read(); each is followed by `padding` zero bytes.
  void read(const std::vector<const std::string*>& paths, size_t max_bytes);
  size_t size() const { return results_.size(); }
  Result<std::string_view> contents(size_t i) const;

  // Whether this instance reads through io_uring (false: one file at a time).
  bool uses_ring() const;

 private:
  struct Ring;
  int dir_fd(std::string_view dir);  // -1: open the file by its full path
  size_t max_files_, slot_bytes_, padding_;
  std::vector<char> slots_;            // max_files_ * slot_bytes_ from the first ring read on, reused
  std::vector<std::string> fallback_;  // per file read one by one
  std::vector<Result<std::string_view>> results_;
  std::vector<std::pair<std::string, UniqueFd>> dirs_;  // O_PATH fds of recent directories
  std::unique_ptr<Ring> ring_;                          // last member: torn down before the buffers it reads into
};

}  // namespace msit
