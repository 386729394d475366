// Which dump.json files an msProbe compare pairs (docs/formats/msprobe-compare.md §3 "Multi-rank"):
// two files, two rank folders, two step folders (ranks by number, paired by position), two
// dump_paths (steps by name), or two graph/pynative splits, each half step by step.
#pragma once

#include <string>
#include <vector>

#include "common/base/result.h"

namespace msit {

struct MsRankPair {
  std::string npu_json, bench_json;  // the two dump.json (or debug.json) files
  std::string stack_json;            // stack.json beside the target's file, "" when none
  // Where the report goes below the output directory ("graph/step0", "step3" or ""), and the
  // report name's suffix msProbe adds for a step folder ("_rank0", "_proc1234"; "" otherwise).
  std::string subdir, suffix;
};

// The pairs of two paths as msProbe pairs them, plus a dump_path (step folders paired by name),
// which msProbe refuses. Errors name both paths and what was found in each. `notes`: rank
// folders without a dump.json that were skipped, steps only one side has.
Result<std::vector<MsRankPair>> ms_rank_pairs(const std::string& target, const std::string& golden,
                                              std::vector<std::string>& notes);

// Whether `path` is something ms_rank_pairs takes on one side: a dump.json / debug.json file,
// or a directory msProbe's layout names (rank, step, dump_path, graph/pynative split).
bool is_msprobe_path(const std::string& path);

}  // namespace msit
