// The seven msit metrics (docs/formats/report.md §4) streamed over element pairs, one tensor's own
// max/min/mean, the sketch estimators (docs/formats/summary.md §5) and the statistics errors (docs/formats/report.md
// §7).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/compare/exact_kernel.h"
#include "common/dtype/dtype.h"
#include "common/report/verdict.h"
#include "common/stats/tensor_stats.h"

namespace msit {

inline constexpr float kFltEpsilon = 1.1920928955078125e-07f;  // FLT_EPSILON, torch.finfo(float).eps

struct MetricValues {
  std::optional<double> cosine, max_rel, mean_rel, max_abs, mean_abs, kl, red;
};

// Python round(x, 10): decimal round-half-even of the exact binary value.
double round10(double x);

// All seven metrics in one streaming pass over float32 pairs, with double accumulation.
// KL needs softmax of both sides: instead of a second pass over the tensor it keeps, per side,
// a running maximum and the sum of exp(x - max) (rescaled when the maximum grows), plus the
// golden-weighted sum of (g - m); at the end KL = T/S_g - LSE_g + LSE_m. The sums are the
// Highway kernel's (common/compare/exact_kernel.h); partial accumulators merge.
class ExactAccumulator {
 public:
  ExactAccumulator() = default;
  explicit ExactAccumulator(const compare_detail::PairSums& s) : s_(s) {}
  void add(const float* golden, const float* mine, size_t n);
  void merge(const ExactAccumulator& o) { s_.merge(o.s_); }
  bool golden_finite() const { return s_.g_finite; }
  bool my_finite() const { return s_.m_finite; }
  uint64_t count() const { return s_.n; }
  const compare_detail::PairSums& sums() const { return s_; }
  // Metrics as msit writes them (float32 results widened; cosine in double, rounded to 10).
  MetricValues finish() const;

 private:
  friend class PairAccumulator;
  compare_detail::PairSums s_;
};

// One tensor's values as msit prints them (max/min/mean of float32 data; NaN propagates),
// plus what the extra columns need (l2norm, non-finite counts).
struct SideStats {
  uint64_t count = 0;
  uint64_t nan = 0, posinf = 0, neginf = 0;
  std::optional<double> max, min, mean;  // empty when count == 0
  std::optional<double> l2norm;          // over finite elements
};

class SideAccumulator {
 public:
  SideAccumulator() = default;
  explicit SideAccumulator(const compare_detail::SideSums& s) : s_(s) {}
  void add(const float* x, size_t n);
  void merge(const SideAccumulator& o) { s_.merge(o.s_); }
  const compare_detail::SideSums& sums() const { return s_; }
  SideStats finish() const;

 private:
  friend class PairAccumulator;
  compare_detail::SideSums s_;
};

// Both sides' values and the metrics of equally long tensors in one pass: what every raw
// compare (GE/FX, ATB/torch, concatenated ranks, rope, weights) feeds its element pairs to.
class PairAccumulator {
 public:
  void add(const float* golden, const float* mine, size_t n);
  // Stored elements of any dtype elements_to_float() takes (host-endian); float16, bfloat16
  // and int8/uint8 are widened in L1-sized chunks on the way. False for dtypes without a float value.
  bool add(DType golden_type, const std::byte* golden, DType my_type, const std::byte* mine, size_t n);
  void merge(const PairAccumulator& o);
  const ExactAccumulator& exact() const { return exact_; }
  const SideAccumulator& golden() const { return golden_; }
  const SideAccumulator& mine() const { return mine_; }
  // Elements whose values differ, counted when both dtypes are bool or integer (the flips of a
  // discrete output, docs/compare.md "Discrete outputs"); 0 otherwise.
  uint64_t differing() const { return differing_; }

 private:
  ExactAccumulator exact_;
  SideAccumulator golden_, mine_;
  uint64_t differing_ = 0;
};

// Converts n host-endian elements of dtype t to float32 as torch's .float() would.
// Returns false for dtypes that have no float value (complex, packed, opaque).
bool elements_to_float(DType t, const std::byte* src, size_t n, float* out);
bool exact_supported(DType t);

// Side values from a summary's statistics, mimicking what msit would have printed.
SideStats side_from_tensor_stats(const TensorStats& s);

// Sketch estimates (docs/formats/summary.md §5); nullopt when the golden norm is zero and nothing can be said.
struct SketchEstimate {
  std::optional<double> cosine, red, rms_error;
};
SketchEstimate estimate_from_sketches(const std::vector<double>& golden_sketch, const std::vector<double>& my_sketch,
                                      double golden_l2, double my_l2, uint64_t count);
// Sketch of exact values (for one side with `values`, the other with a sketch).
std::vector<double> sketch_of_values(const std::vector<double>& values, uint32_t width, uint64_t seed);

// 6.7: absolute |m - g| and relative |m - g| / max(|g|, eps), in float32.
struct StatError {
  std::optional<double> abs, rel;
};
StatError stat_error(std::optional<double> golden, std::optional<double> mine);

// Verdict (docs/compare.md): msprobe thresholds on exact metrics; for estimates the max
// absolute error is replaced by a lower bound. Without a cosine (min/max or statistics only)
// nothing below the lower bound can be ruled out: inconclusive, never pass.
Verdict verdict_exact(double cosine, double max_abs);
Verdict verdict_estimated(std::optional<double> cosine, double max_abs_lower_bound);

}  // namespace msit
