// The seven msit metrics against a direct two-pass reference, msit's masking and rounding,
// side statistics, sketch estimators and statistics errors.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "common/compare/metrics.h"

namespace {

std::vector<float> randn(size_t n, uint32_t seed, float scale = 1.0f) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> d(0.0f, scale);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

struct Ref {
  double cosine, max_rel, mean_rel, max_abs, mean_abs, kl, red;
};

// Straight from docs/formats/report.md §4, two passes, no streaming tricks.
Ref reference(const std::vector<float>& g, const std::vector<float>& m) {
  Ref r{};
  double dot = 0, gg = 0, mm = 0, d2 = 0, srel = 0, sabs = 0;
  for (size_t i = 0; i < g.size(); ++i) {
    dot += double(g[i]) * m[i];
    gg += double(g[i]) * g[i];
    mm += double(m[i]) * m[i];
    d2 += double(m[i] - g[i]) * double(m[i] - g[i]);
    if (std::fabs(g[i]) > msit::kFltEpsilon) {
      double rel = std::fabs(double(m[i]) / g[i] - 1), a = std::fabs(double(m[i]) - g[i]);
      r.max_rel = std::max(r.max_rel, rel);
      r.max_abs = std::max(r.max_abs, a);
      srel += rel;
      sabs += a;
    }
  }
  r.cosine = dot / (std::sqrt(gg) * std::sqrt(mm));
  r.mean_rel = srel / g.size();
  r.mean_abs = sabs / g.size();
  r.red = std::sqrt(d2 / gg);
  double gmax = -INFINITY, mmax = -INFINITY, gs = 0, ms = 0;
  for (size_t i = 0; i < g.size(); ++i) {
    gmax = std::max(gmax, double(g[i]));
    mmax = std::max(mmax, double(m[i]));
  }
  for (size_t i = 0; i < g.size(); ++i) {
    gs += std::exp(g[i] - gmax);
    ms += std::exp(m[i] - mmax);
  }
  for (size_t i = 0; i < g.size(); ++i) {
    double lp = g[i] - gmax - std::log(gs), lq = m[i] - mmax - std::log(ms);
    r.kl += std::exp(lp) * (lp - lq);
  }
  return r;
}

TEST(CompareMetrics, StreamingMatchesReferenceInChunks) {
  auto g = randn(100003, 1, 3.0f), m = g;
  auto noise = randn(m.size(), 2, 0.05f);
  for (size_t i = 0; i < m.size(); ++i) m[i] += noise[i];
  g[5] = 0.0f;  // masked position: ignored by the relative and absolute errors
  m[5] = 1000.0f;
  g[7] = 40.0f;  // a large logit: exercises the running-max rescaling of the KL sums
  msit::ExactAccumulator acc;
  for (size_t off = 0; off < g.size(); off += 4096) {
    size_t n = std::min<size_t>(4096, g.size() - off);
    acc.add(g.data() + off, m.data() + off, n);
  }
  auto v = acc.finish();
  Ref r = reference(g, m);
  EXPECT_NEAR(*v.cosine, r.cosine, 1e-9);
  EXPECT_NEAR(*v.max_rel, r.max_rel, r.max_rel * 1e-5);
  EXPECT_NEAR(*v.mean_rel, r.mean_rel, r.mean_rel * 1e-5);
  EXPECT_NEAR(*v.max_abs, r.max_abs, 1e-5);
  EXPECT_LT(*v.max_abs, 100.0);  // the masked 1000 is not seen
  EXPECT_NEAR(*v.mean_abs, r.mean_abs, r.mean_abs * 1e-5);
  EXPECT_NEAR(*v.kl, std::max(r.kl, 0.0), 1e-6 * std::max(1.0, r.kl));  // float32 result
  EXPECT_NEAR(*v.red, r.red, r.red * 1e-5);
}

TEST(CompareMetrics, MsitSpecialCases) {
  std::vector<float> z(10, 0.0f), one(10, 1.0f);
  msit::ExactAccumulator both_zero;
  both_zero.add(z.data(), z.data(), z.size());
  auto v = both_zero.finish();
  EXPECT_EQ(*v.cosine, 1.0);
  EXPECT_EQ(*v.red, 0.0);  // sqrt(sum g^2) <= eps
  msit::ExactAccumulator one_zero;
  one_zero.add(z.data(), one.data(), z.size());
  v = one_zero.finish();
  EXPECT_EQ(*v.cosine, 0.0);
  EXPECT_EQ(*v.max_abs, 0.0);  // golden ~ 0 everywhere: masked
  msit::ExactAccumulator empty;
  EXPECT_FALSE(empty.finish().cosine.has_value());
  std::vector<float> nan = {1.0f, NAN};
  msit::ExactAccumulator with_nan;
  with_nan.add(one.data(), nan.data(), 2);
  EXPECT_TRUE(with_nan.golden_finite());
  EXPECT_FALSE(with_nan.my_finite());
}

TEST(CompareMetrics, Round10IsPythonRound) {
  EXPECT_EQ(msit::round10(0.99999999996), 1.0);
  EXPECT_EQ(msit::round10(0.123456789012345), 0.1234567890);
  EXPECT_EQ(msit::round10(-0.5), -0.5);
  EXPECT_EQ(msit::round10(0.00000000005), 1e-10);  // 5e-11 is just above the tie in binary (Python: 1e-10)
  EXPECT_EQ(msit::round10(0.00000000025), 3e-10);  // Python: 3e-10
}

// round10's arithmetic fast path against printf's correctly rounded decimal, where ties and
// near-ties are the risk: every value must round as "%.10f" does.
TEST(CompareMetrics, Round10MatchesPrintfEverywhere) {
  auto reference = [](double x) {
    char buf[400];
    std::snprintf(buf, sizeof buf, "%.10f", x);
    return std::strtod(buf, nullptr);
  };
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  std::vector<double> xs = {0.0, -0.0, 1.0, -1.0, 4.0, -4.0, 4.5, 1e-11, -1e-11, 0.9999999999, 0.99999999995};
  for (int i = 0; i < 200000; ++i) xs.push_back(unit(rng));
  for (int i = 0; i < 20000; ++i) {
    const double k = std::floor(unit(rng) * 1e10);
    for (double off : {0.5, 0.49999, 0.50001, 0.0, 1e-7}) {
      const double t = (k + off) / 1e10;
      xs.push_back(t);
      xs.push_back(std::nextafter(t, 2.0));
      xs.push_back(std::nextafter(t, -2.0));
    }
  }
  for (int i = 0; i < 1000; ++i) xs.push_back(unit(rng) * 100.0);  // beyond the fast path
  for (double x : xs) {
    const double got = msit::round10(x), want = reference(x);
    ASSERT_EQ(std::bit_cast<uint64_t>(got), std::bit_cast<uint64_t>(want)) << std::hexfloat << x;
  }
}

TEST(CompareMetrics, SideStatsPropagateNan) {
  std::vector<float> x = {1.0f, -2.0f, 3.0f};
  msit::SideAccumulator a;
  a.add(x.data(), x.size());
  auto s = a.finish();
  EXPECT_EQ(*s.max, 3.0);
  EXPECT_EQ(*s.min, -2.0);
  EXPECT_EQ(*s.mean, static_cast<double>(static_cast<float>(2.0 / 3.0)));
  x.push_back(NAN);
  msit::SideAccumulator b;
  b.add(x.data(), x.size());
  s = b.finish();
  EXPECT_TRUE(std::isnan(*s.max));
  EXPECT_EQ(s.nan, 1u);
}

TEST(CompareMetrics, SketchEstimateWithin25Percent) {
  for (uint32_t seed = 1; seed <= 5; ++seed) {
    auto gf = randn(50000, seed), nf = randn(50000, seed + 100, 0.1f);
    std::vector<double> g(gf.begin(), gf.end()), m(g.size());
    for (size_t i = 0; i < g.size(); ++i) m[i] = g[i] + nf[i];
    auto sg = msit::sketch_of_values(g, 128, msit::kDefaultSketchSeed);
    auto sm = msit::sketch_of_values(m, 128, msit::kDefaultSketchSeed);
    double gl = 0, ml = 0, d2 = 0;
    for (size_t i = 0; i < g.size(); ++i) {
      gl += g[i] * g[i];
      ml += m[i] * m[i];
      d2 += (m[i] - g[i]) * (m[i] - g[i]);
    }
    auto e = msit::estimate_from_sketches(sg, sm, std::sqrt(gl), std::sqrt(ml), g.size());
    double red = std::sqrt(d2 / gl);
    EXPECT_NEAR(*e.red / red, 1.0, 0.25);
    EXPECT_NEAR(*e.cosine, (gl + ml - d2) / (2 * std::sqrt(gl) * std::sqrt(ml)), 0.01);
  }
}

TEST(CompareMetrics, StatErrorsAndVerdicts) {
  auto e = msit::stat_error(2.0, 3.0);
  EXPECT_EQ(*e.abs, 1.0);
  EXPECT_EQ(*e.rel, 0.5);
  e = msit::stat_error(0.0, 1.0);
  EXPECT_EQ(*e.rel, 1.0 / msit::kFltEpsilon);
  EXPECT_FALSE(msit::stat_error(std::nullopt, 1.0).abs.has_value());
  EXPECT_EQ(msit::verdict_exact(0.995, 0.01), msit::Verdict::kPass);
  EXPECT_EQ(msit::verdict_exact(0.985, 0.01), msit::Verdict::kFail);
  EXPECT_EQ(msit::verdict_exact(0.985, 0.0005), msit::Verdict::kPass);
  EXPECT_EQ(msit::verdict_exact(0.89, 0.0), msit::Verdict::kFail);
  EXPECT_EQ(msit::verdict_exact(1.0, 1.5), msit::Verdict::kFail);
  EXPECT_EQ(msit::verdict_estimated(std::nullopt, 2.0), msit::Verdict::kFail);
  // Statistics alone cannot show a pass: below the bound anything is possible.
  EXPECT_EQ(msit::verdict_estimated(std::nullopt, 0.0), msit::Verdict::kInconclusive);
  EXPECT_EQ(msit::verdict_name(msit::Verdict::kInconclusive), "inconclusive");
}

}  // namespace
