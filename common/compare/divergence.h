// First divergence (docs/compare.md "First divergence"): each output row's error is set against
// what its inputs and its op type's noise explain; the first op whose error exceeds that by the
// factors below is the first divergence of its token. Gain and noise floor are learned from the
// report itself, per token and op type; each judged output gets its margin and detection floor.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "common/compare/jump_row.h"
#include "common/report/report_row.h"

namespace msit {

// A divergence: an output whose error level L exceeds
//   sqrt(k^2 G P^2 + kNoiseFactor^2 N^2)
// where P is its inputs' error, G its op type's gain (how much of the input error the type's
// other outputs pass on, at least 1) and N the noise floor learned from the token: the larger
// of what the type's other outputs add and the token's median spread. k = kJumpFactor, or
// kJumpFactorSketch for sketch-estimated rows, whose levels carry a ~6% estimation error each
// (1/sqrt(2 x 128) for width-128 sketches) that the output and its input make independently.
// Chosen on bench/divergence_grid.py's tuning grid (docs/divergence-grids.md).
inline constexpr double kJumpFactor = 1.3;
inline constexpr double kJumpFactorSketch = 1.5;
inline constexpr double kNoiseFactor = 2.5;
// An error within this many rounding floors of the row's dtypes is never a divergence (an
// fp16 softmax over large logits amplifies rounding to ~4x the unit roundoff, docs/compare.md).
inline constexpr double kDtypeFactor = 5.0;
// Error levels below this are never a divergence, whatever the jump (fp32 accumulation order).
inline constexpr double kMinErrorFloor = 1e-4;
// The most relative error a healthy kernel adds, in unit roundoffs of the coarsest precision
// kernels compute in (bf16, 2^-8; or the row's own dtype when coarser): each product of two
// operands rounded to it and the rounded result are within (1 + u)^3 - 1 ~ 3u of exact, and
// fp32 accumulation of up to 2^14 terms adds at most 2^14 x 2^-24 = u / 4 more; 3u + u/4 < 4u.
// A learned noise floor above this is an error carried in from upstream, not noise
// (docs/compare.md "First divergence", step 4).
inline constexpr double kMaxKernelNoiseUnits = 4.0;
inline constexpr double kCoarsestComputeRoundoff = 0x1p-8;
// The margin (level over the level at which an output is named) a name needs to be a
// divergence; a name under it is a suspect: printed, and the compare is inconclusive (exit 4),
// not failed (docs/compare.md "Margin, suspects and the detection floor").
inline constexpr double kConfirmMargin = 1.2;
// Rows judged from statistics alone (msProbe statistics and mixed pairs, docs/formats/
// msprobe-compare.md §9) carry a lower bound of their error: how much of it max, min, mean and
// norm show differs from op to op (a softmax or a matmul after an error shows more of it than
// the op that made it). So a statistics name is a suspect, whatever its margin, when an output
// before it in the flow moved: its statistics level over kStatsMovedFactor times the median
// level of the flow's statistics rows up to it (what they move by without an error there). The
// error may have arrived from there; the bound says nothing of how large it was. Chosen on
// bench/divergence_grid_msprobe.py's tuning grids (3 counts noise as moved, 4 to 8 the same).
inline constexpr double kStatsMovedFactor = 5.0;
// A tensor of n elements has an error level that is itself an estimate: for independent element
// errors its relative standard deviation is 1/sqrt(2n) (a chi distribution), 25% for the 8 means
// of a reduction over rows, under 1% from 10,000 elements. The level an output is named at is
// raised by that much (one standard deviation), so that a reduction's small output is not named
// for its sampling noise (clean runs of npgen: means of a residual stream at margins up to 1.17).
inline constexpr double kSampleDeviations = 1.0;

// max(RED, sqrt(2 (1 - cosine))): the relative Euclidean distance, or the distance a cosine
// implies for tensors of equal norm; nullopt when the row has neither (statistics only).
std::optional<double> error_level(const ReportRow& r);
std::optional<double> error_level(const JumpRow& r);
// Rounding level of the coarser dtype of the row's two sides (unit roundoff of the tensors' own
// dtypes: a bf16 GE tensor the report names float32 is bf16 here), at least kMinErrorFloor:
// fp16 2^-11, bf16 2^-8, fp8 2^-4 / 2^-3.
double rounding_floor(const ReportRow& r);
double rounding_floor(const JumpRow& r);

// Which tensor of an op a row is, from the row's typed label (common/report/op_label.h
// row_label: my side's, else the golden side's): `op` names the op, `output` is false only for
// input rows. A row without a label is its own op, judged as an output (a single-tensor file).
struct RowTensor {
  std::string_view op;
  bool output = false;
};
RowTensor row_tensor(const ReportRow& r);
RowTensor row_tensor(const JumpRow& r);
// The op type the rule groups a row's noise by: the label's op type (GE type, FX target, ATB
// op type, torch class), else its op.
std::string_view op_type_of(const ReportRow& r);
std::string_view op_type_of(const JumpRow& r);
// The order the rule walks a token's rows in: by the label's execution order, rows without one
// after them in report order (stable).
std::vector<size_t> walk_order(const std::vector<ReportRow>& rows);

// Median of v without its element at `skip` (v sorted; nullopt when nothing is left).
std::optional<double> median_without(const std::vector<double>& sorted, size_t skip);

// Fills error_level, error_jump (L / sqrt(G P^2 + N^2)), error_floor (that floor), noise_floor
// (N), margin, detection_floor and jump on the rows of one rank report, token by token.
void mark_error_jumps(std::vector<ReportRow>& rows);
// The same on rows kept without their report cells (jump_row.h), the same result field for field.
void mark_error_jumps(std::vector<JumpRow>& rows);
// The same for the rows of one token (indices into rows, any order): the rule needs nothing
// beyond them, so a compare that streams tokens calls this per token.
void mark_token_jumps(std::vector<ReportRow>& rows, std::vector<size_t> token_rows);
void mark_token_jumps(std::vector<JumpRow>& rows, std::vector<size_t> token_rows);

// The token's detection floor: the largest detection_floor of the rows given (one token's),
// the error level above which any output the rule judged would have been named; nullopt when
// it judged none.
std::optional<double> token_detection_floor(const std::vector<const ReportRow*>& token_rows);

}  // namespace msit
