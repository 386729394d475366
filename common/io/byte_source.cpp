// The plain-file and in-memory byte sources.
#include "common/io/byte_source.h"

#include <fcntl.h>

#include <cstring>

#include "common/io/file.h"

namespace msit {

Status FileSource::read_at(uint64_t off, std::span<std::byte> out, Stage stage) {
  return pread_exact(fd_, out, off, path_, stage);
}

void FileSource::will_read_sequentially(uint64_t off, uint64_t len) {
  ::posix_fadvise(fd_, static_cast<off_t>(off), static_cast<off_t>(len), POSIX_FADV_SEQUENTIAL);
}

Status MemorySource::read_at(uint64_t off, std::span<std::byte> out, Stage stage) {
  if (off > bytes_.size() || out.size() > bytes_.size() - off) {
    return make_error(path_, stage,
                      "read of " + std::to_string(out.size()) + " bytes at offset " + std::to_string(off) +
                          " is past the available " + std::to_string(bytes_.size()) + " bytes");
  }
  if (!out.empty()) std::memcpy(out.data(), bytes_.data() + off, out.size());
  return ok_status();
}

}  // namespace msit
