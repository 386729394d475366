// Highway kernel of the exact metrics (compiled once per SIMD target, dispatched at run time):
// per chunk of pairs one pass for every sum and the chunk maxima, then a second pass over the
// same chunk (in L1) for the softmax exponentials about the running maxima. Design notes:
// docs/compare.md "Exact metrics".
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "common/compare/exact_kernel_simd.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "common/compare/exact_kernel.h"
#include "common/dtype/decode_simd-inl.h"
#include "hwy/contrib/math/math-inl.h"

HWY_BEFORE_NAMESPACE();
namespace msit::compare_detail {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Pairs per chunk: both sides of a chunk (16 KB) are read again by the softmax pass.
constexpr size_t kChunk = 2048;

#if HWY_TARGET != HWY_SCALAR && HWY_HAVE_FLOAT64

// Vector accumulators of one call: double sums of float32 terms (each product of two floats
// is exact in double, so only the summation order differs from the reference).
template <class D>
struct Acc {
  using DD = hn::Repartition<double, D>;
  hn::Vec<DD> dot, gg, mm, d2, rel, abs, gsum, msum;  // sums
  hn::Vec<D> max_rel, max_abs, gmax, gmin, mmax, mmin;
  hn::Vec<DD> es_g, es_t, es_m;  // softmax sums about the running maxima
  double g_max, m_max;           // running maxima (float values)
  double g_carry, t_carry, m_carry;

  Acc(D d, const PairSums& p) {
    const DD dd;
    dot = gg = mm = d2 = rel = abs = gsum = msum = es_g = es_t = es_m = hn::Zero(dd);
    max_rel = max_abs = hn::Zero(d);
    gmax = mmax = hn::Set(d, -std::numeric_limits<float>::infinity());
    gmin = mmin = hn::Set(d, std::numeric_limits<float>::infinity());
    g_max = p.g_max, m_max = p.m_max;
    g_carry = p.g_sum, t_carry = p.t, m_carry = p.m_sum;
  }
};

template <class D>
HWY_INLINE hn::Vec<hn::Repartition<double, D>> Lo(D /*d*/, hn::Vec<D> v) {
  return hn::PromoteTo(hn::Repartition<double, D>(), hn::LowerHalf(hn::Half<D>(), v));
}
template <class D>
HWY_INLINE hn::Vec<hn::Repartition<double, D>> Hi(D /*d*/, hn::Vec<D> v) {
  return hn::PromoteTo(hn::Repartition<double, D>(), hn::UpperHalf(hn::Half<D>(), v));
}

// Lanes pick either zero on a tie of -0.0 and +0.0; the reference keeps the first in element
// order, and the report prints the sign, so a zero extreme takes the first zero's sign.
float FirstZeroSign(const float* x, size_t n, float extreme) {
  if (extreme != 0.0f) return extreme;
  for (size_t i = 0; i < n; ++i) {
    if (x[i] == 0.0f) return x[i];
  }
  return extreme;
}

// Pass 1: every sum of the chunk; returns the chunk maxima of both sides in cg / cm, minima in
// ng / nm.
template <class D>
HWY_INLINE void SumsPass(D d, const float* HWY_RESTRICT g, const float* HWY_RESTRICT m, size_t len, Acc<D>& a,
                         hn::Vec<D>& cg, hn::Vec<D>& cm, hn::Vec<D>& ng, hn::Vec<D>& nm) {
  const size_t N = hn::Lanes(d);
  const auto eps = hn::Set(d, 1.1920928955078125e-07f);  // msit's mask |g| > FLT_EPSILON
  const auto one = hn::Set(d, 1.0f);
  for (size_t i = 0; i < len; i += N) {
    const auto x = hn::LoadU(d, g + i), y = hn::LoadU(d, m + i);
    const auto xl = Lo(d, x), xh = Hi(d, x), yl = Lo(d, y), yh = Hi(d, y);
    a.dot = hn::MulAdd(xh, yh, hn::MulAdd(xl, yl, a.dot));
    a.gg = hn::MulAdd(xh, xh, hn::MulAdd(xl, xl, a.gg));
    a.mm = hn::MulAdd(yh, yh, hn::MulAdd(yl, yl, a.mm));
    a.gsum = hn::Add(hn::Add(a.gsum, xl), xh);
    a.msum = hn::Add(hn::Add(a.msum, yl), yh);
    const auto diff = hn::Sub(y, x);  // float32, as torch
    const auto dl = Lo(d, diff), dh = Hi(d, diff);
    a.d2 = hn::MulAdd(dh, dh, hn::MulAdd(dl, dl, a.d2));
    const auto keep = hn::Gt(hn::Abs(x), eps);
    const auto rel = hn::IfThenElseZero(keep, hn::Abs(hn::Sub(hn::Div(y, x), one)));
    const auto ad = hn::IfThenElseZero(keep, hn::Abs(diff));
    a.max_rel = hn::Max(a.max_rel, rel);
    a.max_abs = hn::Max(a.max_abs, ad);
    a.rel = hn::Add(hn::Add(a.rel, Lo(d, rel)), Hi(d, rel));
    a.abs = hn::Add(hn::Add(a.abs, Lo(d, ad)), Hi(d, ad));
    cg = hn::Max(cg, x);
    cm = hn::Max(cm, y);
    ng = hn::Min(ng, x);
    nm = hn::Min(nm, y);
  }
}

// exp(x) for x <= 0 in double, to within ~1 ulp like Highway's Exp but with about half its
// work: x = k ln2/128 + r, |r| <= ln2/256, exp(x) = 2^(k/128) exp(r) with 2^(j/128) from a
// 1 KB table (stored minus j << 45, so adding k << 45 sets the exponent too) and exp(r) - 1 by
// its Taylor polynomial of degree 5 (truncation < 6e-19). Below -708 it returns 0, which a
// softmax sum holding exp(0) = 1 cannot tell from the true value (< 4e-308). kClamp = false
// when the caller knows every x >= -708 (most chunks): two operations less.
constexpr int kExpTableBits = 7;
constexpr double kExpLowest = -708.0;
struct ExpTable {
  int64_t bits[1 << kExpTableBits];
  ExpTable() {
    for (int j = 0; j < (1 << kExpTableBits); ++j) {
      const double v = std::exp2(static_cast<double>(j) / (1 << kExpTableBits));
      int64_t b;
      std::memcpy(&b, &v, sizeof b);
      bits[j] = b - (static_cast<int64_t>(j) << (52 - kExpTableBits));
    }
  }
};

template <bool kClamp, class DD>
HWY_INLINE hn::Vec<DD> ExpNonPositive(DD dd, const int64_t* HWY_RESTRICT table, hn::Vec<DD> x) {
  const hn::RebindToSigned<DD> di;
  const auto shift = hn::Set(dd, 6755399441055744.0);  // 1.5 * 2^52: adding it rounds to an integer
  const auto lo = hn::Set(dd, kExpLowest);
  const auto xc = kClamp ? hn::Max(x, lo) : x;
  const auto t = hn::MulAdd(xc, hn::Set(dd, 184.66496523378731), shift);  // 128 / ln2
  const auto k = hn::Sub(t, shift);
  auto r = hn::MulAdd(k, hn::Set(dd, -0.0054152123481245725), xc);  // ln2 / 128: nearest double
  r = hn::MulAdd(k, hn::Set(dd, -1.8117553233174215e-19), r);       // and the rest (exact products in FMA)
  const auto ki = hn::BitCast(di, t);
  const auto idx = hn::And(ki, hn::Set(di, (1 << kExpTableBits) - 1));
  const auto scale = hn::BitCast(dd, hn::Add(hn::GatherIndex(di, table, idx), hn::ShiftLeft<52 - kExpTableBits>(ki)));
  const auto r2 = hn::Mul(r, r);
  const auto a = hn::MulAdd(r, hn::Set(dd, 1.0 / 6), hn::Set(dd, 0.5));
  const auto b = hn::MulAdd(r, hn::Set(dd, 1.0 / 120), hn::Set(dd, 1.0 / 24));
  const auto p = hn::MulAdd(r2, hn::MulAdd(r2, b, a), r);  // exp(r) - 1
  const auto e = hn::MulAdd(scale, p, scale);
  return kClamp ? hn::IfThenZeroElse(hn::Lt(x, lo), e) : e;
}

// Pass 2: exp(g - g_max), exp(g - g_max) * (g - m) and exp(m - m_max), in double (exact
// differences of floats, ExpNonPositive within ~1 ulp), so the KL difference of log-sum-exps
// does not inherit float32 rounding.
template <bool kClamp, class D>
HWY_INLINE void SoftmaxPass(D d, const float* HWY_RESTRICT g, const float* HWY_RESTRICT m, size_t len, Acc<D>& a) {
  static const ExpTable table;
  const hn::Repartition<double, D> dd;
  const size_t N = hn::Lanes(d);
  const auto gmax = hn::Set(dd, a.g_max), mmax = hn::Set(dd, a.m_max);
  for (size_t i = 0; i < len; i += N) {
    const auto x = hn::LoadU(d, g + i), y = hn::LoadU(d, m + i);
    const auto xl = Lo(d, x), xh = Hi(d, x), yl = Lo(d, y), yh = Hi(d, y);
    const auto el = ExpNonPositive<kClamp>(dd, table.bits, hn::Sub(xl, gmax));
    const auto eh = ExpNonPositive<kClamp>(dd, table.bits, hn::Sub(xh, gmax));
    a.es_g = hn::Add(hn::Add(a.es_g, el), eh);
    a.es_t = hn::MulAdd(eh, hn::Sub(xh, yh), hn::MulAdd(el, hn::Sub(xl, yl), a.es_t));
    a.es_m = hn::Add(hn::Add(a.es_m, ExpNonPositive<kClamp>(dd, table.bits, hn::Sub(yl, mmax))),
                     ExpNonPositive<kClamp>(dd, table.bits, hn::Sub(yh, mmax)));
  }
}

// Moves a side's softmax sums to a larger maximum.
template <class DD>
HWY_INLINE void Rescale(DD dd, double& max, double to, double& carry, hn::Vec<DD>& sum, double* t_carry,
                        hn::Vec<DD>* t_sum) {
  if (!(to > max)) return;
  const double s = std::exp(max - to);  // 0 while nothing was summed (max = -inf)
  carry *= s;
  sum = hn::Mul(sum, hn::Set(dd, s));
  if (t_sum) {
    *t_carry *= s;
    *t_sum = hn::Mul(*t_sum, hn::Set(dd, s));
  }
  max = to;
}

size_t PairsImpl(const float* HWY_RESTRICT g, const float* HWY_RESTRICT m, size_t n, PairSums* ps, SideSums* gs,
                 SideSums* ms) {
  using D = hn::ScalableTag<float>;
  const D d;
  const hn::Repartition<double, D> dd;
  const size_t body = n / hn::Lanes(d) * hn::Lanes(d);
  if (body == 0) return 0;
  // The reference stops the softmax sums at the first inf/NaN (the metrics are dropped then).
  const bool softmax = ps->g_finite && ps->m_finite;
  Acc<D> a(d, *ps);
  for (size_t c = 0; c < body; c += kChunk) {
    const size_t len = std::min(kChunk, body - c);
    auto cg = hn::Set(d, -std::numeric_limits<float>::infinity()), cm = cg;
    auto ng = hn::Set(d, std::numeric_limits<float>::infinity()), nm = ng;
    SumsPass(d, g + c, m + c, len, a, cg, cm, ng, nm);
    a.gmax = hn::Max(a.gmax, cg);
    a.mmax = hn::Max(a.mmax, cm);
    a.gmin = hn::Min(a.gmin, ng);
    a.mmin = hn::Min(a.mmin, nm);
    if (!softmax) continue;
    Rescale(dd, a.g_max, hn::GetLane(hn::MaxOfLanes(d, cg)), a.g_carry, a.es_g, &a.t_carry, &a.es_t);
    Rescale(dd, a.m_max, hn::GetLane(hn::MaxOfLanes(d, cm)), a.m_carry, a.es_m, nullptr, nullptr);
    // Every argument x - max >= -708 (NaN compares false: the clamped path, results dropped).
    const bool in_range = double{hn::GetLane(hn::MinOfLanes(d, ng))} - a.g_max >= kExpLowest &&
                          double{hn::GetLane(hn::MinOfLanes(d, nm))} - a.m_max >= kExpLowest;
    if (in_range) SoftmaxPass<false>(d, g + c, m + c, len, a);
    else SoftmaxPass<true>(d, g + c, m + c, len, a);
  }
  auto sum = [&](hn::Vec<hn::Repartition<double, D>> v) { return hn::GetLane(hn::SumOfLanes(dd, v)); };
  const double gg = sum(a.gg), mm = sum(a.mm);
  // A square sum is finite exactly when every element is (a float's square fits a double).
  if (!std::isfinite(gg) || !std::isfinite(mm)) return 0;
  ps->n += body;
  ps->g_zero = ps->g_zero && gg == 0;
  ps->m_zero = ps->m_zero && mm == 0;
  ps->dot += sum(a.dot);
  ps->gg += gg;
  ps->mm += mm;
  ps->d2 += sum(a.d2);
  ps->sum_rel += sum(a.rel);
  ps->sum_abs += sum(a.abs);
  ps->max_rel = std::max(ps->max_rel, hn::GetLane(hn::MaxOfLanes(d, a.max_rel)));
  ps->max_abs = std::max(ps->max_abs, hn::GetLane(hn::MaxOfLanes(d, a.max_abs)));
  if (softmax) {
    ps->g_max = a.g_max;
    ps->m_max = a.m_max;
    ps->g_sum = a.g_carry + sum(a.es_g);
    ps->t = a.t_carry + sum(a.es_t);
    ps->m_sum = a.m_carry + sum(a.es_m);
  }
  for (SideSums* s : {gs, ms}) {
    const bool golden = s == gs;
    const float* x = golden ? g : m;
    s->n += body;
    // std::max/min keep the earlier range's value on a tie, as the reference does.
    s->max = std::max(s->max, FirstZeroSign(x, body, hn::GetLane(hn::MaxOfLanes(d, golden ? a.gmax : a.mmax))));
    s->min = std::min(s->min, FirstZeroSign(x, body, hn::GetLane(hn::MinOfLanes(d, golden ? a.gmin : a.mmin))));
    s->sum += sum(golden ? a.gsum : a.msum);
    s->sq += golden ? gg : mm;
  }
  return body;
}

template <class Src>
size_t DecodeImpl(const void* src, size_t n, float* out) {
  const hn::ScalableTag<float> d;
  const size_t N = hn::Lanes(d);
  const auto* p = static_cast<const uint8_t*>(src);
  size_t i = 0;
  for (; i + N <= n; i += N) hn::StoreU(Src::Load(d, p + i * Src::kBytes), d, out + i);
  return i;
}

size_t DecodeAny(SimdDecode t, const void* src, size_t n, float* out) {
  namespace ds = dtype_simd::HWY_NAMESPACE;
  switch (t) {
    case SimdDecode::kF16: return DecodeImpl<ds::SrcF16>(src, n, out);
    case SimdDecode::kBF16: return DecodeImpl<ds::SrcBF16>(src, n, out);
    case SimdDecode::kI8: return DecodeImpl<ds::SrcI8>(src, n, out);
    case SimdDecode::kU8: return DecodeImpl<ds::SrcU8>(src, n, out);
  }
  return 0;
}

#else  // one-lane vectors cannot be halved for widening: the scalar reference takes it all

size_t PairsImpl(const float*, const float*, size_t, PairSums*, SideSums*, SideSums*) { return 0; }
size_t DecodeAny(SimdDecode, const void*, size_t, float*) { return 0; }

#endif

const char* TargetName() { return hwy::TargetName(HWY_TARGET); }

}  // namespace HWY_NAMESPACE
}  // namespace msit::compare_detail
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace msit::compare_detail {

HWY_EXPORT(PairsImpl);
HWY_EXPORT(DecodeAny);
HWY_EXPORT(TargetName);

size_t simd_pairs(const float* g, const float* m, size_t n, PairSums& p, SideSums& gs, SideSums& ms) {
  return HWY_DYNAMIC_DISPATCH(PairsImpl)(g, m, n, &p, &gs, &ms);
}

size_t simd_decode(SimdDecode t, const void* src, size_t n, float* out) {
  return HWY_DYNAMIC_DISPATCH(DecodeAny)(t, src, n, out);
}

const char* exact_kernel_target() { return HWY_DYNAMIC_DISPATCH(TargetName)(); }

}  // namespace msit::compare_detail
#endif  // HWY_ONCE
