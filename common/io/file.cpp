// Safe opens, identity and chunked reads for dump files.
#include "common/io/file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace msit {
FileIdentity identity_from_stat(const struct stat& st) {
  FileIdentity id;
  id.dev = st.st_dev;
  id.ino = st.st_ino;
  id.size = static_cast<uint64_t>(st.st_size);
  id.mtime_ns = int64_t{st.st_mtim.tv_sec} * 1'000'000'000 + st.st_mtim.tv_nsec;
  id.ctime_ns = int64_t{st.st_ctim.tv_sec} * 1'000'000'000 + st.st_ctim.tv_nsec;
  return id;
}

Result<FileIdentity> identity_of(int fd, const std::string& path) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return make_sys_error(path, Stage::kStat, "fstat failed", errno);
  return identity_from_stat(st);
}

Result<FileIdentity> identity_at_path(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return make_sys_error(path, Stage::kStat, "lstat failed", errno);
  return identity_from_stat(st);
}

namespace {

// O_NONBLOCK keeps a FIFO planted in the tree from blocking the open; on a regular file it
// changes nothing for read(), so callers that only read whole small files keep it.
Result<UniqueFd> open_nonblocking_regular(const std::string& path, uint64_t* size_out) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
  if (!fd.valid()) {
    int err = errno;
    if (err == ELOOP) return make_error(path, Stage::kOpen, "is a symbolic link; links are never followed");
    return make_sys_error(path, Stage::kOpen, "cannot open for reading", err);
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return make_sys_error(path, Stage::kOpen, "fstat failed", errno);
  if (!S_ISREG(st.st_mode)) return make_error(path, Stage::kOpen, "not a regular file");
  if (size_out != nullptr) *size_out = static_cast<uint64_t>(st.st_size);
  return fd;
}

}  // namespace

Result<UniqueFd> open_regular_nofollow(const std::string& path, uint64_t* size_out) {
  MSIT_ASSIGN_OR_RETURN(UniqueFd fd, open_nonblocking_regular(path, size_out));
  // Dump readers hand the fd on (read-ahead threads, archives): make it an ordinary one. Of
  // the flags F_SETFL can change, only O_NONBLOCK was set, so one call clears it.
  ::fcntl(fd.get(), F_SETFL, 0);
  return fd;
}

Status pread_exact(int fd, std::span<std::byte> buf, uint64_t offset, const std::string& path, Stage stage) {
  size_t done = 0;
  while (done < buf.size()) {
    ssize_t n = ::pread(fd, buf.data() + done, buf.size() - done, static_cast<off_t>(offset + done));
    if (n < 0) {
      if (errno == EINTR) continue;
      return make_sys_error(path, stage, "read failed", errno);
    }
    if (n == 0) {
      return make_error(path, stage,
                        "short read: file ended at byte " + std::to_string(offset + done) + ", expected " +
                            std::to_string(offset + buf.size()) + " (truncated or still being written?)");
    }
    done += static_cast<size_t>(n);
  }
  return ok_status();
}

ChunkReader::ChunkReader(int fd, std::string path, uint64_t offset, uint64_t length, size_t chunk_bytes)
    : owned_(std::make_unique<FileSource>(fd, std::move(path), offset + length)), src_(owned_.get()), pos_(offset),
      end_(offset + length), buf_(std::min<uint64_t>(chunk_bytes, length)) {
  src_->will_read_sequentially(offset, length);
}

ChunkReader::ChunkReader(ByteSource& src, uint64_t offset, uint64_t length, size_t chunk_bytes)
    : src_(&src), pos_(offset), end_(offset + length), buf_(std::min<uint64_t>(chunk_bytes, length)) {
  src_->will_read_sequentially(offset, length);
}

Result<std::span<const std::byte>> ChunkReader::next() {
  if (pos_ >= end_) return std::span<const std::byte>();
  size_t n = static_cast<size_t>(std::min<uint64_t>(buf_.size(), end_ - pos_));
  MSIT_TRY(src_->read_at(pos_, std::span<std::byte>(buf_.data(), n), Stage::kPayload));
  pos_ += n;
  return std::span<const std::byte>(buf_.data(), n);
}

Status read_small_file_into(const std::string& path, size_t max_bytes, size_t padding, std::string& out,
                            size_t& size_out) {
  uint64_t size = 0;
  MSIT_ASSIGN_OR_RETURN(UniqueFd fd, open_nonblocking_regular(path, &size));
  if (size > max_bytes) {
    return make_error(path, Stage::kRead,
                      "file is " + std::to_string(size) + " bytes, larger than the " + std::to_string(max_bytes) +
                          "-byte limit for this kind of file");
  }
  out.resize(size + padding);
  std::memset(out.data() + size, 0, padding);
  size_t done = 0;
  while (done < size) {
    ssize_t n = ::read(fd.get(), out.data() + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return make_sys_error(path, Stage::kRead, "read failed", errno);
    if (n == 0) return make_error(path, Stage::kRead, "file shrank while being read");
    done += static_cast<size_t>(n);
  }
  size_out = size;
  return ok_status();
}

Result<std::string> read_small_file(const std::string& path, size_t max_bytes) {
  std::string out;
  size_t size = 0;
  MSIT_TRY(read_small_file_into(path, max_bytes, 0, out, size));
  return out;
}

}  // namespace msit
