// safetensors files (8-byte little-endian header length, JSON header {name: {dtype, shape,
// data_offsets}}, raw little-endian data): the header as a tensor index, data read by ranges.
// Hostile-input safe: header size, entry count, ranks and every offset are checked.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/base/result.h"
#include "common/dtype/dtype.h"

namespace msit {

inline constexpr uint64_t kMaxSafetensorsHeader = 100ull << 20;  // the safetensors library's own limit
inline constexpr size_t kMaxSafetensorsEntries = 1'000'000;

struct SafetensorsEntry {
  std::string name;
  DType dtype = DType::kUnknown;
  std::string dtype_text;  // as written ("F32", "BF16", "I8", ...)
  std::vector<uint64_t> shape;
  uint64_t count = 0;             // elements
  uint64_t offset = 0, size = 0;  // absolute byte range in the file
};

struct SafetensorsIndex {
  std::string path;
  std::vector<SafetensorsEntry> entries;  // sorted by name
  const SafetensorsEntry* find(std::string_view name) const;
};

// Parses the header bytes (after the 8-byte length); data_base = 8 + header length,
// file_size = the file's size, for the offset checks.
Result<SafetensorsIndex> parse_safetensors_header(std::string_view header, uint64_t data_base, uint64_t file_size,
                                                  const std::string& path);
Result<SafetensorsIndex> read_safetensors_index(const std::string& path);

// Raw little-endian bytes of elements [first, first + n) of an entry (out: n * element size).
Status read_safetensors_elements(const SafetensorsIndex& idx, const SafetensorsEntry& e, uint64_t first, size_t n,
                                 std::byte* out);

}  // namespace msit
