// MindIE Torch compare (docs/formats/atb-torch.md §4, msit `debug compare --ops-json`): NPU GE dump ops paired
// with torch modules of a CPU hook dump through mindie_{torch,rt}_op_mapping.json.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/base/result.h"
#include "common/compare/evaluate.h"
#include "common/report/report_row.h"

namespace msit::atb {

struct MindieOp {
  int number = 0;         // 1, 2, ... in rt id order
  std::string fusion_op;  // GE op name the NPU dump file carries
  std::string key;        // torch module key ("layer1.0.relu"): dir root.{key}
};

// Torch keys of a node (4): TorchScript scope text / export node path.
std::string torchscript_key(std::string_view jit_node);
std::string export_key(std::string_view fx_node);

// Ops from the two mapping JSONs; entries whose torch key prefixes another one are dropped.
Result<std::vector<MindieOp>> mindie_ops(std::string_view torch_map, std::string_view rt_map, const std::string& dir);

struct MindieRow {
  MindieOp op;
  ReportRow row;  // metrics and reasons (reasons renamed cpu_data / npu_data)
};

struct MindieResult {
  std::vector<MindieRow> rows;        // by op number
  std::vector<std::string> warnings;  // ops without files, shape mismatches (msit: silent)
  size_t ops = 0;                     // ops the mapping JSONs name
};

// golden: the CPU torch token dir (holds root.* dirs); my: the NPU dump dir.
Result<MindieResult> run_mindie_compare(const std::string& golden, const std::string& my, const std::string& ops_dir,
                                        const EvalOptions& eval);

// comparison_results.csv: Key, the seven metrics, cmp_fail_reason.
std::string mindie_csv(const std::vector<MindieRow>& rows);

}  // namespace msit::atb
