// The softmax sums of the Highway pair kernel (its own table-driven float64 exponential,
// common/compare/exact_kernel_simd.cpp) against long double sums, on every SIMD target this
// CPU runs: arguments over the whole range down to the cut-off at -708 and beyond, logits of
// a few large values, and pairs close enough that KL lives on the last digits of the sums.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "common/compare/exact_kernel.h"
#include "common/compare/metrics.h"
#include "hwy/targets.h"

namespace {

using msit::compare_detail::PairSums;
using msit::compare_detail::SideSums;

struct Data {
  std::vector<float> g, m;
};

Data make(const std::string& kind, size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  Data d{std::vector<float>(n), std::vector<float>(n)};
  for (size_t i = 0; i < n; ++i) {
    const float x = nd(rng), e = nd(rng);
    if (kind == "normal") {
      d.g[i] = 2 * x, d.m[i] = 2 * x + 0.01f * e;
    } else if (kind == "close") {
      d.g[i] = x, d.m[i] = x + 1e-4f * e;  // KL ~ 5e-9
    } else if (kind == "wide") {           // exp arguments across [-760, 0]: the table's whole exponent range
      d.g[i] = i == 0 ? 0.0f : -760.0f * u(rng), d.m[i] = i == 1 ? 3.0f : -740.0f * u(rng);
    } else if (kind == "cutoff") {  // around -708 (the cut-off) and -745 (below any double)
      d.g[i] = i == 0 ? 0.0f : -700.0f - 50.0f * u(rng), d.m[i] = i == 0 ? 0.0f : -708.0f + u(rng) - 0.5f;
    } else if (kind == "grid") {  // every table slot and rounding boundary: steps of ln2/1024
      d.g[i] = i == 0 ? 0.0f : -static_cast<float>(i) * 0.000676914f, d.m[i] = d.g[i] * 1.5f;
    } else if (kind == "logits") {
      d.g[i] = x + (i % 301 == 100 ? 30.0f : 0.0f), d.m[i] = d.g[i] + 0.1f * e;
    }
  }
  return d;
}

// sum exp(x - max x) and sum exp(g - g_max) (g - m), in long double.
struct Exact {
  long double g_sum = 0, m_sum = 0, t = 0;
};
Exact exact(const Data& d) {
  long double gmax = -INFINITY, mmax = -INFINITY;
  for (size_t i = 0; i < d.g.size(); ++i)
    gmax = std::max<long double>(gmax, d.g[i]), mmax = std::max<long double>(mmax, d.m[i]);
  Exact e;
  for (size_t i = 0; i < d.g.size(); ++i) {
    const long double a = std::exp(static_cast<long double>(d.g[i]) - gmax);
    e.g_sum += a;
    e.t += a * (static_cast<long double>(d.g[i]) - d.m[i]);
    e.m_sum += std::exp(static_cast<long double>(d.m[i]) - mmax);
  }
  return e;
}

TEST(CompareSoftmax, KernelSumsMatchLongDoubleOnEveryTarget) {
  const std::vector<std::string> kinds = {"normal", "close", "wide", "cutoff", "grid", "logits"};
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    const std::string tname = hwy::TargetName(target);
    for (const auto& kind : kinds) {
      for (size_t n : {size_t{256}, size_t{4096}, size_t{20000}}) {
        const Data d = make(kind, n, static_cast<uint32_t>(n));
        PairSums p;
        SideSums gs, ms;
        const size_t done = msit::compare_detail::simd_pairs(d.g.data(), d.m.data(), n, p, gs, ms);
        msit::compare_detail::reference_pairs(d.g.data() + done, d.m.data() + done, n - done, p);
        const Exact e = exact(d);
        const std::string where = tname + " " + kind + " n=" + std::to_string(n) + " simd " + std::to_string(done);
        // Double sums of n positive terms: relative error within ~n/lanes roundings, far less
        // than one float32 ulp of what the report prints.
        const long double tol = 2e-16L * (static_cast<long double>(n) / 8 + 16);
        EXPECT_LE(std::fabs(p.g_sum - e.g_sum), tol * e.g_sum) << where << " g_sum " << p.g_sum;
        EXPECT_LE(std::fabs(p.m_sum - e.m_sum), tol * e.m_sum) << where << " m_sum " << p.m_sum;
        long double abs_t = 0;  // t's terms have both signs: bound by the sum of their sizes
        const long double gmax = p.g_max;
        for (size_t i = 0; i < n; ++i) {
          abs_t += std::exp(d.g[i] - gmax) * std::fabs(static_cast<long double>(d.g[i]) - d.m[i]);
        }
        EXPECT_LE(std::fabs(p.t - e.t), tol * abs_t + 1e-300L) << where << " t " << p.t;
      }
    }
  }
  hwy::SetSupportedTargetsForTest(0);
}

// KL of nearly equal tensors is a difference of log-sum-exps: it keeps its float32 digits only
// when the exponentials are float64-exact, on every target.
TEST(CompareSoftmax, KlOfCloseTensorsKeepsItsDigits) {
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    const Data d = make("close", 1 << 16, 3);
    msit::ExactAccumulator acc;
    acc.add(d.g.data(), d.m.data(), d.g.size());
    const Exact e = exact(d);
    long double gmax = -INFINITY, mmax = -INFINITY;
    for (size_t i = 0; i < d.g.size(); ++i)
      gmax = std::max<long double>(gmax, d.g[i]), mmax = std::max<long double>(mmax, d.m[i]);
    const long double kl = e.t / e.g_sum - (gmax + std::log(e.g_sum)) + (mmax + std::log(e.m_sum));
    ASSERT_GT(kl, 0.0L);
    EXPECT_NEAR(*acc.finish().kl, static_cast<double>(kl), 1e-6 * static_cast<double>(kl) + 1e-13)
        << hwy::TargetName(target);
  }
  hwy::SetSupportedTargetsForTest(0);
}

}  // namespace
