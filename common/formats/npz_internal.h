// Minimal ZIP container support for .npz files: stored (uncompressed) members only, laid out
// byte for byte as numpy's savez (Python zipfile) writes them.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "common/base/result.h"

namespace msit::npz_internal {

struct ZipMember {
  std::string name;
  std::span<const std::byte> data;  // view into the archive bytes
};

// Walks the central directory (bounds-checked, ZIP64 aware) and verifies each CRC-32.
// Compressed members are an error naming the member.
Result<std::vector<ZipMember>> read_stored_zip(std::span<const std::byte> zip, const std::string& path);

// What numpy.savez writes: ZIP64 extra field in local headers, DOS date 1980-01-01.
std::string write_stored_zip(const std::vector<std::pair<std::string, std::string>>& members);

}  // namespace msit::npz_internal
