// Choosing the header reader for a raw dump file from its own magic bytes.
#include <algorithm>
#include <cstring>

#include "common/formats/dump_reader.h"

#include "common/formats/atb_bin.h"
#include "common/formats/pth_reader.h"

namespace msit {
namespace {

// Archived npy files (STEM.npy.zst) keep the judgement of their original name.
bool ends_with_npy(const std::string& p) {
  for (std::string_view suffix : {std::string_view(".npy"), std::string_view(".npy.zst")}) {
    if (p.size() >= suffix.size() && p.compare(p.size() - suffix.size(), suffix.size(), suffix) == 0) return true;
  }
  return false;
}

}  // namespace

Result<RawDumpFile> read_dump_header(ByteSource& src, const FileIdentity& id) {
  static constexpr char kNpyMagic[] = "\x93NUMPY";
  const std::string& path = src.path();
  // A file named .npy is judged as npy, so a bad one gets an npy error, not a GE one.
  if (ends_with_npy(path)) return read_npy_header(src, id);
  char first[9] = {};
  const size_t n = static_cast<size_t>(std::min<uint64_t>(id.size, sizeof first));
  MSIT_TRY(src.read_at(0, std::as_writable_bytes(std::span<char>(first, n)), Stage::kHeader));
  if (n >= 6 && std::memcmp(first, kNpyMagic, 6) == 0) return read_npy_header(src, id);
  if (looks_like_atb_bin(std::as_bytes(std::span<const char>(first, n)))) return read_atb_bin_header(src, id);
  // torch.save writes a ZIP; a GE dump would need a 67 MB header length to start with "PK\3\4",
  // which its reader rejects as corrupt anyway.
  if (n >= 4 && std::memcmp(first, "PK\x03\x04", 4) == 0) return read_pth_header(src, id);
  return read_ge_dump_header(src, id);
}

Result<RawDumpFile> read_dump_header(int fd, const std::string& path, const FileIdentity& id) {
  FileSource src(fd, path, id.size);
  return read_dump_header(src, id);
}

bool is_incomplete_error(const Error& e) { return e.stage == Stage::kIncomplete; }

}  // namespace msit
