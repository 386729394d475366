// Fuzzes the msProbe compare's side files (docs/formats/msprobe-compare.md §3, §3.1, §4): the
// -dm / -cm YAML mapping reader, the -lm layer mapping reader, and stack.json's reader, on the same bytes.
#include <cstddef>
#include <cstdint>
#include <span>

#include "common/compare_msprobe/mapping_file.h"
#include "common/compare_msprobe/stack.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace msit;
  const std::span<const char> text(reinterpret_cast<const char*>(data), size);
  if (auto m = parse_ms_mapping(text, "map.yaml"); m.ok()) {
    for (const auto& [k, v] : *m) {
      if (k.size() > size || v.size() > size) __builtin_trap();  // nothing is made up
    }
  }
  if (auto lm = parse_ms_layer_mapping(text, "layer_mapping.yaml"); lm.ok()) {
    for (const auto& [type, rules] : *lm) {
      if (type.size() > size || rules.size() > size) __builtin_trap();
      for (const auto& [k, v] : rules) {
        if (k.empty() || v.empty() || k.size() > size || v.size() > size) __builtin_trap();  // names, never made up
      }
    }
  }
  MemorySource src(std::as_bytes(std::span<const uint8_t>(data, size)), "stack.json");
  if (auto s = MsStackInfo::read(src); s.ok()) {
    const std::string cell = s->cell("Torch.add.0.forward");
    if (cell != "N/A" && (cell.empty() || cell.front() != '[' || cell.back() != ']')) __builtin_trap();
  }
  return 0;
}
