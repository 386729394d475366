// Fuzzes the ATB .bin header parser (tensor and stats variants) from memory.
#include <cstddef>
#include <cstdint>
#include <span>

#include "common/formats/atb_bin.h"
#include "common/formats/atb_names.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto bytes = std::as_bytes(std::span<const uint8_t>(data, size));
  auto r = msit::parse_atb_bin_prefix(bytes, size, "/f/msit_dump/tensors/0_1/0/0_Op/after/outtensor0.bin");
  if (r.ok()) {
    const auto& t = r->tensors.at(0);
    if (!t.header_stats && (t.payload_offset > size || t.payload_size > size - t.payload_offset)) __builtin_trap();
    (void)t.logical_count();
  }
  std::string_view name(reinterpret_cast<const char*>(data), size);
  (void)msit::parse_atb_tensor_name(name);
  (void)msit::parse_torch_tensor_name(name);
  (void)msit::parse_dump_tree_path(name);
  return 0;
}
