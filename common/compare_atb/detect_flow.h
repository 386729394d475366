// Which compare flow two paths and the options select (docs/compare.md "Flows"): above both
// families, so it lives with the higher one (the torchair part is common/compare/flow.h's).
#pragma once

#include <string>
#include <vector>

#include "common/base/result.h"
#include "common/compare/flow.h"

namespace msit {

// What selects a flow besides the paths.
struct FlowSelectors {
  std::string ops_json;  // --ops-json DIR
  bool weight = false;   // -w
  bool legacy_ait = false;
  bool stats = false;
};

// Explicit options first (--ops-json, -w, --legacy-ait), then what the paths are (manual mapping,
// two tensor files, ATB/torch dumps), else torchair. No tree walk: cheap enough to run before
// the options are checked.
FlowFamily detect_family(const FlowSelectors& s, const std::string& golden_path, const std::string& my_path);

// The flow within its family: torchair from the graph text and FX names in the two trees (msit's
// rule: torchair mode iff my tree has graph text; golden is GE iff it has graph text too), ATB/torch
// from the two sides' kinds. Walks both trees for torchair (the golden one on a second thread when
// jobs > 1). warnings: what the detection assumed.
Result<Flow> detect_flow_in(FlowFamily family, const std::string& golden_path, const std::string& my_path,
                            unsigned jobs, std::vector<std::string>& warnings);
// detect_family then detect_flow_in.
Result<Flow> detect_flow(const FlowSelectors& s, const std::string& golden_path, const std::string& my_path,
                         unsigned jobs, std::vector<std::string>& warnings);

}  // namespace msit
