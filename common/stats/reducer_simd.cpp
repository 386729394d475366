// Highway kernels of the streaming reducer (compiled once per SIMD target, dispatched at run
// time): per chunk, one pass for extremes/zeros/finiteness, one for sum + sketch, one for the
// squared deviations about the chunk mean. Design notes: docs/stats.md.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "common/stats/reducer_simd.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "common/dtype/decode_simd-inl.h"
#include "common/stats/sketch.h"
#include "common/stats/stats_internal.h"

HWY_BEFORE_NAMESPACE();
namespace msit::stats_detail {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Elements per chunk: a chunk is re-read by three passes, so it must stay in L1.
constexpr size_t kChunk = 2048;

#if HWY_TARGET != HWY_SCALAR
using dtype_simd::HWY_NAMESPACE::SrcBF16;
using dtype_simd::HWY_NAMESPACE::SrcF16;
using dtype_simd::HWY_NAMESPACE::SrcF32;
using dtype_simd::HWY_NAMESPACE::SrcF64;

struct ChunkExtremes {
  double min, max;
  uint64_t zero;
  bool all_finite;
};

// Pass A: min/max/zeros assuming every element is finite, and whether that holds.
template <class Src, class D>
ChunkExtremes ExtremesFast(D d, const uint8_t* p, size_t len) {
  using T = hn::TFromD<D>;
  const hn::RebindToSigned<D> di;
  const size_t N = hn::Lanes(d);
  const auto abs_mask = hn::Set(di, std::numeric_limits<hn::TFromD<decltype(di)>>::max());
  auto vmin = hn::Set(d, std::numeric_limits<T>::infinity());
  auto vmax = hn::Set(d, -std::numeric_limits<T>::infinity());
  auto vmin2 = vmin, vmax2 = vmax;
  auto max_bits = hn::Zero(di), zeros = hn::Zero(di);
  const auto zero = hn::Zero(d);
  size_t i = 0;
  for (; i + 2 * N <= len; i += 2 * N) {
    const auto x = Src::Load(d, p + i * Src::kBytes);
    const auto y = Src::Load(d, p + (i + N) * Src::kBytes);
    vmin = hn::Min(vmin, x);
    vmax = hn::Max(vmax, x);
    vmin2 = hn::Min(vmin2, y);
    vmax2 = hn::Max(vmax2, y);
    max_bits = hn::Max(max_bits, hn::And(hn::BitCast(di, x), abs_mask));
    max_bits = hn::Max(max_bits, hn::And(hn::BitCast(di, y), abs_mask));
    zeros = hn::Sub(zeros, hn::VecFromMask(di, hn::RebindMask(di, hn::Eq(x, zero))));
    zeros = hn::Sub(zeros, hn::VecFromMask(di, hn::RebindMask(di, hn::Eq(y, zero))));
  }
  for (; i < len; i += N) {
    const auto x = Src::Load(d, p + i * Src::kBytes);
    vmin = hn::Min(vmin, x);
    vmax = hn::Max(vmax, x);
    max_bits = hn::Max(max_bits, hn::And(hn::BitCast(di, x), abs_mask));
    zeros = hn::Sub(zeros, hn::VecFromMask(di, hn::RebindMask(di, hn::Eq(x, zero))));
  }
  vmin = hn::Min(vmin, vmin2);
  vmax = hn::Max(vmax, vmax2);
  // |bits| at or above the encoding of +inf means inf or NaN.
  const auto inf_bits = hn::BitCast(di, hn::Set(d, std::numeric_limits<T>::infinity()));
  ChunkExtremes e;
  e.all_finite = hn::GetLane(hn::MaxOfLanes(di, max_bits)) < hn::GetLane(inf_bits);
  e.min = hn::GetLane(hn::MinOfLanes(d, vmin));
  e.max = hn::GetLane(hn::MaxOfLanes(d, vmax));
  e.zero = static_cast<uint64_t>(hn::GetLane(hn::SumOfLanes(di, zeros)));
  return e;
}

// Pass A for chunks holding inf/NaN: masked extremes and the non-finite counts.
template <class Src, class D>
ChunkExtremes ExtremesMasked(D d, const uint8_t* p, size_t len, Moments* out) {
  using T = hn::TFromD<D>;
  const size_t N = hn::Lanes(d);
  const auto inf = hn::Set(d, std::numeric_limits<T>::infinity());
  const auto ninf = hn::Neg(inf);
  auto vmin = inf, vmax = ninf;
  uint64_t zeros = 0;
  for (size_t i = 0; i < len; i += N) {
    const auto x = Src::Load(d, p + i * Src::kBytes);
    const auto finite = hn::IsFinite(x);
    vmin = hn::Min(vmin, hn::IfThenElse(finite, x, inf));
    vmax = hn::Max(vmax, hn::IfThenElse(finite, x, ninf));
    zeros += hn::CountTrue(d, hn::Eq(x, hn::Zero(d)));
    out->nan += hn::CountTrue(d, hn::IsNaN(x));
    out->posinf += hn::CountTrue(d, hn::Eq(x, inf));
    out->neginf += hn::CountTrue(d, hn::Eq(x, ninf));
  }
  return ChunkExtremes{hn::GetLane(hn::MinOfLanes(d, vmin)), hn::GetLane(hn::MaxOfLanes(d, vmax)), zeros, false};
}

template <class Src, bool kSanitize, class D>
HWY_INLINE hn::Vec<D> LoadFinite(D d, const uint8_t* p, size_t i) {
  const auto x = Src::Load(d, p + i * Src::kBytes);
  if constexpr (kSanitize) return hn::IfThenElseZero(hn::IsFinite(x), x);
  return x;
}

// acc[0..N) += v, widened to double.
template <class D, class DD>
HWY_INLINE void AddWidened(D d, DD dd, hn::Vec<D> v, double* HWY_RESTRICT acc) {
  if constexpr (sizeof(hn::TFromD<D>) == 8) {
    (void)d;
    hn::StoreU(hn::Add(hn::LoadU(dd, acc), v), dd, acc);
  } else {
    const hn::Half<D> dh;
    const size_t half = hn::Lanes(dd);
    const auto lo = hn::PromoteTo(dd, hn::LowerHalf(dh, v));
    const auto hi = hn::PromoteTo(dd, hn::UpperHalf(dh, v));
    hn::StoreU(hn::Add(hn::LoadU(dd, acc), lo), dd, acc);
    hn::StoreU(hn::Add(hn::LoadU(dd, acc + half), hi), dd, acc + half);
  }
}

template <class D, class DD, class V2>
HWY_INLINE void SumWidened(D d, DD dd, hn::Vec<D> v, V2& s0, V2& s1) {
  if constexpr (sizeof(hn::TFromD<D>) == 8) {
    (void)d;
    (void)dd;
    s0 = hn::Add(s0, v);
  } else {
    const hn::Half<D> dh;
    s0 = hn::Add(s0, hn::PromoteTo(dd, hn::LowerHalf(dh, v)));
    s1 = hn::Add(s1, hn::PromoteTo(dd, hn::UpperHalf(dh, v)));
  }
}

// Pass B: plain sum of the finite values, and their signed adds into the rotated sketch.
template <class Src, bool kSanitize, class D>
double SumAndSketch(D d, const uint8_t* p, size_t len, uint64_t start, const SketchState* sk) {
  const hn::Repartition<double, D> dd;
  const size_t N = hn::Lanes(d);
  auto s0 = hn::Zero(dd), s1 = hn::Zero(dd);
  if (sk == nullptr) {
    for (size_t i = 0; i < len; i += N) SumWidened(d, dd, LoadFinite<Src, kSanitize>(d, p, i), s0, s1);
    return hn::GetLane(hn::SumOfLanes(dd, hn::Add(s0, s1)));
  }
  const size_t width = sk->width;
  for (size_t b = 0; b < len; b += width) {
    const uint64_t i0 = start + b;
    // Within a block the bucket is a rotation and the sign is T0's bits, all flipped when
    // T1^T2^T3 of the (block-constant) high index bits is set.
    double* HWY_RESTRICT acc = sk->acc + sketch_rotation(sk->seed, i0 / width, sk->width);
    const uint64_t flip = high_sign_bits(sk->words, i0) ? ~uint64_t{0} : 0;
    const uint64_t lo16 = i0 & 0xffff;
    for (size_t j = 0; j < width; j += N) {
      const uint64_t bit = lo16 + j;
      const uint64_t word = (sk->words[bit >> 6] ^ flip) >> (bit & 63);
      uint8_t bytes[8];
      for (int k = 0; k < 8; ++k) bytes[k] = static_cast<uint8_t>(word >> (8 * k));
      const auto x = LoadFinite<Src, kSanitize>(d, p, b + j);
      SumWidened(d, dd, x, s0, s1);
      AddWidened(d, dd, hn::IfThenElse(hn::LoadMaskBits(d, bytes), hn::Neg(x), x), acc + j);
    }
  }
  return hn::GetLane(hn::SumOfLanes(dd, hn::Add(s0, s1)));
}

// Pass C: sum of squared deviations about the chunk mean, in double. Non-finite lanes are
// replaced by the mean rounded to the lane type; their tiny exact contribution is removed.
template <class Src, bool kSanitize, class D>
double SquaredDeviations(D d, const uint8_t* p, size_t len, double mean, uint64_t non_finite) {
  using T = hn::TFromD<D>;
  const hn::Repartition<double, D> dd;
  const size_t N = hn::Lanes(d);
  const T mean_t = static_cast<T>(mean);
  const auto vmean_t = hn::Set(d, mean_t);
  const auto vmean = hn::Set(dd, mean);
  auto a0 = hn::Zero(dd), a1 = hn::Zero(dd);
  for (size_t i = 0; i < len; i += N) {
    auto x = Src::Load(d, p + i * Src::kBytes);
    if constexpr (kSanitize) x = hn::IfThenElse(hn::IsFinite(x), x, vmean_t);
    if constexpr (sizeof(T) == 8) {
      const auto dev = hn::Sub(x, vmean);
      a0 = hn::MulAdd(dev, dev, a0);
    } else {
      const hn::Half<D> dh;
      const auto dlo = hn::Sub(hn::PromoteTo(dd, hn::LowerHalf(dh, x)), vmean);
      const auto dhi = hn::Sub(hn::PromoteTo(dd, hn::UpperHalf(dh, x)), vmean);
      a0 = hn::MulAdd(dlo, dlo, a0);
      a1 = hn::MulAdd(dhi, dhi, a1);
    }
  }
  double m2 = hn::GetLane(hn::SumOfLanes(dd, hn::Add(a0, a1)));
  if constexpr (kSanitize) {
    const double off = static_cast<double>(mean_t) - mean;
    m2 = std::max(0.0, m2 - static_cast<double>(non_finite) * off * off);
  }
  return m2;
}

template <class Src, class D>
void ProcessChunk(D d, const uint8_t* p, size_t len, uint64_t start, const SketchState* sk, Moments* out) {
  ChunkExtremes e = ExtremesFast<Src>(d, p, len);
  uint64_t non_finite = 0;
  if (!e.all_finite) {
    const uint64_t before = out->nan + out->posinf + out->neginf;
    e = ExtremesMasked<Src>(d, p, len, out);
    non_finite = out->nan + out->posinf + out->neginf - before;
  }
  const uint64_t finite = len - non_finite;
  const double sum =
      e.all_finite ? SumAndSketch<Src, false>(d, p, len, start, sk) : SumAndSketch<Src, true>(d, p, len, start, sk);
  double m2 = 0;
  if (finite > 0) {
    const double mean = sum / static_cast<double>(finite);
    m2 = e.all_finite ? SquaredDeviations<Src, false>(d, p, len, mean, 0)
                      : SquaredDeviations<Src, true>(d, p, len, mean, non_finite);
  }
  out->add_chunk(finite, sum, m2);
  out->min = std::min(out->min, e.min);
  out->max = std::max(out->max, e.max);
  out->zero += e.zero;
}

#endif  // HWY_TARGET != HWY_SCALAR

template <class SrcT>
size_t ReduceImpl(const void* data, size_t n, uint64_t start, const SketchState* sk, Moments* out) {
#if HWY_TARGET == HWY_SCALAR
  // One-lane vectors cannot be halved for widening; the caller's scalar path takes it all.
  (void)data, (void)n, (void)start, (void)sk, (void)out;
  return 0;
#else
  using Src = SrcT;
  const hn::ScalableTag<typename Src::Lane> d;
  const size_t N = hn::Lanes(d);
  size_t granule = N;
  if (sk != nullptr) {
    // Whole vectors must fall inside one block (the scalar path takes odd widths).
    if (sk->width < N || sk->width % N != 0 || N > 64) return 0;
    granule = sk->width;
  }
  const size_t chunk = std::max(granule, kChunk / granule * granule);
  const auto* p = static_cast<const uint8_t*>(data);
  size_t done = 0;
  while (n - done >= granule) {
    const size_t len = std::min(chunk, (n - done) / granule * granule);
    ProcessChunk<Src>(d, p + done * Src::kBytes, len, start + done, sk, out);
    done += len;
  }
  return done;
#endif
}

#if HWY_TARGET == HWY_SCALAR
struct SrcF16 {};
struct SrcBF16 {};
struct SrcF32 {};
struct SrcF64 {};
#endif

size_t ReduceF16(const void* data, size_t n, uint64_t start, const SketchState* sk, Moments* out) {
  return ReduceImpl<SrcF16>(data, n, start, sk, out);
}
size_t ReduceBF16(const void* data, size_t n, uint64_t start, const SketchState* sk, Moments* out) {
  return ReduceImpl<SrcBF16>(data, n, start, sk, out);
}
size_t ReduceF32(const void* data, size_t n, uint64_t start, const SketchState* sk, Moments* out) {
  return ReduceImpl<SrcF32>(data, n, start, sk, out);
}
size_t ReduceF64(const void* data, size_t n, uint64_t start, const SketchState* sk, Moments* out) {
  return ReduceImpl<SrcF64>(data, n, start, sk, out);
}
const char* TargetName() { return hwy::TargetName(HWY_TARGET); }

}  // namespace HWY_NAMESPACE
}  // namespace msit::stats_detail
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace msit::stats_detail {

HWY_EXPORT(ReduceF16);
HWY_EXPORT(ReduceBF16);
HWY_EXPORT(ReduceF32);
HWY_EXPORT(ReduceF64);
HWY_EXPORT(TargetName);

size_t simd_reduce(SimdSource src, const void* data, size_t n, uint64_t start, const SketchState* sk, Moments* out) {
  switch (src) {
    case SimdSource::kF16: return HWY_DYNAMIC_DISPATCH(ReduceF16)(data, n, start, sk, out);
    case SimdSource::kBF16: return HWY_DYNAMIC_DISPATCH(ReduceBF16)(data, n, start, sk, out);
    case SimdSource::kF32: return HWY_DYNAMIC_DISPATCH(ReduceF32)(data, n, start, sk, out);
    case SimdSource::kF64: return HWY_DYNAMIC_DISPATCH(ReduceF64)(data, n, start, sk, out);
  }
  return 0;
}

const char* simd_target_name() { return HWY_DYNAMIC_DISPATCH(TargetName)(); }

}  // namespace msit::stats_detail
#endif  // HWY_ONCE
