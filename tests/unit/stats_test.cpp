// The SIMD reducer against the scalar reference (every dtype, many sizes, awkward batch
// splits, inf/NaN/subnormal/zero and fp16/bf16 edge encodings, every compiled SIMD target),
// and both against naive two-pass double computations.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "common/dtype/decode.h"
#include "common/stats/sketch.h"
#include "common/stats/stats_internal.h"
#include "common/stats/tensor_stats.h"
#include "hwy/targets.h"

namespace msit {
namespace {

constexpr DType kAllStatDtypes[] = {
    DType::kBool,    DType::kInt8,         DType::kUInt8,      DType::kInt16,      DType::kUInt16,   DType::kInt32,
    DType::kUInt32,  DType::kInt64,        DType::kUInt64,     DType::kFloat16,    DType::kBFloat16, DType::kFloat32,
    DType::kFloat64, DType::kFloat8E4M3FN, DType::kFloat8E5M2, DType::kFloat8E8M0, DType::kHiFloat8};

template <typename T>
void put(std::vector<std::byte>& out, size_t k, T v) {
  std::memcpy(out.data() + k * sizeof(T), &v, sizeof(T));
}

// Realistic values with a sprinkling of specials; edge encodings are forced in at random spots.
std::vector<std::byte> make_data(DType t, size_t n, std::mt19937_64& rng, double special_rate) {
  const size_t es = dtype_info(t).bits / 8;
  std::vector<std::byte> out(n * es);
  std::normal_distribution<float> normal(0.5f, 2.0f);
  std::uniform_real_distribution<double> u01(0, 1);
  static const uint16_t kF16Edges[] = {0x7c00, 0xfc00, 0x7e00, 0x7c01, 0x0001, 0x8000,
                                       0x7bff, 0xfbff, 0x0000, 0x03ff, 0x8001, 0xfe00};
  static const uint16_t kBF16Edges[] = {0x7f80, 0xff80, 0x7fc0, 0x0001, 0x8000, 0x0000,
                                        0x7f7f, 0xff7f, 0x8001, 0x007f, 0xffc1};
  static const float kF32Edges[] = {INFINITY, -INFINITY, NAN,     1e-45f,   -1e-45f,
                                    0.0f,     -0.0f,     3.4e38f, -3.4e38f, 1.17e-38f};
  for (size_t k = 0; k < n; ++k) {
    const bool special = u01(rng) < special_rate;
    const float f = normal(rng);
    switch (t) {
      case DType::kFloat16: {
        uint16_t h = static_cast<uint16_t>(rng());  // every encoding, incl. NaN payloads
        if (!special) h = static_cast<uint16_t>((h & 0x83ff) | ((13 + rng() % 5) << 10));
        if (special && rng() % 2) h = kF16Edges[rng() % std::size(kF16Edges)];
        put(out, k, h);
        break;
      }
      case DType::kBFloat16: {
        uint32_t bits;
        std::memcpy(&bits, &f, 4);
        uint16_t h = static_cast<uint16_t>(bits >> 16);
        if (special) h = rng() % 2 ? kBF16Edges[rng() % std::size(kBF16Edges)] : uint16_t(rng());
        put(out, k, h);
        break;
      }
      case DType::kFloat32: put(out, k, special ? kF32Edges[rng() % std::size(kF32Edges)] : f); break;
      case DType::kFloat64: {
        double d = static_cast<double>(f) * 1.000000001;
        if (special) d = static_cast<double>(kF32Edges[rng() % std::size(kF32Edges)]);
        if (special && rng() % 3 == 0) d = 4.9e-324;  // double subnormal
        put(out, k, d);
        break;
      }
      case DType::kBool: put(out, k, static_cast<uint8_t>(rng() % 2)); break;
      default: {  // integers and 8-bit floats: every bit pattern is fair game
        const uint64_t r = rng();
        std::memcpy(out.data() + k * es, &r, es);
      }
    }
  }
  return out;
}

// Feeds `bytes` in batches whose sizes follow `pattern` (0 = one batch, else random up to it).
TensorStats run(bool simd, DType t, const std::vector<std::byte>& bytes, size_t n, size_t pattern,
                const StatsOptions& opts, uint64_t seed, bool with_sketch = true) {
  auto r =
      simd ? TensorReducer::create(t, n, opts, with_sketch) : TensorReducer::create_reference(t, n, opts, with_sketch);
  const size_t es = dtype_info(t).bits / 8;
  std::mt19937_64 rng(seed);
  for (size_t off = 0; off < n;) {
    const size_t len = pattern == 0 ? n : std::min(n - off, 1 + rng() % pattern);
    r->update(bytes.data() + off * es, len);
    off += len;
  }
  return r->finish();
}

struct Scale {  // condition of each accumulation: sums of |terms|
  double abs_sum = 0;
  std::vector<double> bucket_abs;
};

Scale scale_of(DType t, const std::vector<std::byte>& bytes, size_t n, const StatsOptions& o) {
  Scale s;
  s.bucket_abs.assign(o.sketch_width, 0.0);
  const size_t es = dtype_info(t).bits / 8;
  for (size_t i = 0; i < n; ++i) {
    const double x = decode_element(t, bytes.data() + i * es);
    if (!std::isfinite(x)) continue;
    s.abs_sum += std::abs(x);
    s.bucket_abs[sketch_bucket(o.sketch_seed, i, o.sketch_width)] += std::abs(x);
  }
  return s;
}

bool same(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

void expect_match(const TensorStats& r, const TensorStats& s, const Scale& sc, const std::string& what) {
  SCOPED_TRACE(what);
  EXPECT_EQ(s.count, r.count);
  EXPECT_EQ(s.finite_count, r.finite_count);
  EXPECT_EQ(s.nan_count, r.nan_count);
  EXPECT_EQ(s.posinf_count, r.posinf_count);
  EXPECT_EQ(s.neginf_count, r.neginf_count);
  EXPECT_EQ(s.zero_count, r.zero_count);
  EXPECT_EQ(s.min, r.min);
  EXPECT_EQ(s.max, r.max);
  EXPECT_EQ(s.abs_max, r.abs_max);
  EXPECT_EQ(s.min_i64, r.min_i64);
  EXPECT_EQ(s.max_i64, r.max_i64);
  EXPECT_EQ(s.min_u64, r.min_u64);
  EXPECT_EQ(s.max_u64, r.max_u64);
  const double tol = 1e-12;
  EXPECT_NEAR(s.sum, r.sum, tol * sc.abs_sum);
  ASSERT_EQ(s.mean.has_value(), r.mean.has_value());
  if (r.mean) { EXPECT_NEAR(*s.mean, *r.mean, tol * sc.abs_sum / static_cast<double>(r.finite_count)); }
  ASSERT_EQ(s.std.has_value(), r.std.has_value());
  if (r.std) { EXPECT_NEAR(*s.std, *r.std, tol * std::max(*r.std, 1e-300)); }
  // Squares of double subnormals underflow in any double implementation; the long double
  // reference keeps them.
  EXPECT_NEAR(s.l2norm, r.l2norm, tol * r.l2norm + 1e-300);
  ASSERT_EQ(s.values.has_value(), r.values.has_value());
  if (r.values) {
    ASSERT_EQ(s.values->size(), r.values->size());
    for (size_t k = 0; k < r.values->size(); ++k) EXPECT_TRUE(same((*s.values)[k], (*r.values)[k]));
  }
  ASSERT_EQ(s.sketch.has_value(), r.sketch.has_value());
  if (r.sketch) {
    for (size_t k = 0; k < r.sketch->values.size(); ++k) {
      EXPECT_NEAR(s.sketch->values[k], r.sketch->values[k], tol * sc.bucket_abs[k]) << "bucket " << k;
    }
  }
}

// Runs `body` once per SIMD target compiled in and supported by this CPU.
template <class F>
void for_each_target(F&& body) {
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    body(std::string(hwy::TargetName(target)));
  }
  hwy::SetSupportedTargetsForTest(0);
}

TEST(Stats, DispatchPicksEachTarget) {
  for_each_target([](const std::string& name) { EXPECT_EQ(std::string(stats_detail::simd_target_name()), name); });
}

TEST(Stats, SimdMatchesReferenceAllDtypesSizesAndSplits) {
  const StatsOptions opts;
  const size_t w = opts.sketch_width;
  const size_t sizes[] = {0, 1, 2, 7, w - 1, w, w + 1, 2 * w + 3, 1000, 2048, 4097, 12345, 70001};
  uint64_t seed = 1;
  for_each_target([&](const std::string& target) {
    for (DType t : kAllStatDtypes) {
      for (size_t n : sizes) {
        for (double rate : {0.0, 0.01, 0.5}) {
          std::mt19937_64 rng(++seed);
          const auto bytes = make_data(t, n, rng, rate);
          const Scale sc = scale_of(t, bytes, n, opts);
          const auto ref = run(false, t, bytes, n, 0, opts, seed);
          for (size_t pattern : {size_t{0}, size_t{1}, size_t{5}, w + 1, size_t{3000}}) {
            if (pattern == 1 && n > 5000) continue;
            const auto got = run(true, t, bytes, n, pattern, opts, seed + pattern);
            expect_match(ref, got, sc,
                         target + " " + std::string(dtype_name(t)) + " n=" + std::to_string(n) +
                             " rate=" + std::to_string(rate) + " split=" + std::to_string(pattern));
          }
        }
      }
    }
  });
}

// Two-pass population std and l2norm in long double, straight from the definitions.
std::pair<double, double> naive_std_l2(DType t, const std::vector<std::byte>& bytes, size_t n) {
  const size_t es = dtype_info(t).bits / 8;
  long double s = 0, sq = 0, dev = 0;
  size_t finite = 0;
  for (size_t k = 0; k < n; ++k) {
    const long double x = decode_element(t, bytes.data() + k * es);
    if (!std::isfinite(static_cast<double>(x))) continue;
    s += x;
    sq += x * x;
    ++finite;
  }
  const long double mean = s / finite;
  for (size_t k = 0; k < n; ++k) {
    const long double x = decode_element(t, bytes.data() + k * es);
    if (std::isfinite(static_cast<double>(x))) dev += (x - mean) * (x - mean);
  }
  return {static_cast<double>(std::sqrt(dev / finite)), static_cast<double>(std::sqrt(sq))};
}

TEST(Stats, SeveralMegabytesEveryNativeType) {
  const StatsOptions opts;
  for_each_target([&](const std::string& target) {
    for (DType t : {DType::kFloat16, DType::kBFloat16, DType::kFloat32, DType::kFloat64, DType::kInt32}) {
      const size_t n = 3'000'017;
      std::mt19937_64 rng(42);
      const auto bytes = make_data(t, n, rng, 1e-4);
      const Scale sc = scale_of(t, bytes, n, opts);
      const auto ref = run(false, t, bytes, n, 0, opts, 1);
      const auto [two_pass_std, exact_l2] = naive_std_l2(t, bytes, n);
      EXPECT_NEAR(*ref.std, two_pass_std, 1e-12 * two_pass_std) << "reference " << dtype_name(t);
      EXPECT_NEAR(ref.l2norm, exact_l2, 1e-12 * exact_l2) << "reference " << dtype_name(t);
      const auto simd = run(true, t, bytes, n, 0, opts, 2);
      EXPECT_NEAR(*simd.std, two_pass_std, 1e-12 * two_pass_std) << "simd " << dtype_name(t);
      EXPECT_NEAR(simd.l2norm, exact_l2, 1e-12 * exact_l2) << "simd " << dtype_name(t);
      expect_match(ref, simd, sc, target + " one batch");
      expect_match(ref, run(true, t, bytes, n, 100'000, opts, 3), sc, target + " random batches");
    }
  });
}

TEST(Stats, WidthsAndNoSketch) {
  for (uint32_t width : {1u, 2u, 8u, 16u, 64u, 256u, 4096u}) {
    StatsOptions opts;
    opts.sketch_width = width;
    opts.sketch_seed = 99;
    for (size_t n : {size_t{width} - 1, size_t{width} + 1, size_t{10'000}}) {
      std::mt19937_64 rng(width + n);
      const auto bytes = make_data(DType::kFloat32, n, rng, 0.01);
      const Scale sc = scale_of(DType::kFloat32, bytes, n, opts);
      for (bool sketch : {true, false}) {
        const auto ref = run(false, DType::kFloat32, bytes, n, 0, opts, 1, sketch);
        const auto got = run(true, DType::kFloat32, bytes, n, 77, opts, 2, sketch);
        expect_match(ref, got, sc, "width " + std::to_string(width));
        EXPECT_EQ(got.sketch.has_value(), sketch && n > width);
        EXPECT_EQ(got.values.has_value(), n <= width);
      }
    }
  }
}

// Large mean, tiny spread: sumsq/n - mean^2 would lose everything here.
TEST(Stats, StdMatchesTwoPassForIllConditionedData) {
  std::mt19937_64 rng(7);
  std::normal_distribution<double> noise(0, 1);
  for (const auto& [mean, spread] :
       {std::pair{1e4, 1e-2}, std::pair{1e8, 1e-1}, std::pair{-3e6, 1.0}, std::pair{0.0, 1.0}}) {
    const size_t n = 1'000'003;
    std::vector<std::byte> bytes(n * 8);
    for (size_t k = 0; k < n; ++k) put(bytes, k, mean + spread * noise(rng));
    long double s = 0;
    for (size_t k = 0; k < n; ++k) s += decode_element(DType::kFloat64, bytes.data() + 8 * k);
    const long double m = s / n;
    long double ss = 0;
    for (size_t k = 0; k < n; ++k) {
      const long double d = decode_element(DType::kFloat64, bytes.data() + 8 * k) - m;
      ss += d * d;
    }
    const double two_pass = static_cast<double>(std::sqrt(ss / n));
    for (bool simd : {false, true}) {
      const auto st = run(simd, DType::kFloat64, bytes, n, simd ? 5000 : 0, StatsOptions{}, 1);
      ASSERT_TRUE(st.std.has_value());
      EXPECT_NEAR(*st.std, two_pass, 1e-9 * two_pass) << "mean " << mean << " simd " << simd;
      EXPECT_NEAR(*st.mean, static_cast<double>(m), 1e-12 * std::abs(static_cast<double>(m)) + 1e-15);
    }
  }
}

TEST(Stats, HandComputedSmallTensor) {
  const float xs[] = {1.0f, -2.0f, 0.0f, -0.0f, INFINITY, NAN, -INFINITY, 3.0f};
  std::vector<std::byte> bytes(sizeof(xs));
  std::memcpy(bytes.data(), xs, sizeof(xs));
  for (bool simd : {false, true}) {
    const auto s = run(simd, DType::kFloat32, bytes, 8, 0, StatsOptions{}, 1);
    EXPECT_EQ(s.count, 8u);
    EXPECT_EQ(s.finite_count, 5u);
    EXPECT_EQ(s.nan_count, 1u);
    EXPECT_EQ(s.posinf_count, 1u);
    EXPECT_EQ(s.neginf_count, 1u);
    EXPECT_EQ(s.zero_count, 2u);
    EXPECT_EQ(s.min, -2.0);
    EXPECT_EQ(s.max, 3.0);
    EXPECT_EQ(s.abs_max, 3.0);
    EXPECT_DOUBLE_EQ(*s.mean, 0.4);
    EXPECT_DOUBLE_EQ(*s.std, std::sqrt((0.36 + 5.76 + 0.16 + 0.16 + 6.76) / 5));
    EXPECT_DOUBLE_EQ(s.l2norm, std::sqrt(14.0));
    ASSERT_TRUE(s.values.has_value());
    EXPECT_TRUE(std::isinf((*s.values)[4]) && (*s.values)[4] > 0);
    EXPECT_TRUE(std::isnan((*s.values)[5]));
    EXPECT_FALSE(s.sketch.has_value());
  }
}

TEST(Stats, AllNonFiniteAndEmpty) {
  std::vector<std::byte> bytes(4000 * 2);
  for (size_t k = 0; k < 4000; ++k) put<uint16_t>(bytes, k, k % 2 ? 0x7e00 : 0xfc00);
  for (bool simd : {false, true}) {
    const auto s = run(simd, DType::kFloat16, bytes, 4000, 0, StatsOptions{}, 1);
    EXPECT_EQ(s.nan_count, 2000u);
    EXPECT_EQ(s.neginf_count, 2000u);
    EXPECT_FALSE(s.min.has_value() || s.max.has_value() || s.mean.has_value() || s.std.has_value() ||
                 s.abs_max.has_value());
    EXPECT_EQ(s.l2norm, 0.0);
    ASSERT_TRUE(s.sketch.has_value());
    for (double b : s.sketch->values) EXPECT_EQ(b, 0.0);
    const auto e = run(simd, DType::kFloat16, bytes, 0, 0, StatsOptions{}, 1);
    EXPECT_EQ(e.count, 0u);
    ASSERT_TRUE(e.values.has_value());
    EXPECT_TRUE(e.values->empty());
  }
}

TEST(Stats, ExactSixtyFourBitExtremes) {
  const int64_t xs[] = {INT64_MAX, INT64_MAX - 1, INT64_MIN + 1, 5};
  std::vector<std::byte> bytes(sizeof(xs));
  std::memcpy(bytes.data(), xs, sizeof(xs));
  for (bool simd : {false, true}) {
    const auto s = run(simd, DType::kInt64, bytes, 4, 0, StatsOptions{}, 1);
    EXPECT_EQ(s.max_i64, INT64_MAX);
    EXPECT_EQ(s.min_i64, INT64_MIN + 1);
    const uint64_t us[] = {UINT64_MAX - 1, 3};
    std::vector<std::byte> ub(sizeof(us));
    std::memcpy(ub.data(), us, sizeof(us));
    const auto u = run(simd, DType::kUInt64, ub, 2, 0, StatsOptions{}, 1);
    EXPECT_EQ(u.max_u64, UINT64_MAX - 1);
    EXPECT_EQ(u.min_u64, 3u);
  }
}

TEST(Stats, SupportedDtypes) {
  for (DType t : kAllStatDtypes) EXPECT_TRUE(reducer_supports(t)) << dtype_name(t);
  for (DType t : {DType::kComplex64, DType::kComplex128, DType::kComplex32, DType::kInt4, DType::kUInt1,
                  DType::kFloat4E2M1, DType::kString, DType::kUnknown}) {
    EXPECT_FALSE(reducer_supports(t)) << dtype_name(t);
    EXPECT_EQ(TensorReducer::create(t, 1, StatsOptions{}), nullptr);
  }
}

}  // namespace
}  // namespace msit
