// The Highway pair kernel of the exact metrics against the scalar reference that defines its
// sums and against a long double two-pass computation, on every SIMD target this CPU runs:
// odd lengths (tails), chunk boundaries, NaN/inf, signed zeros, huge and tiny magnitudes,
// every dtype the typed add() takes, merged partial sums.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "common/compare/exact_kernel.h"
#include "common/compare/metrics.h"
#include "common/dtype/decode.h"
#include "hwy/targets.h"

namespace {

using msit::compare_detail::PairSums;
using msit::compare_detail::SideSums;

const std::vector<size_t> kSizes = {1, 3, 15, 16, 17, 31, 32, 33, 63, 100, 2047, 2048, 2049, 4095, 4097, 20011};

// Runs `body` once per SIMD target compiled in and supported by this CPU.
void for_each_target(const std::function<void(const std::string&)>& body) {
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    body(hwy::TargetName(target));
  }
  hwy::SetSupportedTargetsForTest(0);
}

struct Data {
  std::vector<float> g, m;
};

// Golden values of one kind and "my" values close to or far from them.
Data make(const std::string& kind, size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  Data d{std::vector<float>(n), std::vector<float>(n)};
  for (size_t i = 0; i < n; ++i) {
    float x = nd(rng), e = nd(rng);
    if (kind == "normal") {
      d.g[i] = 3 * x, d.m[i] = 3 * x + 0.05f * e;
    } else if (kind == "close") {  // KL ~ 1e-9: where float32 exponentials were noise
      d.g[i] = x, d.m[i] = x + 1e-4f * e;
    } else if (kind == "far") {
      d.g[i] = 4 * x, d.m[i] = 4 * e;
    } else if (kind == "huge") {
      d.g[i] = 1e30f * x, d.m[i] = 1e30f * x * (1 + 0.01f * e);
    } else if (kind == "tiny") {  // below FLT_EPSILON (masked) and subnormal
      d.g[i] = (i % 2 ? 1e-30f : 1e-41f) * x, d.m[i] = 1e-38f * e;
    } else if (kind == "signed_zeros") {  // max (or min) is a zero of either sign
      const float z = (i * 7 + seed) % 3 == 0 ? -0.0f : 0.0f;
      d.g[i] = i % 5 == 0 ? z : -std::fabs(x), d.m[i] = i % 4 == 0 ? z : std::fabs(e);
    } else if (kind == "zeros") {
      d.g[i] = 0.0f, d.m[i] = i % 2 ? -0.0f : 0.0f;
    } else if (kind == "logits") {  // a few large values: the running maxima grow chunk by chunk
      d.g[i] = x + (i % 3001 == 1000 ? 40.0f + static_cast<float>(i) / 1000 : 0.0f), d.m[i] = d.g[i] + 0.1f * e;
    }
  }
  return d;
}

const std::vector<std::string> kKinds = {"normal", "close", "far", "huge", "tiny", "signed_zeros", "zeros", "logits"};

uint32_t bits(float x) { return std::bit_cast<uint32_t>(x); }

// The reference path: every element through the scalar definition.
struct RefSums {
  PairSums p;
  SideSums g, m;
};
RefSums reference(const Data& d) {
  RefSums r;
  msit::compare_detail::reference_pairs(d.g.data(), d.m.data(), d.g.size(), r.p);
  msit::compare_detail::reference_side(d.g.data(), d.g.size(), r.g);
  msit::compare_detail::reference_side(d.m.data(), d.m.size(), r.m);
  return r;
}

// Float64-or-better values of the seven metrics (long double, two passes, no streaming).
struct Exact {
  long double cosine, mean_rel, mean_abs, kl, red;
};
Exact exact(const Data& d) {
  const size_t n = d.g.size();
  long double dot = 0, gg = 0, mm = 0, d2 = 0, srel = 0, sabs = 0, gmax = -INFINITY, mmax = -INFINITY;
  for (size_t i = 0; i < n; ++i) {
    const long double a = d.g[i], b = d.m[i];
    const float df = d.m[i] - d.g[i];  // msit's terms are float32
    dot += a * b, gg += a * a, mm += b * b, d2 += static_cast<long double>(df) * df;
    if (std::fabs(d.g[i]) > msit::kFltEpsilon) {
      srel += std::fabs(d.m[i] / d.g[i] - 1.0f);
      sabs += std::fabs(df);
    }
    gmax = std::max(gmax, a), mmax = std::max(mmax, b);
  }
  long double gs = 0, ms = 0;
  for (size_t i = 0; i < n; ++i) gs += std::exp(d.g[i] - gmax), ms += std::exp(d.m[i] - mmax);
  const long double lse_g = gmax + std::log(gs), lse_m = mmax + std::log(ms);
  long double kl = 0;
  for (size_t i = 0; i < n; ++i) {
    const long double lp = d.g[i] - lse_g, lq = d.m[i] - lse_m;
    kl += std::exp(lp) * (lp - lq);
  }
  const long double eps = 1e-8L;  // torch.cosine_similarity's floor on each norm
  const long double cosine =
      gg == 0 && mm == 0 ? 1.0L : dot / (std::max(std::sqrt(gg), eps) * std::max(std::sqrt(mm), eps));
  return {cosine, srel / n, sabs / n, kl, std::sqrt(d2 / gg)};
}

// Both within `ulps` float32 steps of each other.
void expect_ulps(double a, double b, int ulps, const std::string& what) {
  const float fa = static_cast<float>(a), fb = static_cast<float>(b);
  const int64_t d = std::abs(static_cast<int64_t>(std::bit_cast<int32_t>(fa)) - std::bit_cast<int32_t>(fb));
  EXPECT_LE(d, ulps) << what << ": " << a << " vs " << b;
}

// Within tol, or the same non-finite value.
bool near(double a, double b, double tol) {
  if (!std::isfinite(a) || !std::isfinite(b)) return a == b || (std::isnan(a) && std::isnan(b));
  return std::fabs(a - b) <= tol;
}

// The kernel's sums against the reference's: the order-free parts identical, the sums within
// their rounding (double, n terms).
void expect_same_sums(const RefSums& want, const msit::PairAccumulator& got, const std::string& where) {
  const PairSums& p = got.exact().sums();
  const double n = static_cast<double>(want.p.n), tol = 4e-16 * (n + 8);
  EXPECT_EQ(p.n, want.p.n) << where;
  EXPECT_EQ(p.g_finite, want.p.g_finite) << where;
  EXPECT_EQ(p.m_finite, want.p.m_finite) << where;
  EXPECT_EQ(p.g_zero, want.p.g_zero) << where;
  EXPECT_EQ(p.m_zero, want.p.m_zero) << where;
  EXPECT_EQ(bits(p.max_rel), bits(want.p.max_rel)) << where;
  EXPECT_EQ(bits(p.max_abs), bits(want.p.max_abs)) << where;
  EXPECT_TRUE(near(p.gg, want.p.gg, tol * want.p.gg)) << where << " gg";
  EXPECT_TRUE(near(p.mm, want.p.mm, tol * want.p.mm)) << where << " mm";
  EXPECT_TRUE(near(p.dot, want.p.dot, tol * std::sqrt(want.p.gg * want.p.mm))) << where << " dot";
  EXPECT_TRUE(near(p.d2, want.p.d2, tol * want.p.d2)) << where << " d2";
  EXPECT_TRUE(near(p.sum_rel, want.p.sum_rel, tol * want.p.sum_rel)) << where << " sum_rel";
  EXPECT_TRUE(near(p.sum_abs, want.p.sum_abs, tol * want.p.sum_abs)) << where << " sum_abs";
  for (const auto& [mine, ref, side] :
       {std::tuple{&got.golden().sums(), &want.g, "golden"}, std::tuple{&got.mine().sums(), &want.m, "my"}}) {
    EXPECT_EQ(mine->n, ref->n) << where << " " << side;
    EXPECT_EQ(mine->nan, ref->nan) << where << " " << side;
    EXPECT_EQ(mine->posinf, ref->posinf) << where << " " << side;
    EXPECT_EQ(mine->neginf, ref->neginf) << where << " " << side;
    EXPECT_EQ(bits(mine->max), bits(ref->max)) << where << " " << side << " max " << mine->max << " " << ref->max;
    EXPECT_EQ(bits(mine->min), bits(ref->min)) << where << " " << side << " min " << mine->min << " " << ref->min;
    EXPECT_TRUE(near(mine->sq, ref->sq, tol * ref->sq)) << where << " " << side << " sq";
    EXPECT_TRUE(near(mine->sum, ref->sum, tol * std::sqrt(n * ref->sq))) << where << " " << side << " sum";
  }
}

// Finished values: what the report prints.
void expect_same_report(const RefSums& want, const msit::PairAccumulator& got, const Exact& ex,
                        const std::string& where) {
  const msit::MetricValues a = got.exact().finish(), b = msit::ExactAccumulator(want.p).finish();
  EXPECT_EQ(*a.cosine, *b.cosine) << where;
  if (std::isfinite(ex.cosine)) { EXPECT_NEAR(*a.cosine, static_cast<double>(ex.cosine), 1e-10) << where; }
  EXPECT_EQ(*a.max_rel, *b.max_rel) << where;
  EXPECT_EQ(*a.max_abs, *b.max_abs) << where;
  expect_ulps(*a.mean_rel, *b.mean_rel, 1, where + " mean_rel");
  expect_ulps(*a.mean_abs, *b.mean_abs, 1, where + " mean_abs");
  expect_ulps(*a.red, *b.red, 1, where + " red");
  expect_ulps(*a.mean_rel, static_cast<double>(ex.mean_rel), 1, where + " mean_rel vs exact");
  expect_ulps(*a.mean_abs, static_cast<double>(ex.mean_abs), 1, where + " mean_abs vs exact");
  // KL: float64 exponentials of exact differences, so only the final float32 rounding and
  // double rounding of log-sum-exps of size ~log(n) remain.
  const double kl = static_cast<double>(std::max(ex.kl, 0.0L));
  EXPECT_NEAR(*a.kl, kl, 1e-7 * kl + 1e-13) << where;
  EXPECT_NEAR(*b.kl, kl, 1e-7 * kl + 1e-13) << where;
  for (const auto& [mine, ref] : {std::pair{&got.golden(), &want.g}, std::pair{&got.mine(), &want.m}}) {
    const msit::SideStats s = mine->finish(), r = msit::SideAccumulator(*ref).finish();
    EXPECT_EQ(bits(static_cast<float>(*s.max)), bits(static_cast<float>(*r.max))) << where;
    EXPECT_EQ(bits(static_cast<float>(*s.min)), bits(static_cast<float>(*r.min))) << where;
    expect_ulps(*s.mean, *r.mean, 1, where + " mean");
  }
}

TEST(CompareKernel, DispatchPicksEachTarget) {
  for_each_target([](const std::string& name) { EXPECT_EQ(msit::compare_detail::exact_kernel_target(), name); });
}

TEST(CompareKernel, MatchesReferenceOnEveryKindSizeAndTarget) {
  struct Case {
    std::string name;
    Data d;
    RefSums want;
    Exact ex;
  };
  std::vector<Case> cases;  // the references once, the kernel on every target
  for (const auto& kind : kKinds) {
    for (size_t n : kSizes) {
      Data d = make(kind, n, static_cast<uint32_t>(n));
      cases.push_back({kind + " n=" + std::to_string(n), d, reference(d), exact(d)});
    }
  }
  for_each_target([&](const std::string& target) {
    for (const Case& c : cases) {
      msit::PairAccumulator acc;
      acc.add(c.d.g.data(), c.d.m.data(), c.d.g.size());
      expect_same_sums(c.want, acc, target + " " + c.name);
      expect_same_report(c.want, acc, c.ex, target + " " + c.name);
    }
  });
}

TEST(CompareKernel, TheKernelTakesTheWholeVectorPrefix) {
  // Guards against a silent fallback: on a SIMD target the reference only takes the tail.
  const Data d = make("normal", 1000, 1);
  PairSums p;
  SideSums g, m;
  const size_t done = msit::compare_detail::simd_pairs(d.g.data(), d.m.data(), 1000, p, g, m);
  if (std::string(msit::compare_detail::exact_kernel_target()) != "SCALAR") {
    EXPECT_GT(done, 1000u - 64u);
    EXPECT_EQ(p.n, done);
    EXPECT_EQ(g.n, done);
  }
}

TEST(CompareKernel, ChunkedAddsAndMergesMatchOneAdd) {
  const Data d = make("logits", 100003, 9);
  const RefSums want = reference(d);
  const Exact ex = exact(d);
  std::mt19937 rng(3);
  msit::PairAccumulator chunked, left, right;
  for (size_t off = 0; off < d.g.size();) {
    const size_t len = std::min<size_t>(d.g.size() - off, 1 + rng() % 9000);
    chunked.add(d.g.data() + off, d.m.data() + off, len);
    off += len;
  }
  expect_same_sums(want, chunked, "chunked");
  expect_same_report(want, chunked, ex, "chunked");
  // Ranges reduced apart (as threads would) merge into the same sums, in either order.
  const size_t half = 61441;  // the large logits sit on both sides
  left.add(d.g.data(), d.m.data(), half);
  right.add(d.g.data() + half, d.m.data() + half, d.g.size() - half);
  msit::PairAccumulator lr = left, rl = right;
  lr.merge(right);
  rl.merge(left);
  expect_same_sums(want, lr, "left+right");
  expect_same_report(want, lr, ex, "left+right");
  expect_same_report(want, rl, ex, "right+left");
}

// NaN and inf anywhere (vector body, tail, later chunk): counts, extremes and the reasons'
// inputs (finite flags) as the reference has them.
TEST(CompareKernel, NonFiniteValuesAnywhere) {
  for_each_target([](const std::string& target) {
    for (size_t n : {17u, 100u, 4097u}) {
      for (size_t pos : {size_t{0}, size_t{5}, size_t{16}, n - 1}) {
        for (float bad : {NAN, INFINITY, -INFINITY}) {
          for (int side = 0; side < 2; ++side) {
            Data d = make("normal", n, 5);
            (side ? d.m : d.g)[pos] = bad;
            const std::string where = target + " n=" + std::to_string(n) + " pos=" + std::to_string(pos) +
                                      " value=" + std::to_string(bad) + (side ? " my" : " golden");
            msit::PairAccumulator one, chunked;
            one.add(d.g.data(), d.m.data(), n);
            for (size_t off = 0; off < n; off += 40) {
              chunked.add(d.g.data() + off, d.m.data() + off, std::min<size_t>(40, n - off));
            }
            const RefSums want = reference(d);
            expect_same_sums(want, one, where);
            EXPECT_EQ(one.exact().golden_finite(), side == 1) << where;
            EXPECT_EQ(one.exact().my_finite(), side == 0) << where;
            EXPECT_EQ(chunked.exact().golden_finite(), side == 1) << where;
            EXPECT_EQ(chunked.exact().my_finite(), side == 0) << where;
            for (const auto* a : {&one, &chunked}) {
              const msit::SideStats s = (side ? a->mine() : a->golden()).finish();
              EXPECT_EQ(s.nan, std::isnan(bad) ? 1u : 0u) << where;
              EXPECT_EQ(s.posinf + s.neginf, std::isinf(bad) ? 1u : 0u) << where;
              if (std::isnan(bad)) { EXPECT_TRUE(std::isnan(*s.mean)) << where; }
              if (bad == INFINITY) { EXPECT_EQ(*s.max, INFINITY) << where; }
              if (bad == -INFINITY) { EXPECT_EQ(*s.min, -INFINITY) << where; }
            }
          }
        }
      }
    }
  });
}

// The vector widenings against the scalar decoders, every bit pattern.
TEST(CompareKernel, SimdDecodeEqualsScalarDecoders) {
  for_each_target([](const std::string& target) {
    std::vector<uint16_t> all16(65536);
    for (size_t i = 0; i < all16.size(); ++i) all16[i] = static_cast<uint16_t>(i);
    std::vector<float> out(all16.size());
    for (auto t : {msit::DType::kFloat16, msit::DType::kBFloat16}) {
      ASSERT_TRUE(
          msit::elements_to_float(t, reinterpret_cast<const std::byte*>(all16.data()), all16.size(), out.data()));
      for (size_t i = 0; i < all16.size(); ++i) {
        const float want = t == msit::DType::kFloat16 ? msit::fp16_to_float(all16[i]) : msit::bf16_to_float(all16[i]);
        if (std::isnan(want)) {
          EXPECT_TRUE(std::isnan(out[i])) << target << " " << i;
        } else {
          EXPECT_EQ(bits(out[i]), bits(want)) << target << " bits " << i;
        }
      }
    }
    std::vector<uint8_t> all8(256 + 17);  // odd count: vector body and tail
    for (size_t i = 0; i < all8.size(); ++i) all8[i] = static_cast<uint8_t>(i);
    out.resize(all8.size());
    for (auto t : {msit::DType::kInt8, msit::DType::kUInt8}) {
      ASSERT_TRUE(msit::elements_to_float(t, reinterpret_cast<const std::byte*>(all8.data()), all8.size(), out.data()));
      for (size_t i = 0; i < all8.size(); ++i) {
        const double want = msit::decode_element(t, reinterpret_cast<const std::byte*>(&all8[i]));
        EXPECT_EQ(out[i], static_cast<float>(want)) << target << " " << i;
      }
    }
  });
}

// Random stored bytes of a dtype that decode to finite values, or any bit pattern.
std::vector<std::byte> random_elements(msit::DType t, size_t n, uint32_t seed, bool finite_only) {
  const size_t es = msit::dtype_info(t).bits / 8;
  std::mt19937 rng(seed);
  std::vector<std::byte> b(n * es);
  for (size_t i = 0; i < n; ++i) {
    do {
      for (size_t k = 0; k < es; ++k) b[i * es + k] = static_cast<std::byte>(rng());
      if (t == msit::DType::kBool) b[i * es] = static_cast<std::byte>(rng() % 2);
    } while (finite_only && !std::isfinite(msit::decode_element(t, b.data() + i * es)));
  }
  return b;
}

// The typed add (fused widening per L1 chunk) against the float path on scalar-decoded values.
TEST(CompareKernel, EveryDtypeThroughTheTypedAdd) {
  using msit::DType;
  const std::vector<DType> types = {DType::kFloat32, DType::kFloat16,      DType::kBFloat16,   DType::kInt8,
                                    DType::kUInt8,   DType::kInt16,        DType::kInt32,      DType::kInt64,
                                    DType::kFloat64, DType::kFloat8E4M3FN, DType::kFloat8E5M2, DType::kBool,
                                    DType::kUInt16,  DType::kUInt32,       DType::kUInt64,     DType::kHiFloat8};
  for (DType gt : types) {
    for (DType mt : {DType::kFloat32, DType::kFloat16, gt}) {
      for (bool finite_only : {true, false}) {
        for (size_t n : {size_t{1}, size_t{33}, size_t{4096 + 19}, size_t{9001}}) {
          const auto gb = random_elements(gt, n, static_cast<uint32_t>(n) + 1, finite_only);
          const auto mb = random_elements(mt, n, static_cast<uint32_t>(n) + 2, finite_only);
          Data d{std::vector<float>(n), std::vector<float>(n)};
          for (size_t i = 0; i < n; ++i) {  // scalar decoders, element by element
            d.g[i] = static_cast<float>(msit::decode_element(gt, gb.data() + i * (msit::dtype_info(gt).bits / 8)));
            d.m[i] = static_cast<float>(msit::decode_element(mt, mb.data() + i * (msit::dtype_info(mt).bits / 8)));
          }
          msit::PairAccumulator acc;
          ASSERT_TRUE(acc.add(gt, gb.data(), mt, mb.data(), n));
          const std::string where = std::string(msit::dtype_info(gt).name) + " vs " +
                                    std::string(msit::dtype_info(mt).name) + " n=" + std::to_string(n) +
                                    (finite_only ? "" : " any bits");
          expect_same_sums(reference(d), acc, where);
        }
      }
    }
  }
  msit::PairAccumulator acc;
  std::vector<std::byte> b(16);
  EXPECT_FALSE(acc.add(DType::kComplex64, b.data(), DType::kFloat32, b.data(), 2));
}

}  // namespace
