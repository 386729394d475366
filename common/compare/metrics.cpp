// msit's metrics with float32 per-element arithmetic (as torch does) and double accumulation;
// sketch estimators and statistics errors for summaries.
#include "common/compare/metrics.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "common/dtype/decode.h"
#include "common/stats/sketch.h"

namespace msit {
namespace {

constexpr double kCosEps = 1e-8;  // torch.cosine_similarity eps

// Pairs per step of the typed add(): both sides' float32 copies (32 KB) stay in L1.
constexpr size_t kDecodeChunk = 4096;

std::optional<compare_detail::SimdDecode> simd_decodable(DType t) {
  switch (t) {
    case DType::kFloat16: return compare_detail::SimdDecode::kF16;
    case DType::kBFloat16: return compare_detail::SimdDecode::kBF16;
    case DType::kInt8: return compare_detail::SimdDecode::kI8;
    case DType::kUInt8: return compare_detail::SimdDecode::kU8;
    default: return std::nullopt;
  }
}

// The pair kernel where it can take the range, the reference for the rest (tails and ranges
// holding an inf or NaN).
void add_pairs(const float* g, const float* m, size_t n, compare_detail::PairSums& p, compare_detail::SideSums& gs,
               compare_detail::SideSums& ms) {
  const size_t done = compare_detail::simd_pairs(g, m, n, p, gs, ms);
  compare_detail::reference_pairs(g + done, m + done, n - done, p);
  compare_detail::reference_side(g + done, n - done, gs);
  compare_detail::reference_side(m + done, n - done, ms);
}

}  // namespace

double round10(double x) {
  if (!std::isfinite(x)) return x;
  // Cosines are in [-1, 1]: there y = x * 1e10 is within 1e10 * 2^-53 (~1e-6) of the exact
  // product, so unless y sits near a half its nearest integer is the exact product's, and n /
  // 1e10 (both exact doubles, the division correctly rounded) is what strtod makes of the
  // decimal. Near a half, or for larger x, printf decides: a snprintf + strtod per row was ~4%
  // of compare's evaluation of stored pairs.
  if (std::fabs(x) <= 4.0) {
    const double y = x * 1e10;
    const double n = std::nearbyint(y);
    if (std::fabs(std::fabs(y - n) - 0.5) > 1e-4) return n / 1e10;
  }
  char buf[400];
  // glibc printf rounds the exact binary value correctly (ties to even), as CPython's round().
  std::snprintf(buf, sizeof buf, "%.10f", x);
  return std::strtod(buf, nullptr);
}

void ExactAccumulator::add(const float* g, const float* m, size_t n) {
  compare_detail::SideSums unused_g, unused_m;
  add_pairs(g, m, n, s_, unused_g, unused_m);
}

MetricValues ExactAccumulator::finish() const {
  MetricValues v;
  if (s_.n == 0) {  // msit behaviour is undefined (torch raises on max of empty); report nothing
    return v;
  }
  auto f32 = [](double x) { return static_cast<double>(static_cast<float>(x)); };
  if (s_.g_zero && s_.m_zero) {
    v.cosine = 1.0;
  } else {
    double c = s_.dot / (std::max(std::sqrt(s_.gg), kCosEps) * std::max(std::sqrt(s_.mm), kCosEps));
    v.cosine = round10(c);
  }
  v.max_rel = s_.max_rel;
  v.mean_rel = f32(s_.sum_rel / static_cast<double>(s_.n));
  v.max_abs = s_.max_abs;
  v.mean_abs = f32(s_.sum_abs / static_cast<double>(s_.n));
  double lse_g = s_.g_max + std::log(s_.g_sum), lse_m = s_.m_max + std::log(s_.m_sum);
  double kl = f32(s_.t / s_.g_sum - lse_g + lse_m);
  v.kl = kl > 0 ? kl : 0.0;
  if (std::sqrt(static_cast<double>(static_cast<float>(s_.gg))) <= kFltEpsilon) {
    v.red = 0.0;
  } else {
    v.red = f32(std::sqrt(s_.d2 / s_.gg));
  }
  return v;
}

void SideAccumulator::add(const float* x, size_t n) { compare_detail::reference_side(x, n, s_); }

void PairAccumulator::add(const float* g, const float* m, size_t n) {
  add_pairs(g, m, n, exact_.s_, golden_.s_, mine_.s_);
}

bool PairAccumulator::add(DType gt, const std::byte* g, DType mt, const std::byte* m, size_t n) {
  if (!exact_supported(gt) || !exact_supported(mt)) return false;
  // float32 is read in place (aligned: every caller's buffer is); the rest widened per chunk.
  auto in_place = [](DType t, const std::byte* p) {
    return t == DType::kFloat32 && reinterpret_cast<uintptr_t>(p) % alignof(float) == 0;
  };
  const bool g_direct = in_place(gt, g), m_direct = in_place(mt, m);
  if (g_direct && m_direct) {
    add(reinterpret_cast<const float*>(g), reinterpret_cast<const float*>(m), n);
    return true;
  }
  const size_t ge = dtype_info(gt).bits / 8, me = dtype_info(mt).bits / 8;
  const bool count_differing = discrete_dtype(gt) && discrete_dtype(mt);
  std::vector<float> gbuf(g_direct ? 0 : std::min(n, kDecodeChunk)), mbuf(m_direct ? 0 : std::min(n, kDecodeChunk));
  for (size_t off = 0; off < n; off += kDecodeChunk) {
    const size_t len = std::min(kDecodeChunk, n - off);
    const float* gf = reinterpret_cast<const float*>(g + off * ge);
    const float* mf = reinterpret_cast<const float*>(m + off * me);
    if (!g_direct) elements_to_float(gt, g + off * ge, len, gbuf.data()), gf = gbuf.data();
    if (!m_direct) elements_to_float(mt, m + off * me, len, mbuf.data()), mf = mbuf.data();
    add(gf, mf, len);
    // As float32, like the metrics: integers beyond 2^24 that differ by less than their
    // rounding are not counted (indices, masks and counts are far below that).
    if (count_differing)
      for (size_t i = 0; i < len; ++i) differing_ += gf[i] != mf[i];
  }
  return true;
}

void PairAccumulator::merge(const PairAccumulator& o) {
  exact_.merge(o.exact_);
  golden_.merge(o.golden_);
  mine_.merge(o.mine_);
  differing_ += o.differing_;
}

SideStats SideAccumulator::finish() const {
  SideStats s;
  s.count = s_.n;
  s.nan = s_.nan;
  s.posinf = s_.posinf;
  s.neginf = s_.neginf;
  s.l2norm = std::sqrt(s_.sq);
  if (s_.n == 0) return s;
  if (s_.nan > 0) {
    s.max = s.min = s.mean = NAN;
    return s;
  }
  s.max = s_.max;
  s.min = s_.min;
  s.mean = static_cast<double>(static_cast<float>(s_.sum / static_cast<double>(s_.n)));
  return s;
}

SideStats side_from_tensor_stats(const TensorStats& t) {
  SideStats s;
  s.count = t.count;
  s.nan = t.nan_count;
  s.posinf = t.posinf_count;
  s.neginf = t.neginf_count;
  s.l2norm = t.l2norm;
  if (t.count == 0) return s;
  auto f32 = [](double x) { return static_cast<double>(static_cast<float>(x)); };
  if (t.nan_count > 0 || (t.posinf_count > 0 && t.neginf_count > 0)) {
    s.mean = NAN;
  } else if (t.posinf_count > 0) {
    s.mean = INFINITY;
  } else if (t.neginf_count > 0) {
    s.mean = -INFINITY;
  } else if (t.mean) {
    s.mean = f32(*t.mean);
  }
  if (t.nan_count > 0) {
    s.max = s.min = NAN;
    return s;
  }
  s.max = t.posinf_count > 0 ? INFINITY : (t.max ? std::optional<double>(f32(*t.max)) : std::nullopt);
  s.min = t.neginf_count > 0 ? -INFINITY : (t.min ? std::optional<double>(f32(*t.min)) : std::nullopt);
  if (!t.max && t.posinf_count == 0 && t.neginf_count > 0) s.max = -INFINITY;  // all -inf
  if (!t.min && t.neginf_count == 0 && t.posinf_count > 0) s.min = INFINITY;   // all +inf
  return s;
}

SketchEstimate estimate_from_sketches(const std::vector<double>& g, const std::vector<double>& m, double gl2,
                                      double ml2, uint64_t count) {
  SketchEstimate e;
  if (g.size() != m.size()) return e;
  double d2 = 0;
  for (size_t j = 0; j < g.size(); ++j) {
    double d = m[j] - g[j];
    d2 += d * d;
  }
  e.rms_error = count ? std::sqrt(d2 / static_cast<double>(count)) : 0.0;
  e.red = gl2 <= kFltEpsilon ? 0.0 : std::sqrt(d2) / gl2;
  if (gl2 == 0 && ml2 == 0) {
    e.cosine = 1.0;
  } else if (gl2 == 0 || ml2 == 0) {
    e.cosine = 0.0;
  } else {
    double c = (ml2 * ml2 + gl2 * gl2 - d2) / (2 * ml2 * gl2);
    e.cosine = round10(std::clamp(c, -1.0, 1.0));
  }
  return e;
}

std::vector<double> sketch_of_values(const std::vector<double>& values, uint32_t width, uint64_t seed) {
  std::vector<double> buckets(width, 0.0);
  if (width == 0 || (width & (width - 1)) != 0) return buckets;
  const SketchTables& t = sketch_tables(seed);
  for (size_t i = 0; i < values.size(); ++i) {
    if (std::isfinite(values[i])) sketch_add_reference(buckets, t, i, values[i]);
  }
  return buckets;
}

StatError stat_error(std::optional<double> g, std::optional<double> m) {
  StatError e;
  if (!g || !m) return e;
  float gf = static_cast<float>(*g), mf = static_cast<float>(*m);
  float a = std::fabs(mf - gf);
  e.abs = a;
  e.rel = static_cast<double>(a / std::max(std::fabs(gf), kFltEpsilon));
  return e;
}

bool exact_supported(DType t) {
  DTypeKind k = dtype_info(t).kind;
  return decodable_as_double(t) && k != DTypeKind::kComplex && k != DTypeKind::kPacked && k != DTypeKind::kOpaque &&
         dtype_info(t).bits % 8 == 0 && dtype_info(t).bits > 0;
}

bool elements_to_float(DType t, const std::byte* src, size_t n, float* out) {
  switch (t) {
    case DType::kFloat32: std::memcpy(out, src, n * sizeof(float)); return true;
    case DType::kFloat16:
    case DType::kBFloat16:
      for (size_t i = compare_detail::simd_decode(*simd_decodable(t), src, n, out); i < n; ++i) {
        uint16_t b;
        std::memcpy(&b, src + 2 * i, 2);
        out[i] = t == DType::kFloat16 ? fp16_to_float(b) : bf16_to_float(b);
      }
      return true;
    default: break;
  }
  if (!exact_supported(t)) return false;
  size_t es = dtype_info(t).bits / 8;
  if (auto simd = simd_decodable(t)) {  // int8/uint8: the prefix of whole vectors
    const size_t done = compare_detail::simd_decode(*simd, src, n, out);
    src += done * es, out += done, n -= done;
  }
  if (const auto* table = fp8_table(t)) {
    for (size_t i = 0; i < n; ++i) out[i] = (*table)[static_cast<uint8_t>(src[i])];
    return true;
  }
  for (size_t i = 0; i < n; ++i) out[i] = static_cast<float>(decode_element(t, src + i * es));
  return true;
}

Verdict verdict_exact(double cosine, double max_abs) {
  // msprobe: cosine < 0.99 with max abs err > 0.001, or cosine < 0.9, or max abs err > 1.
  bool fail = (cosine < 0.99 && max_abs > 0.001) || cosine < 0.9 || max_abs > 1.0;
  return fail ? Verdict::kFail : Verdict::kPass;
}

Verdict verdict_estimated(std::optional<double> cosine, double max_abs_lb) {
  if (!cosine) return max_abs_lb > 1.0 ? Verdict::kFail : Verdict::kInconclusive;
  return verdict_exact(*cosine, max_abs_lb);
}

}  // namespace msit
