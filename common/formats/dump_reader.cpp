// Choosing the header reader for a raw dump file from its own magic bytes.
#include <cstring>

#include "common/formats/dump_reader.h"

namespace msit {

Result<RawDumpFile> read_dump_header(int fd, const std::string& path, const FileIdentity& id) {
  static constexpr char kNpyMagic[] = "\x93NUMPY";
  // A file named .npy is judged as npy, so a bad one gets an npy error, not a GE one.
  if (path.size() >= 4 && path.compare(path.size() - 4, 4, ".npy") == 0) return read_npy_header(fd, path, id);
  char first[6] = {};
  if (id.size >= sizeof first) {
    MSIT_TRY(pread_exact(fd, std::as_writable_bytes(std::span<char>(first)), 0, path, "header"));
    if (std::memcmp(first, kNpyMagic, sizeof first) == 0) return read_npy_header(fd, path, id);
  }
  return read_ge_dump_header(fd, path, id);
}

bool is_incomplete_error(const Error& e) { return e.stage == "incomplete"; }

}  // namespace msit
