// Fuzzes the torch statistics.csv parser from memory.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "common/summary/torch_stats_csv.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto r = msit::parse_torch_statistics_csv(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz");
  if (r.ok()) {
    for (const auto& row : *r) (void)row.tensor.count;
  }
  return 0;
}
