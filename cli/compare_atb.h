// The ATB / torch-hook side of `msit-compact compare` (docs/formats/atb-torch.md §3): its options and its run.
#pragma once

#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "cli/compare_outcome.h"
#include "cli/options.h"
#include "common/base/phase_timer.h"
#include "common/compare_atb/detect_flow.h"

namespace msit::cli {

struct AtbCliArgs {
  std::string level;  // -cl: layer | module | api | logits; empty: xlsx with three sheets
  std::string op_mapping_dir;
  std::string dir_rule = "msit";  // msit | robust (docs/formats/atb-torch.md §2.4)
  bool msit_compat = false;
  bool weight = false;      // -w: float vs dequantised int8 weights
  bool legacy_ait = false;  // ait's compare (docs/formats/atb-torch.md §3.9)
  bool stats = false;       // statistics compare (docs/formats/report.md §7)
  std::string ops_json;     // MindIE Torch: dir of mindie_{torch,rt}_op_mapping.json
};

struct AtbRunArgs {
  std::string golden_path, my_path, output;
  std::string html;  // --html FILE, empty when not asked for
  unsigned jobs = 1;
  bool msit_filters = false, msit_columns = false, quiet = false, json = false;
  uint32_t sketch_width = 0;
  Verbosity verbosity = Verbosity::kNormal;
  PhaseTimer* timer = nullptr;  // --timings
  bool recompute = false;       // --recompute (common/compare/recompute.h)
  size_t recompute_before = 3;  // --recompute-before
};

// The ATB-family options; each returned so that compare can tell which were given.
struct AtbOptions {
  CLI::Option *level, *op_mapping, *dir_rule, *stats, *ops_json, *weight, *legacy_ait, *msit_compat;
};
AtbOptions add_atb_options(CLI::App* cmd, AtbCliArgs& a);
// What selects a flow among these options (common/compare_atb/detect_flow.h).
FlowSelectors flow_selectors(const AtbCliArgs& a);
// Runs every flow but kTorchair (cli/compare.cpp).
int run_atb_compare_cli(FlowFamily flow, const AtbRunArgs& r, const AtbCliArgs& a);

}  // namespace msit::cli
