// Fuzzes the GE statistics-mode CSV parser: any bytes, no crash, bounded; accepted files have
// a tensor per data line and counts consistent with their shapes.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "common/summary/ge_stats_csv.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto s = msit::parse_ge_stats_csv(text, "fuzz.csv");
  if (s.ok()) {
    for (const auto& t : s->tensors) {
      if (t.role != "input" && t.role != "output") __builtin_trap();
      if (t.shape.size() > 32) __builtin_trap();
      if (!t.stats_available && t.stats.max) __builtin_trap();
    }
  }
  return 0;
}
