// Rounding of an output dtype and the error bounds' building blocks (docs/opcheck.md "Bounds").
#include "common/opcheck/bounds.h"

#include <cmath>
#include <limits>

namespace msit::opcheck {
namespace {

struct FloatFormat {
  int p;     // explicit mantissa bits
  int emin;  // exponent of the smallest normal
  int emax;  // exponent of the largest finite
};

bool float_format(DType t, FloatFormat& f) {
  switch (t) {
    case DType::kFloat16: f = {10, -14, 15}; return true;
    case DType::kBFloat16: f = {7, -126, 127}; return true;
    case DType::kFloat32: f = {23, -126, 127}; return true;
    case DType::kFloat64: f = {52, -1022, 1023}; return true;
    case DType::kFloat8E5M2: f = {2, -14, 15}; return true;
    default: return false;
  }
}

double int_max(DType t) {
  switch (t) {
    case DType::kInt8: return 127;
    case DType::kUInt8: return 255;
    case DType::kInt16: return 32767;
    case DType::kUInt16: return 65535;
    case DType::kInt32: return 2147483647.0;
    case DType::kUInt32: return 4294967295.0;
    case DType::kInt64: return 9223372036854775807.0;
    case DType::kUInt64: return 18446744073709551615.0;
    default: return 1;
  }
}

bool is_unsigned(DType t) { return dtype_info(t).kind == DTypeKind::kUnsigned; }

}  // namespace

double ulp_of(double x, DType t) {
  FloatFormat f{};
  if (!float_format(t, f)) return 1;
  x = std::fabs(x);
  int e = f.emin;
  if (x >= std::ldexp(1.0, f.emin) && std::isfinite(x)) e = std::ilogb(x);
  if (e > f.emax) e = f.emax;
  return std::ldexp(1.0, e - f.p);
}

double round_to(double x, DType t) {
  FloatFormat f{};
  if (float_format(t, f)) {
    if (!std::isfinite(x) || x == 0) return x;
    const double q = ulp_of(x, t);
    const double r = std::nearbyint(x / q) * q;  // the default rounding mode: to nearest even
    const double max_finite = std::ldexp(2.0 - std::ldexp(1.0, -f.p), f.emax);
    if (std::fabs(r) > max_finite) return std::copysign(HUGE_VAL, x);
    return r;
  }
  if (t == DType::kBool) return x != 0 && !std::isnan(x) ? 1 : 0;
  if (std::isnan(x)) return 0;
  const double hi = int_max(t);
  const double lo = is_unsigned(t) ? 0 : -hi - 1;
  return std::fmin(std::fmax(std::trunc(x), lo), hi);
}

double overflow_threshold(DType t) {
  FloatFormat f{};
  if (!float_format(t, f) || t == DType::kFloat64) return HUGE_VAL;
  return std::ldexp(2.0 - std::ldexp(1.0, -(f.p + 1)), f.emax);
}

double compute_unit(DType t) { return t == DType::kFloat64 ? std::ldexp(1.0, -53) : std::ldexp(1.0, -24); }

double gamma_k(uint64_t k, double u) {
  const double ku = static_cast<double>(k) * u;
  return ku >= 1 ? HUGE_VAL : ku / (1 - ku);
}

}  // namespace msit::opcheck
