// The msProbe side of `msit-compact compare` (docs/formats/msprobe-compare.md): msProbe's options
// as its users type them (26.x -tp/-gp/-fm/-dm/-cm/-lm/--xlsx, 8.x -i compare.json) and its run.
#pragma once

#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "cli/options.h"
#include "common/resolve/resolve.h"

namespace msit::cli {

struct MsprobeCliArgs {
  bool fuzzy = false;         // -fm
  std::string data_mapping;   // -dm FILE
  std::string cell_mapping;   // -cm [FILE]
  std::string layer_mapping;  // -lm [FILE]
  bool diff_analyze = false;  // -da
  bool xlsx = false;          // --xlsx
  std::string input_json;     // 8.x: -i compare.json
};

struct MsprobeOptions {
  CLI::Option *fuzzy, *data_mapping, *cell_mapping, *layer_mapping, *diff_analyze, *xlsx, *input;
};
MsprobeOptions add_msprobe_options(CLI::App* cmd, MsprobeCliArgs& a);

// 8.x's compare.json (-i): fills the two paths (and the stack file) from it. Throws InputError
// with the file and what is wrong.
struct MsprobeInput {
  std::string npu_path, bench_path, stack_path;
};
MsprobeInput read_msprobe_input_json(const std::string& path);

struct MsprobeRunArgs {
  std::string my_path, golden_path, output;
  std::string stack_path;  // 8.x's stack_path, else stack.json beside the target's dump.json
  unsigned jobs = 1;
  Verbosity verbosity = Verbosity::kNormal;
  bool recompute = false;        // --recompute: opcheck over the forward first divergence's entry
  size_t recompute_before = 3;   // and this many API entries before it
  resolve::CommandLine command;  // the command line the resolver's errors suggest
};
// Runs the msProbe flow; the exit status of compare_exit_status().
// Which of the options that take an optional file were given (with or without one).
struct MsprobeGiven {
  bool cell_mapping = false, layer_mapping = false;
};
int run_msprobe_compare_cli(const MsprobeRunArgs& r, const MsprobeCliArgs& a, MsprobeGiven given);

}  // namespace msit::cli
