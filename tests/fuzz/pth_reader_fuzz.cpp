// Fuzzes the .pth reader (stored ZIP directory + pickle subset) and the pickle machine alone.
#include <cstddef>
#include <cstdint>
#include <span>

#include "common/formats/pth_pickle.h"
#include "common/formats/pth_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto bytes = std::as_bytes(std::span<const uint8_t>(data, size));
  auto r = msit::parse_pth_bytes(bytes, "/f/output_0.pth");
  if (r.ok()) {
    const auto& t = r->tensors.at(0);
    if (t.payload_offset > size || t.payload_size > size - t.payload_offset) __builtin_trap();
  }
  (void)msit::parse_pth_pickle(bytes, "/f/data.pkl");
  return 0;
}
