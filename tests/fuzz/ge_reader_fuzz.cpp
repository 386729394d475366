// Fuzzes the GE dump header parser (big-dump and legacy layouts) from memory.
#include <cstddef>
#include <cstdint>
#include <span>

#include "common/formats/dump_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto bytes = std::as_bytes(std::span<const uint8_t>(data, size));
  for (uint64_t file_size : {uint64_t{size}, uint64_t{size} + 1000}) {
    auto r = msit::parse_ge_dump_prefix(bytes, file_size, "fuzz");
    if (!r.ok()) continue;
    for (const auto& t : r->tensors) {
      // Whatever the header says, accepted payloads lie inside the file.
      if (!r->legacy_whole_protobuf && t.payload_offset + t.payload_size > file_size) __builtin_trap();
      if (t.payload_size > file_size || t.payload_offset > file_size - t.payload_size) __builtin_trap();
      (void)t.stored_count();
      (void)t.logical_count();
      (void)msit::ge_format_name(t.ge_format);
    }
  }
  return 0;
}
