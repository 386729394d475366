// msProbe's -lm layer mapping (docs/formats/msprobe-compare.md §3.1): each side's entries placed in
// a tree of scopes (construct.json's parents, stack.json's framework frame), the target's scopes
// renamed per layer class by the YAML, and the result turned into a -dm data mapping.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "common/base/result.h"
#include "common/compare_msprobe/mapping_file.h"
#include "common/compare_msprobe/side.h"

namespace msit {

// Whether msProbe applies -lm to this pair: only when the target is a MindSpore (or MSAdapter)
// dump; on a PyTorch target msProbe ignores the option.
bool ms_layer_mapping_applies(const MsprobeSide& npu);

// The data mapping -lm gives: every row of every target entry -> the golden row with the same
// suffix in the golden entry its scope maps to, or "N/A". Reads construct.json and stack.json
// beside each side's dump.json (neither: no scopes, as msProbe; only one: an error) and the
// entry names of both dump.json files. Empty when the target has neither file.
Result<std::unordered_map<std::string, std::string>> ms_layer_data_mapping(const MsprobeSide& npu,
                                                                           const MsprobeSide& bench,
                                                                           const MsLayerMapping& mapping);

// One entry's scope as msProbe computes it (exposed for tests): the dotted path of layers, the
// framework function that called it, and its own name; state is forward/backward/parameters_grad.
struct MsLayerScope {
  std::string type_name, api_name, state, layer_scope, frame_scope, full_scope;
};
// `parent` is construct.json's value ("" for none), `frame_scope` the function stack.json gave.
Result<MsLayerScope> ms_layer_scope(const std::string& entry, const std::string& parent,
                                    const std::string& frame_scope);
// The framework function of one stack (msProbe's frame scope): the last framework frame above
// the user's code between the Template line and the forward/construct line; "" for none.
// `mindspore` picks MindSpore's end marker. An error for a frame line without a function.
Result<std::string> ms_frame_scope(const std::vector<std::string>& frames, bool mindspore);

}  // namespace msit
