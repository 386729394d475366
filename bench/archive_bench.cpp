// Archive codecs on 32 MiB of normal-distributed activations per dtype: plain zstd -1,
// byte-shuffled zstd -1 and -3 (what --archive writes, in its 1 MiB blocks), gzip -1 (the
// everyday alternative), shuffled decode, and a memcpy baseline of the same buffer measured in
// the same run. Counters: ratio = original / compressed, x_copy = throughput / memcpy's.
#include <benchmark/benchmark.h>
#include <zlib.h>
#include <zstd.h>

#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "bench/bench_data.h"
#include "common/archive/shuffle.h"

namespace msit {
namespace {

constexpr size_t kBufferBytes = size_t{32} << 20;
constexpr size_t kBlock = size_t{1} << 20;  // archive::ArchiveOptions::block_bytes default

enum Data : int { kF16, kBF16, kF32, kBF16AsF32 };
const char* const kDataName[] = {"fp16", "bf16", "fp32", "bf16_as_fp32"};
size_t elem_of(Data d) { return d == kF16 || d == kBF16 ? 2 : 4; }

using bench::to_half;

// Activations: per-channel scales (hidden size 4096) times N(0, 1), a few large outliers,
// as LLM hidden states look; bf16_as_fp32 is what FX dumps store for bf16 models.
const std::vector<std::byte>& buffer(Data d) {
  static std::map<int, std::vector<std::byte>> cache;
  auto& buf = cache[d];
  if (!buf.empty()) return buf;
  buf.resize(kBufferBytes);
  std::mt19937 rng(99);
  std::normal_distribution<float> n01(0.f, 1.f);
  std::vector<float> scale(4096);
  for (auto& s : scale) s = std::exp(n01(rng) * 0.7f) * (rng() % 500 == 0 ? 40.f : 1.f);
  const size_t es = elem_of(d);
  for (size_t k = 0; k < kBufferBytes / es; ++k) {
    const float f = n01(rng) * scale[k % scale.size()];
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    if (d == kF32) {
      std::memcpy(buf.data() + k * 4, &f, 4);
    } else if (d == kBF16AsF32) {
      bits &= 0xffff0000u;
      std::memcpy(buf.data() + k * 4, &bits, 4);
    } else {
      const uint16_t h = d == kF16 ? to_half(f) : static_cast<uint16_t>(bits >> 16);
      std::memcpy(buf.data() + k * 2, &h, 2);
    }
  }
  return buf;
}

void report(benchmark::State& state, size_t in, size_t out) {
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * in));
  state.counters["ratio"] = static_cast<double>(in) / static_cast<double>(out);
}

void BM_Memcpy(benchmark::State& state) {
  const auto& in = buffer(static_cast<Data>(state.range(0)));
  std::vector<std::byte> out(in.size());
  for (auto _ : state) {
    std::memcpy(out.data(), in.data(), in.size());
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * in.size()));
  state.SetLabel(kDataName[state.range(0)]);
}

// Block-wise zstd as the archive does it; shuffle=false is plain zstd on the same blocks.
void BM_Zstd(benchmark::State& state, bool shuffle, int level) {
  const Data d = static_cast<Data>(state.range(0));
  const auto& in = buffer(d);
  std::vector<std::byte> shuffled(kBlock), frame(ZSTD_compressBound(kBlock));
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, level);
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
  size_t out = 0;
  for (auto _ : state) {
    out = 0;
    for (size_t off = 0; off < in.size(); off += kBlock) {
      const std::byte* src = in.data() + off;
      if (shuffle) {
        archive::shuffle_bytes(src, shuffled.data(), kBlock, elem_of(d));
        src = shuffled.data();
      }
      out += ZSTD_compress2(cctx, frame.data(), frame.size(), src, kBlock);
    }
  }
  ZSTD_freeCCtx(cctx);
  report(state, in.size(), out);
  state.SetLabel(kDataName[d]);
}

void BM_ShuffledZstdDecode(benchmark::State& state) {
  const Data d = static_cast<Data>(state.range(0));
  const auto& in = buffer(d);
  std::vector<std::vector<std::byte>> frames;
  std::vector<std::byte> shuffled(kBlock), out(kBlock);
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  for (size_t off = 0; off < in.size(); off += kBlock) {
    archive::shuffle_bytes(in.data() + off, shuffled.data(), kBlock, elem_of(d));
    std::vector<std::byte> f(ZSTD_compressBound(kBlock));
    f.resize(ZSTD_compressCCtx(cctx, f.data(), f.size(), shuffled.data(), kBlock, 1));
    frames.push_back(std::move(f));
  }
  ZSTD_freeCCtx(cctx);
  ZSTD_DCtx* dctx = ZSTD_createDCtx();
  for (auto _ : state) {
    for (const auto& f : frames) {
      ZSTD_decompressDCtx(dctx, shuffled.data(), kBlock, f.data(), f.size());
      archive::unshuffle_bytes(shuffled.data(), out.data(), kBlock, elem_of(d));
    }
    benchmark::DoNotOptimize(out.data());
  }
  ZSTD_freeDCtx(dctx);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * in.size()));
  state.SetLabel(kDataName[d]);
}

// gzip -1 over the whole buffer, one stream (as `gzip -1 FILE` would).
void BM_Gzip1(benchmark::State& state) {
  const Data d = static_cast<Data>(state.range(0));
  const auto& in = buffer(d);
  std::vector<unsigned char> out(compressBound(static_cast<uLong>(in.size())) + 64);
  size_t produced = 0;
  for (auto _ : state) {
    z_stream z{};
    deflateInit2(&z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
    z.next_in = reinterpret_cast<Bytef*>(const_cast<std::byte*>(in.data()));
    z.avail_in = static_cast<uInt>(in.size());
    z.next_out = out.data();
    z.avail_out = static_cast<uInt>(out.size());
    deflate(&z, Z_FINISH);
    produced = z.total_out;
    deflateEnd(&z);
  }
  report(state, in.size(), produced);
  state.SetLabel(kDataName[d]);
}

void args(benchmark::internal::Benchmark* b) {
  for (int d = kF16; d <= kBF16AsF32; ++d) b->Arg(d);
  b->Unit(benchmark::kMillisecond)->UseRealTime();
}

BENCHMARK(BM_Memcpy)->Apply(args);
BENCHMARK_CAPTURE(BM_Zstd, plain_zstd1, false, 1)->Apply(args);
BENCHMARK_CAPTURE(BM_Zstd, shuffled_zstd1, true, 1)->Apply(args);
BENCHMARK_CAPTURE(BM_Zstd, shuffled_zstd3, true, 3)->Apply(args);
BENCHMARK(BM_ShuffledZstdDecode)->Apply(args);
BENCHMARK(BM_Gzip1)->Apply(args);

}  // namespace
}  // namespace msit

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  std::printf("shuffle kernel target: %s\n", msit::archive::shuffle_target_name());
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
