// Fuzzes msProbe's dump.json reader (the streaming tokenizer, entry decoding, its limits) and
// the name parsers on the same bytes (docs/formats/msprobe.md §4, §7, §9).
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "common/formats/dump_name.h"
#include "common/formats/msprobe_dump_json.h"
#include "common/safety/dump_roots.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace msit;
  MemorySource src(std::as_bytes(std::span<const uint8_t>(data, size)), "/f/step0/rank0/dump.json");
  MsprobeJsonLimits limits;
  limits.max_entry_values = 4096;
  limits.max_entry_bytes = 1u << 20;
  uint64_t seen = 0;
  MsprobeJsonSink sink{nullptr, [&](MsprobeEntry&& e) {
                         if (e.order != seen++) __builtin_trap();
                         for (const MsprobeLeaf& l : e.leaves) {
                           // A data_name that could leave the tensor directory never gets through.
                           if (l.tensor.data_name && !is_safe_msprobe_data_name(*l.tensor.data_name)) __builtin_trap();
                           if (l.tensor.count && l.tensor.shape.size() > 4096) __builtin_trap();
                         }
                         return ok_status();
                       }};
  auto r = read_msprobe_json(src, sink, limits);
  if (r.ok() && r->entries != seen) __builtin_trap();
  const std::string_view name(reinterpret_cast<const char*>(data), size);
  (void)parse_msprobe_entry_name(name);
  if (auto d = parse_msprobe_data_name(name)) {
    if (d->entry.empty()) __builtin_trap();
    // A data name in a rank folder's tensor directory is raw unless another name rule took it.
    const NameKind k = classify_name(name).kind;
    const bool other_rule = k != NameKind::kUnknown && k != NameKind::kOtherNpy;
    if (!other_rule && !DumpScope::of_path("/d/step0/rank0/dump_tensor_data").is_candidate(name)) __builtin_trap();
  }
  (void)parse_msprobe_rank_dir(name);
  (void)parse_msprobe_step_dir(name);
  return 0;
}
