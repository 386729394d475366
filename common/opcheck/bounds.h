// The output dtype's rounding (ulp, round-to-nearest-even, overflow) and what a correct kernel
// of that dtype may be off, per op class; the derivation is docs/opcheck.md "Bounds".
#pragma once

#include <cstdint>

#include "common/dtype/dtype.h"

namespace msit::opcheck {

// One unit in the last place of dtype t at |x| (the spacing of t's values around x; the
// smallest subnormal spacing near 0). Integer and bool dtypes: 1.
double ulp_of(double x, DType t);
// x rounded to t: floats to nearest even with t's subnormals and overflow to +-inf; integers
// toward zero, saturated at t's range (NaN -> 0); bool: x != 0.
double round_to(double x, DType t);
// The smallest magnitude that rounds to infinity in t (+inf for integer dtypes and float64).
double overflow_threshold(DType t);
// Unit roundoff of the precision a correct kernel computes in for an output of dtype t:
// float32 (2^-24) for float16, bfloat16 and float32 outputs, float64 (2^-53) for float64.
double compute_unit(DType t);

// Total bound of one element: acc (the kernel's error before the final rounding) plus half an
// ulp of t at |ref| + acc (the final rounding, taken at the top of the range acc allows).
inline double with_rounding(double ref, double acc, DType t) {
  const double mag = (ref < 0 ? -ref : ref) + acc;
  return acc + 0.5 * ulp_of(mag, t);
}

// gamma_K = K u / (1 - K u): a sum of K products in precision u is within gamma_K times the
// sum of the terms' magnitudes (docs/opcheck.md). Saturates at +inf when K u >= 1.
double gamma_k(uint64_t k, double u);

}  // namespace msit::opcheck
