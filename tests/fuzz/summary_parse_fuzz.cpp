// libFuzzer target: the summary JSON reader on arbitrary bytes. Must never crash or hang; any
// summary it accepts must write back to JSON that reads again to the same JSON (compact relies
// on re-reading the summaries it wrote).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/summary/summary.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace msit;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto first = summary_from_json(text, "fuzz.summary.json");
  if (!first.ok()) return 0;
  const std::string written = summary_to_json(*first);
  auto second = summary_from_json(written, "fuzz.summary.json");
  if (!second.ok() || summary_to_json(*second) != written) __builtin_trap();
  return 0;
}
