// Which compare flow runs (docs/compare.md "Flows"): detected from the options and the paths, and
// which of compare's options each flow takes. The CLI asks here; it decides nothing itself.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/base/result.h"

namespace msit {

// Every flow of compare. The three torchair flows differ only in how ops are paired; the three
// ATB/torch flows only in which side holds which dump kind.
enum class Flow : uint8_t {
  kGeFx,           // GE dump (with its graph text) vs FX dump
  kGeGe,           // fused GE vs unfused GE
  kFxFx,           // FX vs FX
  kAtbTorch,       // an ATB dump against a torch-hook dump (either side)
  kTorchTorch,     // torch-hook vs torch-hook
  kAtbAtb,         // ATB vs ATB
  kAtbStats,       // --stats over ATB / torch-hook dumps
  kLegacyAit,      // --legacy-ait
  kManualMapping,  // golden_tensor/metadata.json
  kWeight,         // -w
  kMindie,         // --ops-json
  kTwoFiles,       // two tensor files
};

// The flows that share a pipeline and the options they take: what detection knows before it
// walks a tree (the torchair and ATB/torch families are told apart by the trees' contents).
enum class FlowFamily : uint8_t {
  kTorchair,  // kGeFx, kGeGe, kFxFx
  kAtbTorch,  // kAtbTorch, kTorchTorch, kAtbAtb
  kAtbStats,
  kLegacyAit,
  kManualMapping,
  kWeight,
  kMindie,
  kTwoFiles,
};
inline constexpr size_t kFlowFamilyCount = 8;

FlowFamily family_of(Flow f);
std::string_view flow_name(Flow f);          // "GE vs FX", "torch vs ATB", ... (the terminal's `mode:`)
std::string_view family_name(FlowFamily f);  // "torchair (GE/FX) compare", ... (error messages)

// The torchair flow of two trees (kGeFx, kGeGe or kFxFx) from the graph text and FX names in
// them (msit's rule: torchair mode iff my tree has graph text; golden is GE iff it has graph text
// too). Walks both trees (the golden one on a second thread when jobs > 1). warnings: what the
// detection assumed. Which family two paths are: detect_family() (common/compare_atb/detect_flow.h).
Result<Flow> detect_torchair_flow(const std::string& golden_path, const std::string& my_path, unsigned jobs,
                                  std::vector<std::string>& warnings);

// The options only some flows take (every flow takes the paths, -o, -j, -v/-q/-l, --timings).
enum class FlowOption : uint8_t {
  kRank,
  kSketchWidth,
  kHtml,
  kJson,
  kMsitFilters,
  kMsitColumns,
  kCmpLevel,
  kOpMapping,
  kDirRule,
  kStats,
  kMsitCompat,
  kRecompute,
};
bool option_applies(FlowOption o, FlowFamily f);
// An option given for a family that does not take it: the message names the family and those
// that take it; bad_paths when the option is ATB-only and the paths were not recognised as ATB/torch
// dumps (the paths are what is wrong then, not the option). ok when it applies.
struct OptionRefusal {
  std::string message;
  bool bad_paths = false;
};
std::optional<OptionRefusal> refuse_option(FlowOption o, std::string_view spelling, FlowFamily f);

}  // namespace msit
