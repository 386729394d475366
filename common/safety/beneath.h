// Reaching files below a trusted root without ever following a symlink or leaving the root:
// every open, rename, unlink and fsync that may delete data is relative to a directory fd
// obtained here, so a directory swapped for a symlink between two calls is refused, not followed.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/base/result.h"
#include "common/base/unique_fd.h"

namespace msit {

using SharedFd = std::shared_ptr<const UniqueFd>;

// A directory fd and the path it had when it was opened (for messages only).
struct DirRef {
  SharedFd fd;
  std::string path;
  int get() const { return fd ? fd->get() : -1; }
};

// One file, named relative to a directory that was reached safely.
struct FileRef {
  DirRef dir;
  std::string name;  // one path component
  std::string path;  // dir.path + "/" + name, for messages
};

// Opens the directory `rel` ("" = root_fd itself) below root_fd: open_dir_below()
// (common/io/noreplace.h: openat2 with RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS, else one
// openat(O_NOFOLLOW | O_DIRECTORY) per component, ".." refused).
Result<UniqueFd> open_dir_beneath(int root_fd, std::string_view rel, const std::string& display);

// Opens a directory the caller trusts (a root given on the command line or in the config).
Result<UniqueFd> open_trusted_dir(const std::string& path);

// Splits "a/b/c" into ("a/b", "c"); ("", "c") for a bare name.
std::pair<std::string_view, std::string_view> split_parent(std::string_view rel);

// The FileRef of `path` whose parent directory is trusted as given (tests, single files).
Result<FileRef> file_ref_of_path(const std::string& path);

// Caches the most recent directory of a root, so that consecutive files of one directory
// share one safe resolution.
class BeneathResolver {
 public:
  BeneathResolver(SharedFd root_fd, std::string root_path)
      : root_fd_(std::move(root_fd)), root_path_(std::move(root_path)) {}
  // `rel` is the file's path relative to the root.
  Result<FileRef> file(std::string_view rel);
  const std::string& root_path() const { return root_path_; }

 private:
  SharedFd root_fd_;
  std::string root_path_;
  std::string last_rel_dir_;
  DirRef last_dir_;
};

// The FileRef of absolute `path` below one of `roots` (absolute, trusted): the root is opened
// as given, everything below it without following symlinks. An error when no root encloses it.
Result<FileRef> file_ref_beneath(const std::vector<std::string>& roots, const std::string& path);

// Resolves absolute paths below a set of roots, keeping each root's fd and last directory
// (one per thread; a daemon worker's batch).
class RootsResolver {
 public:
  explicit RootsResolver(const std::vector<std::string>& roots) : roots_(roots) {}
  Result<FileRef> file(const std::string& path);

 private:
  const std::vector<std::string>& roots_;
  std::vector<std::pair<size_t, BeneathResolver>> open_;  // by root index
};

}  // namespace msit
