// Flow detection (docs/compare.md "Flows"): the family from the options and the paths, then the
// flow within it.
#include "common/compare_atb/detect_flow.h"

#include <filesystem>
#include <system_error>

#include "common/compare/dump_index.h"
#include "common/compare_atb/atb_compare.h"
#include "common/compare_atb/legacy.h"
#include "common/compare_atb/side.h"
#include "common/compare_msprobe/pairs.h"

namespace msit {
namespace {

// Two tensor files (.pth, .bin, .npy or their summaries/archives): msit logs the metrics and
// writes no report (docs/formats/atb-torch.md §3.1 item 1).
bool tensor_file(const std::string& p) {
  std::error_code ec;
  auto raw = raw_name_of(std::filesystem::path(p).filename().string());
  if (!raw || !std::filesystem::is_regular_file(p, ec)) return false;
  const std::string& n = raw->first;
  return n.ends_with(".pth") || n.ends_with(".bin") || n.ends_with(".npy");
}

}  // namespace

FlowFamily detect_family(const FlowSelectors& s, const std::string& golden_path, const std::string& my_path) {
  if (!s.ops_json.empty()) return FlowFamily::kMindie;
  if (s.weight) return FlowFamily::kWeight;
  if (atb::has_manual_mapping(golden_path)) return FlowFamily::kManualMapping;
  if (s.legacy_ait) return FlowFamily::kLegacyAit;
  if (tensor_file(golden_path) && tensor_file(my_path)) return FlowFamily::kTwoFiles;
  // One side an msProbe dump is enough: no other flow reads msProbe's files (the torchair flow
  // would pair them as GE ops), and the msProbe resolver says what the other side is instead.
  if (is_msprobe_path(golden_path) || is_msprobe_path(my_path)) return FlowFamily::kMsprobe;
  if (atb::is_atb_torch_compare(golden_path, my_path)) return s.stats ? FlowFamily::kAtbStats : FlowFamily::kAtbTorch;
  return FlowFamily::kTorchair;
}

Result<Flow> detect_flow_in(FlowFamily family, const std::string& golden_path, const std::string& my_path,
                            unsigned jobs, std::vector<std::string>& warnings) {
  switch (family) {
    case FlowFamily::kTorchair: return detect_torchair_flow(golden_path, my_path, jobs, warnings);
    case FlowFamily::kAtbTorch: {
      auto g = atb::detect_side_kind(golden_path), m = atb::detect_side_kind(my_path);
      if (g == atb::SideKind::kAtb && m == atb::SideKind::kAtb) return Flow::kAtbAtb;
      if (g == atb::SideKind::kTorch && m == atb::SideKind::kTorch) return Flow::kTorchTorch;
      return Flow::kAtbTorch;
    }
    case FlowFamily::kAtbStats: return Flow::kAtbStats;
    case FlowFamily::kLegacyAit: return Flow::kLegacyAit;
    case FlowFamily::kManualMapping: return Flow::kManualMapping;
    case FlowFamily::kWeight: return Flow::kWeight;
    case FlowFamily::kMindie: return Flow::kMindie;
    case FlowFamily::kTwoFiles: return Flow::kTwoFiles;
    case FlowFamily::kMsprobe: return Flow::kMsprobe;
  }
  return Flow::kGeFx;
}

Result<Flow> detect_flow(const FlowSelectors& s, const std::string& golden_path, const std::string& my_path,
                         unsigned jobs, std::vector<std::string>& warnings) {
  return detect_flow_in(detect_family(s, golden_path, my_path), golden_path, my_path, jobs, warnings);
}

}  // namespace msit
