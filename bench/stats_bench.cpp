// Throughput of the statistics kernels on 64 MiB of normal-distributed activations, next to
// baselines measured in the same run on the same buffers (plain read-sum, XXH3 alone). XXH3 is
// msit::Xxh3, the hash compact uses (the library's run-time dispatched build where it has one).
// The x_read counter is throughput divided by the read-sum baseline of the same buffer.
#include <benchmark/benchmark.h>
#include <cstring>
#include <ctime>
#include <map>
#include <random>
#include <vector>

#include "bench/bench_data.h"
#include "common/io/xxh3.h"
#include "common/stats/stats_internal.h"
#include "common/stats/tensor_stats.h"

namespace msit {
namespace {

constexpr size_t kBufferBytes = size_t{64} << 20;
constexpr size_t kBatchBytes = size_t{1} << 20;  // what a dump reader hands over per read

using bench::to_half;

const std::vector<std::byte>& buffer(DType t) {
  static std::map<DType, std::vector<std::byte>> cache;
  auto& buf = cache[t];
  if (!buf.empty()) return buf;
  buf.resize(kBufferBytes);
  std::mt19937 rng(1234);
  std::normal_distribution<float> act(0.1f, 1.5f);
  const size_t es = dtype_info(t).bits / 8;
  for (size_t k = 0; k < kBufferBytes / es; ++k) {
    const float f = act(rng);
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    const uint16_t h = t == DType::kFloat16 ? to_half(f) : static_cast<uint16_t>(bits >> 16);
    std::memcpy(buf.data() + k * es, es == 4 ? static_cast<const void*>(&f) : &h, es);
  }
  return buf;
}

uint64_t read_sum(const std::vector<std::byte>& buf) {
  uint64_t s = 0;
  const size_t words = buf.size() / 8;
  for (size_t k = 0; k < words; ++k) {
    uint64_t w;
    std::memcpy(&w, buf.data() + 8 * k, 8);
    s += w;
  }
  return s;
}

// CPU time, like the benchmarks themselves (the machine may be shared).
double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// Best of a few passes, measured once per buffer, so every benchmark can report x_read.
double read_bytes_per_second(DType t) {
  static std::map<DType, double> cache;
  if (auto it = cache.find(t); it != cache.end()) return it->second;
  const auto& buf = buffer(t);
  double best = 0;
  for (int rep = 0; rep < 5; ++rep) {
    const double t0 = thread_cpu_seconds();
    benchmark::DoNotOptimize(read_sum(buf));
    best = std::max(best, static_cast<double>(buf.size()) / (thread_cpu_seconds() - t0));
  }
  return cache[t] = best;
}

void report(benchmark::State& state, DType t) {
  const auto bytes = static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(kBufferBytes);
  state.SetBytesProcessed(bytes);
  state.counters["x_read"] =
      benchmark::Counter(static_cast<double>(bytes) / read_bytes_per_second(t), benchmark::Counter::kIsRate);
  state.SetLabel(std::string(dtype_name(t)) + " " + stats_detail::simd_target_name());
}

DType dtype_arg(const benchmark::State& state) { return static_cast<DType>(state.range(0)); }

void BM_ReadSum(benchmark::State& state) {
  const DType t = dtype_arg(state);
  const auto& buf = buffer(t);
  for (auto _ : state) benchmark::DoNotOptimize(read_sum(buf));
  report(state, t);
}

void BM_Xxh3(benchmark::State& state) {
  const DType t = dtype_arg(state);
  const auto& buf = buffer(t);
  for (auto _ : state) {
    Xxh3 h;
    for (size_t off = 0; off < buf.size(); off += kBatchBytes) h.update(buf.data() + off, kBatchBytes);
    benchmark::DoNotOptimize(h.digest());
  }
  report(state, t);
}

// mode 0: SIMD stats + sketch; 1: reference stats + sketch; 2: SIMD stats + sketch + XXH3.
template <int kMode>
void BM_Stats(benchmark::State& state) {
  const DType t = dtype_arg(state);
  const auto& buf = buffer(t);
  const size_t es = dtype_info(t).bits / 8;
  const uint64_t n = buf.size() / es;
  for (auto _ : state) {
    auto r = kMode == 1 ? TensorReducer::create_reference(t, n, StatsOptions{})
                        : TensorReducer::create(t, n, StatsOptions{});
    Xxh3 h;
    for (size_t off = 0; off < buf.size(); off += kBatchBytes) {
      // Hash then reduce the same batch while it is still in cache, as compact_file() does.
      if constexpr (kMode == 2) h.update(buf.data() + off, kBatchBytes);
      r->update(buf.data() + off, kBatchBytes / es);
    }
    if constexpr (kMode == 2) benchmark::DoNotOptimize(h.digest());
    benchmark::DoNotOptimize(r->finish());
  }
  report(state, t);
}

void dtypes(benchmark::internal::Benchmark* b) {
  for (DType t : {DType::kFloat16, DType::kBFloat16, DType::kFloat32}) b->Arg(static_cast<int>(t));
  // CPU time: the build machine is shared, wall time would measure the neighbours.
  b->Unit(benchmark::kMillisecond);
}

BENCHMARK(BM_ReadSum)->Apply(dtypes);
BENCHMARK(BM_Xxh3)->Apply(dtypes);
BENCHMARK(BM_Stats<0>)->Name("BM_StatsSketchSimd")->Apply(dtypes);
BENCHMARK(BM_Stats<2>)->Name("BM_StatsSketchXxh3Simd")->Apply(dtypes);
BENCHMARK(BM_Stats<1>)->Name("BM_StatsSketchReference")->Apply(dtypes)->Iterations(2);

}  // namespace
}  // namespace msit

BENCHMARK_MAIN();
