// Files written for the user (reports of every compare flow, export's CSV, the daemon's status
// file): the one way they are created. The directory is opened once, the file is created under
// an unpredictable temp name with O_EXCL|O_NOFOLLOW in that directory fd and published with a
// no-replace rename, so a symlink or hard link planted under any name we use is never followed,
// truncated or written through (docs/safety.md, "Outputs and messages").
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "common/base/result.h"
#include "common/base/unique_fd.h"
#include "common/io/noreplace.h"

namespace msit {

// What publishing does when the final name is taken.
enum class OnExisting : uint8_t {
  kKeep,  // never replaced: a conflict error, the existing file kept
  // Replaced (by rename: the old file is unlinked, never truncated or written) only when it is
  // a regular file with one link owned by our effective uid: our own previous report, as a
  // rerun within the same second or `--html FILE` twice. Anything else is kept: a conflict.
  kReplaceOwnFile,
};

// Opens directory `dir` for outputs. An existing path is opened as given (like a root typed on
// the command line; the kernel's protected_symlinks guards links in sticky directories); each
// missing component is created with mkdirat and opened with O_NOFOLLOW from its parent's fd, so
// nothing can be swapped in for a directory we create.
Result<UniqueFd> open_output_dir(const std::string& dir);

class OutputFile {
 public:
  static Result<OutputFile> create(const std::string& path, OnExisting on_existing = OnExisting::kReplaceOwnFile,
                                   unsigned mode = 0644);
  OutputFile(OutputFile&&) noexcept = default;
  OutputFile& operator=(OutputFile&&) = delete;
  ~OutputFile() = default;  // an unpublished temp is removed by its OwnedTempPath

  Status write(std::span<const std::byte> bytes);
  Status write(std::string_view bytes) {
    return write(std::as_bytes(std::span<const char>(bytes.data(), bytes.size())));
  }
  int fd() const { return temp_.fd.get(); }
  // "/proc/self/fd/N" of the temp: for a library that insists on opening a path itself
  // (libxlsxwriter 1.1.4 has no in-memory or fd output); it reaches this file and no other.
  std::string fd_path() const;
  // fsync, close, publish under the final name (see OnExisting), fsync of the directory.
  Status commit();
  const std::string& path() const { return path_; }

 private:
  OutputFile(UniqueFd dir, TempAt temp, std::string path, std::string name, OnExisting on)
      : dir_(std::move(dir)), temp_(std::move(temp)), path_(std::move(path)), name_(std::move(name)), on_(on) {}
  Status publish();
  UniqueFd dir_;
  TempAt temp_;
  std::string path_;  // for messages
  std::string name_;  // final name in dir_
  OnExisting on_;
  uint64_t written_ = 0;
  uint64_t writeback_ = 0;
};

// All of it for a file held in memory.
Status write_output_file(const std::string& path, std::string_view data,
                         OnExisting on_existing = OnExisting::kReplaceOwnFile);

}  // namespace msit
