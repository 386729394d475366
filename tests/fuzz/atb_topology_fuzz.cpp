// libFuzzer target: the ATB/torch topology and op-mapping parsers on arbitrary bytes, and the
// match policies over whatever trees they accept. Must never crash, hang or exhaust memory.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "common/compare_atb/match.h"
#include "common/compare_atb/topology.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace msit::atb;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto torch = parse_torch_model_tree(text, "model_tree.json");
  uint32_t show = 0;
  auto atb = parse_atb_model(text, "model.json", size % 2 == 0, show);
  (void)parse_op_mapping(text, "op_mapping_file.json", size % 3 == 0);
  MatchOptions mo;
  mo.custom = custom_table({});
  for (PolicySet set : {PolicySet::kLayer, PolicySet::kModule, PolicySet::kApi}) {
    if (torch.ok()) (void)match_tree_pair(*torch, 0, *torch, 0, set, mo);
    if (atb.ok()) (void)match_tree_pair(*atb, 0, *atb, 0, set, mo);
    if (torch.ok() && atb.ok()) (void)match_tree_pair(*torch, 0, *atb, 0, set, mo);
  }
  return 0;
}
