// Fuzzes the safetensors header parser (weight compare) and the manual-mapping metadata.json
// parser (legacy compare) from memory: accepted entries must lie inside the claimed file.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/compare_atb/legacy.h"
#include "common/formats/safetensors.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  uint64_t file_size = size + 4096;
  auto idx = msit::parse_safetensors_header(text, 8 + size, file_size, "f.safetensors");
  if (idx.ok()) {
    for (const auto& e : idx->entries) {
      if (e.offset < 8 + size || e.offset > file_size || e.size > file_size - e.offset) __builtin_trap();
    }
  }
  std::vector<std::string> warnings;
  auto meta = msit::atb::parse_manual_metadata(text, "metadata.json", warnings);
  if (meta.ok()) {
    for (const auto& m : *meta) {
      if (m.golden.empty() || m.my.empty() || m.golden.size() > msit::atb::kMaxManualPath) __builtin_trap();
    }
  }
  return 0;
}
