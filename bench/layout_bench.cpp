// LogicalReader throughput: ND vs FRACTAL_NZ vs NC1HWC0 (fp16, bf16, fp32) on page-cached files
// in /tmp, reader alone and reader + TensorReducer + XXH3 (what compact does), plus a plain
// sequential pread baseline. Bytes/s count logical (delivered) bytes.
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <unistd.h>
#include <xxhash.h>

#include <cmath>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "common/layout/logical_stream.h"
#include "common/stats/tensor_stats.h"

namespace {

using msit::DType;
using msit::TensorDesc;
namespace fmt = msit::ge_format;

// Logical 4100 x 4100 (not a multiple of 16: padding in NZ) and NCHW 8 x 250 x 64 x 130.
constexpr uint64_t kRows = 4100, kCols = 4100;
constexpr uint64_t kN = 8, kC = 250, kH = 64, kW = 130;

struct BenchFile {
  std::string path;
  TensorDesc desc;
  uint64_t logical_bytes = 0;
};

uint64_t up(uint64_t a, uint64_t b) { return (a + b - 1) / b * b; }

// Finite random values of the dtype (fp16 / bf16 / fp32 bit patterns).
std::vector<std::byte> random_values(DType dt, uint64_t n) {
  std::mt19937 rng(42);
  std::normal_distribution<float> dist(0.f, 1.f);
  const size_t es = msit::dtype_info(dt).bits / 8;
  std::vector<std::byte> out(n * es);
  for (uint64_t i = 0; i < n; ++i) {
    float f = dist(rng);
    uint32_t u;
    std::memcpy(&u, &f, 4);
    if (dt == DType::kFloat32) {
      std::memcpy(&out[i * 4], &u, 4);
    } else {
      // bf16: top half; "fp16": any finite pattern with exponent < 31 will do for throughput.
      uint16_t h = dt == DType::kBFloat16 ? static_cast<uint16_t>(u >> 16) : static_cast<uint16_t>((u >> 16) & 0xBBFF);
      std::memcpy(&out[i * 2], &h, 2);
    }
  }
  return out;
}

BenchFile write_file(const std::string& name, TensorDesc t, const std::vector<std::byte>& payload,
                     uint64_t logical_bytes) {
  BenchFile f;
  f.path = "/tmp/msit_layout_bench_" + name;
  int fd = ::open(f.path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (fd < 0 || ::write(fd, payload.data(), payload.size()) != static_cast<ssize_t>(payload.size())) {
    std::fprintf(stderr, "cannot write %s\n", f.path.c_str());
    std::exit(1);
  }
  ::close(fd);
  t.payload_offset = 0;
  t.payload_size = payload.size();
  f.desc = t;
  f.logical_bytes = logical_bytes;
  return f;
}

BenchFile make_nd(DType dt) {
  TensorDesc t;
  t.dtype = dt;
  t.ge_format = fmt::kND;
  t.shape = t.original_shape = {kRows, kCols};
  auto v = random_values(dt, kRows * kCols);
  return write_file("nd_" + std::string(msit::dtype_name(dt)), t, v, v.size());
}

BenchFile make_nz(DType dt) {
  const size_t es = msit::dtype_info(dt).bits / 8;
  const uint64_t c0 = 32 / es, n0 = 16, c1 = up(kCols, c0) / c0, n1 = up(kRows, n0) / n0;
  auto v = random_values(dt, kRows * kCols);
  std::vector<std::byte> dev(c1 * n1 * n0 * c0 * es);
  for (uint64_t i = 0; i < kRows; ++i) {
    for (uint64_t j = 0; j < kCols; ++j) {
      const uint64_t d = ((j / c0) * n1 * n0 + i) * c0 + j % c0;
      std::memcpy(&dev[d * es], &v[(i * kCols + j) * es], es);
    }
  }
  TensorDesc t;
  t.dtype = dt;
  t.ge_format = fmt::kFractalNZ;
  t.shape = {c1, n1, n0, c0};
  t.original_shape = {kRows, kCols};
  return write_file("nz_" + std::string(msit::dtype_name(dt)), t, dev, v.size());
}

BenchFile make_nc1hwc0(DType dt) {
  const size_t es = msit::dtype_info(dt).bits / 8;
  const uint64_t c0 = 16, c1 = up(kC, c0) / c0, hw = kH * kW;
  auto v = random_values(dt, kN * kC * hw);
  std::vector<std::byte> dev(kN * c1 * hw * c0 * es);
  for (uint64_t n = 0; n < kN; ++n) {
    for (uint64_t c = 0; c < kC; ++c) {
      for (uint64_t p = 0; p < hw; ++p) {
        const uint64_t d = ((n * c1 + c / c0) * hw + p) * c0 + c % c0;
        std::memcpy(&dev[d * es], &v[((n * kC + c) * hw + p) * es], es);
      }
    }
  }
  TensorDesc t;
  t.dtype = dt;
  t.ge_format = fmt::kNC1HWC0;
  t.shape = {kN, c1, kH, kW, c0};
  t.original_shape = {kN, kC, kH, kW};
  return write_file("nc1hwc0_" + std::string(msit::dtype_name(dt)), t, dev, v.size());
}

std::map<std::string, BenchFile>& files() {
  static std::map<std::string, BenchFile> f;
  return f;
}

const BenchFile& get(const std::string& format, DType dt) {
  const std::string key = format + "_" + std::string(msit::dtype_name(dt));
  auto it = files().find(key);
  if (it != files().end()) return it->second;
  BenchFile f = format == "nd" ? make_nd(dt) : format == "nz" ? make_nz(dt) : make_nc1hwc0(dt);
  return files().emplace(key, f).first->second;
}

constexpr DType kDtypes[] = {DType::kFloat16, DType::kBFloat16, DType::kFloat32};
const char* const kFormats[] = {"nd", "nz", "nc1hwc0"};

// mode 0: reader only; 1: reader + XXH3 observer + TensorReducer (compact's inner loop).
void bm_reader(benchmark::State& state, const char* format, DType dt, int mode) {
  const BenchFile& f = get(format, dt);
  int fd = ::open(f.path.c_str(), O_RDONLY);
  auto plan = msit::plan_layout(f.desc, f.path);
  if (!plan.ok()) {
    state.SkipWithError(plan.error().to_string().c_str());
    return;
  }
  const size_t es = msit::dtype_info(dt).bits / 8;
  std::vector<std::byte> batch(256u << 10);
  for (auto _ : state) {
    auto r = msit::LogicalReader::open(fd, f.path, f.desc, *plan);
    XXH3_state_t* h = XXH3_createState();
    XXH3_64bits_reset(h);
    std::unique_ptr<msit::TensorReducer> red;
    if (mode == 1) {
      (*r)->set_raw_observer([h](std::span<const std::byte> b) { XXH3_64bits_update(h, b.data(), b.size()); });
      red = msit::TensorReducer::create(dt, plan->element_count, msit::StatsOptions{}, true);
    }
    uint64_t total = 0;
    while (true) {
      auto n = (*r)->read(batch.data(), batch.size() / es);
      if (!n.ok() || *n == 0) break;
      if (red) red->update(batch.data(), *n);
      total += *n;
    }
    if (red) benchmark::DoNotOptimize(red->finish());
    benchmark::DoNotOptimize(XXH3_64bits_digest(h));
    XXH3_freeState(h);
    if (total != plan->element_count) state.SkipWithError("short stream");
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * f.logical_bytes));
  ::close(fd);
}

// Baseline: sequential 1 MiB preads of the ND file, no copy out, no decoding.
void bm_pread(benchmark::State& state, DType dt) {
  const BenchFile& f = get("nd", dt);
  int fd = ::open(f.path.c_str(), O_RDONLY);
  std::vector<char> buf(1u << 20);
  for (auto _ : state) {
    for (uint64_t off = 0; off < f.desc.payload_size; off += buf.size()) {
      benchmark::DoNotOptimize(::pread(fd, buf.data(), buf.size(), static_cast<off_t>(off)));
    }
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * f.logical_bytes));
  ::close(fd);
}

}  // namespace

int main(int argc, char** argv) {
  for (DType dt : kDtypes) {
    const std::string dn(msit::dtype_name(dt));
    benchmark::RegisterBenchmark(("pread_baseline/" + dn).c_str(), bm_pread, dt)->Unit(benchmark::kMillisecond);
    for (int mode : {0, 1}) {
      for (const char* format : kFormats) {
        const std::string name = std::string(mode ? "stats+hash/" : "reader/") + format + "/" + dn;
        benchmark::RegisterBenchmark(name.c_str(), bm_reader, format, dt, mode)->Unit(benchmark::kMillisecond);
      }
    }
  }
  benchmark::Initialize(&argc, argv);
  // Create every file first and let writeback finish, so no run pays for another's setup.
  for (DType dt : kDtypes) {
    for (const char* format : kFormats) get(format, dt);
  }
  ::sync();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  for (const auto& [key, f] : files()) ::unlink(f.path.c_str());
  return 0;
}
