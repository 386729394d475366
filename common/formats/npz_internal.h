// Minimal ZIP container support for .npz and torch .pth files: stored (uncompressed) members
// only, laid out byte for byte as numpy's savez (Python zipfile) writes them; the source-based
// directory reader also serves torch.save archives of any size with bounded memory.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "common/base/result.h"
#include "common/io/byte_source.h"

namespace msit::npz_internal {

struct ZipMember {
  std::string name;
  std::span<const std::byte> data;  // view into the archive bytes
};

// Where a stored member's bytes lie in the archive (absolute offset), without reading them.
struct ZipEntry {
  std::string name;
  uint64_t data_offset = 0;
  uint64_t size = 0;
  uint32_t crc32 = 0;
};

// Reads the end record, the central directory and each local header through src: memory is
// bounded by the directory (capped at kMaxZipDirectoryBytes), never by the members. Errors say
// "`kind`: ..." (e.g. "npz", ".pth") at stage "header"; compressed members are an error. CRCs are
// not checked here (members may be gigabytes): see zip_crc32.
inline constexpr uint64_t kMaxZipDirectoryBytes = 16u << 20;
Result<std::vector<ZipEntry>> read_stored_zip_entries(ByteSource& src, const std::string& kind);
uint32_t zip_crc32(std::span<const std::byte> d);

// Walks the central directory (bounds-checked, ZIP64 aware) and verifies each CRC-32.
// Compressed members are an error naming the member.
Result<std::vector<ZipMember>> read_stored_zip(std::span<const std::byte> zip, const std::string& path);

// What numpy.savez writes: ZIP64 extra field in local headers, DOS date 1980-01-01.
std::string write_stored_zip(const std::vector<std::pair<std::string, std::string>>& members);

}  // namespace msit::npz_internal
