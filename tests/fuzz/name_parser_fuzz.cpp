// Fuzzes file-name classification and the GE/FX name parsers.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "common/formats/dump_name.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view name(reinterpret_cast<const char*>(data), size);
  msit::NameInfo info = msit::classify_name(name);
  (void)msit::name_kind_name(info.kind);
  if (auto g = msit::parse_ge_dump_name(name)) {
    if (g->op_type.empty() || g->op_name.empty() || g->timestamp.empty()) __builtin_trap();
    (void)msit::strip_dump_number(g->op_name);
  }
  if (auto fx = msit::parse_fx_dump_name(name)) {
    if (fx->node_key.empty()) __builtin_trap();
  }
  return 0;
}
