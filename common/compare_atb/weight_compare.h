// Weight compare (`-w`, docs/formats/atb-torch.md §3.1 item 1; msit cmp_weight.py): float weights of the golden
// model directory against my quantised model's int8 weights dequantised as
// (weight - weight_offset) * weight_scale, from .safetensors files; one row per weight.
#pragma once

#include <string>
#include <vector>

#include "common/base/result.h"
#include "common/report/report_row.h"

namespace msit::atb {

struct WeightRow {
  std::string weight_name;
  ReportRow row;  // paths, dtype/shape/max/min/mean cells, metrics, reasons, verdict, note
};

struct WeightCompareResult {
  std::vector<WeightRow> rows;
  std::vector<std::string> warnings;
  size_t skipped = 0;  // golden "*weight" tensors without int8 weight + offset + scale in my files
};

// A pair-list builder: golden "*weight" tensors with my int8 weight, offset and scale, evaluated
// by the one evaluator (common/compare/engine.h; jobs workers) and its post-pass (independent
// tensors: error levels, no jumps). Labels: the weight's name (docs/compare.md "Op labels").
// msit_compat: only my first .safetensors file (msit loads one); else every file of my dir.
Result<WeightCompareResult> run_weight_compare(const std::string& golden_dir, const std::string& my_dir,
                                               bool msit_compat, unsigned jobs = 1);

// msit's CSV_CMP_WEIGHT_HEADER columns, then (extra) golden_data_path, my_data_path,
// cmp_fail_reason, verdict, note.
std::string weight_report_csv(const std::vector<WeightRow>& rows, bool extra);

}  // namespace msit::atb
