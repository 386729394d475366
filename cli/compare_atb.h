// The ATB / torch-hook side of `msit-compact compare` (atb-torch.md 3): its options and its run.
#pragma once

#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "cli/options.h"

namespace msit::cli {

struct AtbCliArgs {
  std::string level;  // -cl: layer | module | api | logits; empty: xlsx with three sheets
  std::string op_mapping_dir;
  std::string dir_rule = "msit";  // msit | robust (atb-torch.md 2.4)
  bool msit_compat = false;
  bool weight = false;      // -w: float vs dequantised int8 weights
  bool legacy_ait = false;  // ait's compare (atb-torch.md 3.9)
  bool stats = false;       // statistics compare (formats.md 6.7)
  std::string ops_json;     // MindIE Torch: dir of mindie_{torch,rt}_op_mapping.json
};

struct AtbRunArgs {
  std::string golden_path, my_path, output;
  unsigned jobs = 1;
  bool msit_filters = false, msit_columns = false, quiet = false, json = false, rank_given = false;
  uint32_t sketch_width = 0;
  Verbosity verbosity = Verbosity::kNormal;
};

void add_atb_options(CLI::App* cmd, AtbCliArgs& a);
// Dispatch hook: true when both paths are ATB/torch dumps or --ops-json was given (MindIE Torch).
bool is_atb_compare(const AtbCliArgs& a, const std::string& golden_path, const std::string& my_path);
int run_atb_compare_cli(const AtbRunArgs& r, const AtbCliArgs& a);

}  // namespace msit::cli
