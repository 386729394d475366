// Error-jump localisation (docs/compare.md "First divergence"): each output row's error is set
// against the error already present before it; the first op whose output error jumps by
// kJumpFactor above that floor is the first divergence of its token.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "common/report/report_row.h"

namespace msit {

// A jump: an output's error level above kJumpFactor times its floor. Rounding once more
// adds ~1.4x to an error already at the rounding level (sqrt(2)); a softmax over rows with a
// dominant element turns its input's absolute error into relative error: the largest jump in
// 20 noise-only msit-dumpgen models (24 ops, 2 tokens) was 3.9x (docs/compare.md). Sketch
// estimates add up to ~12%.
inline constexpr double kJumpFactor = 5.0;
// Error levels below this are never a divergence, whatever the jump (fp32 accumulation order).
inline constexpr double kMinErrorFloor = 1e-4;

// max(RED, sqrt(2 (1 - cosine))): the relative Euclidean distance, or the distance a cosine
// implies for tensors of equal norm; nullopt when the row has neither (statistics only).
std::optional<double> error_level(const ReportRow& r);
// Rounding level of the coarser dtype of the row's two sides (unit roundoff), at least
// kMinErrorFloor: fp16 2^-11, bf16 2^-8, fp8 2^-4 / 2^-3.
double rounding_floor(const ReportRow& r);

// Which tensor of an op a row is, from its my_data_path cell (GE `file,inputs,k`, FX
// `node.INPUT.k.ts.npy`); `op` is the path without the tensor part.
struct RowTensor {
  std::string_view op;
  bool output = false;
};
RowTensor row_tensor(const ReportRow& r);

// Fills error_level, error_jump and jump on the rows of one rank report (report order =
// execution order). The floor of an output row is its rounding floor or, when larger, the
// largest error level of its op's input rows in the report; for an op without input rows,
// the largest error level of every earlier row of its token.
void mark_error_jumps(std::vector<ReportRow>& rows);

}  // namespace msit
