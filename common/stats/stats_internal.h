// Internals shared by the reference and the SIMD reducers: mergeable moments, the sketch state
// the kernels write into, and the dispatched SIMD kernel entry point.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>

namespace msit::stats_detail {

// Statistics of the finite elements of some range, mergeable across ranges (Chan et al.), so
// each chunk can be reduced two-pass in cache and the variance never suffers from
// sum-of-squares cancellation.
struct Moments {
  uint64_t n = 0;   // finite elements
  double sum = 0;   // plain sum, reported as `sum` and used for `mean`
  double mean = 0;  // running mean of the chunks (for the variance update only)
  double m2 = 0;    // sum of squared deviations from the mean
  double min = std::numeric_limits<double>::infinity();
  double max = -std::numeric_limits<double>::infinity();
  uint64_t nan = 0, posinf = 0, neginf = 0, zero = 0;

  // Adds a chunk of n_c finite elements with sum s_c and deviation sum m2_c (about s_c / n_c).
  void add_chunk(uint64_t n_c, double s_c, double m2_c) {
    if (n_c == 0) return;
    const double mean_c = s_c / static_cast<double>(n_c);
    const uint64_t total = n + n_c;
    const double delta = mean_c - mean;
    const double nb = static_cast<double>(n_c);
    const double na = static_cast<double>(n);
    mean += delta * nb / static_cast<double>(total);
    m2 += m2_c + delta * delta * na * nb / static_cast<double>(total);
    sum += s_c;
    n = total;
  }
};

// What a kernel needs to add finite values to the sketch. `acc` has 2 * width doubles: block q
// with rotation r adds element j at acc[r + j] (no wrap-around); bucket k is acc[k] + acc[k + width].
struct SketchState {
  uint32_t width = 0;
  uint64_t seed = 0;
  const uint64_t* words = nullptr;  // SketchTables::words (T0..T3, 1024 words each)
  double* acc = nullptr;
};

inline uint64_t high_sign_bits(const uint64_t* words, uint64_t i) {
  uint64_t bit = 0;
  for (uint64_t k = 1; k < 4; ++k) {
    const uint64_t b = (i >> (16 * k)) & 0xffff;
    bit ^= words[k * 1024 + b / 64] >> (b % 64);
  }
  return bit & 1;
}

enum class SimdSource : uint8_t { kF16, kBF16, kF32, kF64 };

// Reduces the longest prefix of `n` elements the SIMD kernel can take (whole sketch blocks
// when `sk` is set, whole vectors otherwise), starting at logical index `start` (a multiple
// of the sketch width when `sk` is set). Merges into `out`; returns the elements consumed.
size_t simd_reduce(SimdSource src, const void* data, size_t n, uint64_t start, const SketchState* sk, Moments* out);

// Name of the Highway target the dispatcher picks on this CPU ("AVX3", "NEON", ...).
const char* simd_target_name();

}  // namespace msit::stats_detail
