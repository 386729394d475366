// Fuzzes the .npy header parser from memory.
#include <cstddef>
#include <cstdint>
#include <span>

#include "common/formats/dump_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto bytes = std::as_bytes(std::span<const uint8_t>(data, size));
  auto r = msit::parse_npy_prefix(bytes, size, "fuzz");
  if (r.ok()) {
    const auto& t = r->tensors.at(0);
    if (t.payload_offset + t.payload_size > size) __builtin_trap();
    (void)t.logical_count();
  }
  return 0;
}
