// Opening dump files safely (no symlinks, regular files only), their identity, and chunked reads.
#pragma once

#include <sys/stat.h>
#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "common/base/result.h"
#include "common/base/unique_fd.h"
#include "common/io/byte_source.h"

namespace msit {

// What must be unchanged between reading a raw file and deleting it.
struct FileIdentity {
  dev_t dev = 0;
  ino_t ino = 0;
  uint64_t size = 0;
  int64_t mtime_ns = 0;
  int64_t ctime_ns = 0;

  bool same_content_as(const FileIdentity& o) const {
    return dev == o.dev && ino == o.ino && size == o.size && mtime_ns == o.mtime_ns;
  }
};

FileIdentity identity_from_stat(const struct ::stat& st);
Result<FileIdentity> identity_of(int fd, const std::string& path);
// lstat-based: never follows a final symlink.
Result<FileIdentity> identity_at_path(const std::string& path);

// Opens read-only with O_NOFOLLOW; refuses anything that is not a regular file. size_out
// (optional) receives the size from the same fstat.
Result<UniqueFd> open_regular_nofollow(const std::string& path, uint64_t* size_out = nullptr);

// Reads exactly buf.size() bytes at offset, or fails naming path/stage ("short read").
Status pread_exact(int fd, std::span<std::byte> buf, uint64_t offset, const std::string& path, Stage stage);

// Sequential reader over [offset, offset+length) in bounded chunks (default 1 MiB).
class ChunkReader {
 public:
  ChunkReader(int fd, std::string path, uint64_t offset, uint64_t length, size_t chunk_bytes = size_t{1} << 20);
  // Over any source (plain file or archive); src must outlive the reader.
  ChunkReader(ByteSource& src, uint64_t offset, uint64_t length, size_t chunk_bytes = size_t{1} << 20);
  // Next chunk; an empty span means the range is exhausted. Errors on a short read.
  Result<std::span<const std::byte>> next();
  uint64_t remaining() const { return end_ - pos_; }

 private:
  std::unique_ptr<ByteSource> owned_;
  ByteSource* src_;
  uint64_t pos_;
  uint64_t end_;
  std::vector<std::byte> buf_;
};

// Reads a whole small file (bounded by max_bytes) into memory.
Result<std::string> read_small_file(const std::string& path, size_t max_bytes);
// The same into a reused buffer (no allocation once it is big enough): `out` gets the bytes,
// then `padding` zero bytes (parsers that read past the end); size_out the file's size. One
// open, fstat, read and close: readers of 100,000s of summaries pay per syscall.
Status read_small_file_into(const std::string& path, size_t max_bytes, size_t padding, std::string& out,
                            size_t& size_out);

}  // namespace msit
