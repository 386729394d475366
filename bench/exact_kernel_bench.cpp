// The raw compare's per-element cost without any reading (issue 31 part 1 floor): the exact
// metrics kernel on float32 pairs already in cache (64K pairs, what one lockstep read hands
// over), next to a plain read-sum of the same buffers measured in the same run. Figures are
// CPU time (the machine may be shared); items_per_second counts pairs.
#include <benchmark/benchmark.h>
#include <cstring>
#include <random>
#include <vector>

#include "common/compare/metrics.h"

namespace msit {
namespace {

constexpr size_t kPairs = size_t{1} << 16;

struct Pair {
  std::vector<float> g, m;
};

const Pair& pair() {
  static Pair p = [] {
    Pair q;
    std::mt19937 rng(7);
    std::normal_distribution<float> act(0.0f, 1.0f), noise(0.0f, 1e-3f);
    q.g.resize(kPairs);
    q.m.resize(kPairs);
    for (size_t i = 0; i < kPairs; ++i) {
      q.g[i] = act(rng);
      q.m[i] = q.g[i] + noise(rng);
    }
    return q;
  }();
  return p;
}

void set_rate(benchmark::State& st) { st.SetItemsProcessed(static_cast<int64_t>(st.iterations() * kPairs)); }

void BM_ReadSumBaseline(benchmark::State& st) {
  const Pair& p = pair();
  for (auto _ : st) {
    float s = 0;
    for (size_t i = 0; i < kPairs; ++i) s += p.g[i] + p.m[i];
    benchmark::DoNotOptimize(s);
  }
  set_rate(st);
}
BENCHMARK(BM_ReadSumBaseline);

void BM_PairKernel(benchmark::State& st) {
  const Pair& p = pair();
  for (auto _ : st) {
    PairAccumulator acc;
    acc.add(p.g.data(), p.m.data(), kPairs);
    benchmark::DoNotOptimize(acc);
  }
  set_rate(st);
}
BENCHMARK(BM_PairKernel);

void BM_PairKernelF16(benchmark::State& st) {
  const Pair& p = pair();
  std::vector<uint16_t> g(kPairs), m(kPairs);
  for (size_t i = 0; i < kPairs; ++i) {  // bfloat16 by truncation: a widening the kernel decodes
    uint32_t a, b;
    std::memcpy(&a, &p.g[i], 4);
    std::memcpy(&b, &p.m[i], 4);
    g[i] = static_cast<uint16_t>(a >> 16);
    m[i] = static_cast<uint16_t>(b >> 16);
  }
  for (auto _ : st) {
    PairAccumulator acc;
    acc.add(DType::kBFloat16, reinterpret_cast<const std::byte*>(g.data()), DType::kBFloat16,
            reinterpret_cast<const std::byte*>(m.data()), kPairs);
    benchmark::DoNotOptimize(acc);
  }
  set_rate(st);
}
BENCHMARK(BM_PairKernelF16);

}  // namespace
}  // namespace msit

BENCHMARK_MAIN();
