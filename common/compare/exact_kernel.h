// The state behind the exact metrics and each side's own values: mergeable partial sums of a
// range of element pairs, the scalar reference that defines them, and the Highway kernel that
// computes the same sums at memory speed (docs/compare.md "Exact metrics").
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>

namespace msit::compare_detail {

// Partial sums of the seven metrics over some element pairs (float32 terms, double sums).
// Softmax (KL): per side the running maximum and sum exp(x - max), and the golden-weighted
// sum exp(g - g_max) * (g - m); rescaled when a maximum grows, so any two ranges merge.
struct PairSums {
  uint64_t n = 0;
  bool g_finite = true, m_finite = true, g_zero = true, m_zero = true;
  double dot = 0, gg = 0, mm = 0, d2 = 0, sum_rel = 0, sum_abs = 0;
  float max_rel = 0, max_abs = 0;
  double g_max = -std::numeric_limits<double>::infinity(), g_sum = 0, t = 0;
  double m_max = -std::numeric_limits<double>::infinity(), m_sum = 0;

  // Adds another range's sums (its elements after ours; the order does not matter).
  void merge(const PairSums& o);
};

// One side's own values: max/min (NaN skipped, inf counted), sum, sum of squares of the finite.
struct SideSums {
  uint64_t n = 0, nan = 0, posinf = 0, neginf = 0;
  float max = -std::numeric_limits<float>::infinity(), min = std::numeric_limits<float>::infinity();
  double sum = 0, sq = 0;

  void merge(const SideSums& o);
};

// The definition, one element at a time.
void reference_pairs(const float* g, const float* m, size_t n, PairSums& p);
void reference_side(const float* x, size_t n, SideSums& s);

// The Highway kernel: takes the longest prefix of whole vectors when every element of it is
// finite and merges its sums into p, gs and ms (all required); returns the elements taken
// (0 when the prefix holds an inf or NaN: the reference then takes the range). Its sums differ
// from the reference only in summation order, and its exponentials are float64 (more exact
// than the reference's float32 ones).
size_t simd_pairs(const float* g, const float* m, size_t n, PairSums& p, SideSums& gs, SideSums& ms);

// float16/bfloat16/int8/uint8 to float32 as torch's .float() (exact widenings); returns the
// elements converted (a prefix of whole vectors; 0 for other dtypes or targets).
enum class SimdDecode : uint8_t { kF16, kBF16, kI8, kU8 };
size_t simd_decode(SimdDecode t, const void* src, size_t n, float* out);

// Name of the Highway target the dispatcher picks ("AVX3", "NEON", ...).
const char* exact_kernel_target();

}  // namespace msit::compare_detail
