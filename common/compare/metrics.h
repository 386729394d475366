// The seven msit metrics (formats.md 6.4) streamed over element pairs, one tensor's own
// max/min/mean, the sketch estimators (summary.md) and the statistics errors (formats.md 6.7).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

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
// KL needs softmax of both sides: instead of a second pass it keeps, per side, a running
// maximum and the sum of exp(x - max) (rescaled when the maximum grows), plus the golden-
// weighted sum of (g - m); at the end KL = T/S_g - LSE_g + LSE_m.
class ExactAccumulator {
 public:
  void add(const float* golden, const float* mine, size_t n);
  bool golden_finite() const { return g_finite_; }
  bool my_finite() const { return m_finite_; }
  uint64_t count() const { return n_; }
  // Metrics as msit writes them (float32 results widened; cosine in double, rounded to 10).
  MetricValues finish() const;

 private:
  uint64_t n_ = 0;
  bool g_finite_ = true, m_finite_ = true, g_zero_ = true, m_zero_ = true;
  double dot_ = 0, gg_ = 0, mm_ = 0, diff2_ = 0, sum_rel_ = 0, sum_abs_ = 0;
  float max_rel_ = 0, max_abs_ = 0;
  double g_max_ = -1.0 / 0.0, g_sum_ = 0, m_max_ = -1.0 / 0.0, m_sum_ = 0, t_ = 0;
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
  void add(const float* x, size_t n);
  SideStats finish() const;

 private:
  uint64_t n_ = 0, nan_ = 0, posinf_ = 0, neginf_ = 0;
  float max_ = -1.0f / 0.0f, min_ = 1.0f / 0.0f;
  double sum_ = 0, sq_ = 0;
};

// Side values from a summary's statistics, mimicking what msit would have printed.
SideStats side_from_tensor_stats(const TensorStats& s);

// Sketch estimates (summary.md); nullopt when the golden norm is zero and nothing can be said.
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
