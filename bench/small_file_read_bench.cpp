// Reading many small summary files, as compare does (100,000s of ~3 KB files): one by one
// (open, fstat, read, close per file: read_small_file_into) against SmallFileBatch with and
// without io_uring, and a baseline of open + close alone measured in the same run.
// Counter x_one_by_one = files per second / the one-by-one reader's (set after it has run).
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "common/io/batch_read.h"
#include "common/io/file.h"

namespace msit {
namespace {

constexpr size_t kFiles = 20000;
constexpr size_t kFileBytes = 3162;  // a width-128 summary of one 1024-element tensor
constexpr size_t kBatch = 64;        // compare's batch: 32 pairs, two files each

// Removed at exit: the files are generated data.
struct TempTree {
  std::string root = (std::filesystem::temp_directory_path() / "msit_small_file_read_bench").string();
  ~TempTree() {
    std::error_code ec;
    std::filesystem::remove_all(root, ec);
  }
};

// Two directories, files alternating between them, like the golden and my trees of a compare.
const std::vector<std::string>& files() {
  static TempTree tree;
  static std::vector<std::string> paths = [] {
    const std::string& root = tree.root;
    std::filesystem::remove_all(root);
    std::vector<std::string> out;
    std::string body(kFileBytes, '7');
    for (size_t i = 0; i < kFiles; ++i) {
      std::string dir = root + (i % 2 ? "/my" : "/golden");
      std::filesystem::create_directories(dir);
      out.push_back(dir + "/op" + std::to_string(i) + "-aten.add.Tensor.OUTPUT.0.npy.summary.json");
      std::ofstream(out.back(), std::ios::binary) << body;
    }
    return out;
  }();
  return paths;
}

double g_one_by_one = 0;  // files per second of BM_OneByOne

void finish(benchmark::State& state, bool baseline) {
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * kFiles));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * kFiles * kFileBytes));
  state.counters["files_per_s"] =
      benchmark::Counter(static_cast<double>(state.iterations() * kFiles), benchmark::Counter::kIsRate);
  if (!baseline && g_one_by_one > 0) {
    state.counters["x_one_by_one"] = benchmark::Counter(static_cast<double>(state.iterations() * kFiles) / g_one_by_one,
                                                        benchmark::Counter::kIsRate);
  }
}

void BM_OpenCloseOnly(benchmark::State& state) {
  const auto& paths = files();
  for (auto _ : state) {
    for (const auto& p : paths) ::close(::open(p.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK));
  }
  finish(state, false);
}

void BM_OneByOne(benchmark::State& state) {
  const auto& paths = files();
  std::string buf;
  size_t size = 0;
  auto start = std::chrono::steady_clock::now();
  for (auto _ : state) {
    for (const auto& p : paths) {
      if (!read_small_file_into(p, 1 << 20, 64, buf, size).ok()) state.SkipWithError("read failed");
      benchmark::DoNotOptimize(buf.data());
    }
  }
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  g_one_by_one = static_cast<double>(state.iterations() * kFiles) / secs;
  finish(state, true);
}

void BM_Batch(benchmark::State& state) {
  const auto& paths = files();
  SmallFileBatch batch(kBatch, 64 << 10, 64, state.range(0) != 0);
  if (state.range(0) != 0 && !batch.uses_ring()) {
    state.SkipWithError("io_uring is not available here");
    return;
  }
  std::vector<const std::string*> chunk;
  for (auto _ : state) {
    for (size_t b = 0; b < paths.size(); b += kBatch) {
      chunk.clear();
      for (size_t i = b; i < std::min(paths.size(), b + kBatch); ++i) chunk.push_back(&paths[i]);
      batch.read(chunk, 1 << 20);
      for (size_t i = 0; i < chunk.size(); ++i) {
        if (!batch.contents(i).ok()) state.SkipWithError("read failed");
      }
    }
  }
  finish(state, false);
}

BENCHMARK(BM_OneByOne)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_OpenCloseOnly)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Batch)->Arg(0)->Arg(1)->ArgName("io_uring")->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace msit

BENCHMARK_MAIN();
