// Reading compare's summaries back from a summary store (issue 13's compare target): what
// SummaryStore::load_many costs per file, against the floor of the same rows stepped through
// SQLite's C API with one getter call per column and nothing decoded, measured in the same run.
// The store holds kFiles files of one float32 tensor of 1024 elements with a width-128 float32
// sketch, as compact writes them for FX dumps. Counter x_floor = floor time / this time.
#include <benchmark/benchmark.h>
#include <sqlite3.h>
#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "common/safety/beneath.h"
#include "common/store/summary_store.h"

namespace msit::store {
namespace {

constexpr int64_t kFiles = 20000;
constexpr size_t kBatch = 64;  // compare's batch: 32 pairs, one file of each store per pair

FileSummary fx_summary(int64_t i) {
  FileSummary s;
  s.source_name = "op" + std::to_string(i) + "-aten.add.Tensor.OUTPUT.0.20250101000000000000.npy";
  s.source_kind = "npy";
  s.source_size = 4224;
  s.created_by = "store_read_bench";
  TensorSummary t;
  t.role = "output";
  t.dtype = "float32";
  t.shape = t.original_shape = {1024};
  t.format = "ND";
  t.count = t.stats.count = 1024;
  t.stats.min = -3.0 - static_cast<double>(i % 7);
  t.stats.max = 3.0 + static_cast<double>(i % 5);
  t.stats.mean = 0.002;
  t.stats.std = 1.0;
  t.stats.abs_max = *t.stats.max;
  t.stats.l2norm = 32.0;
  t.stats.finite_count = 1024;
  std::vector<double> buckets(128);
  std::mt19937_64 rng(static_cast<uint64_t>(i));
  std::normal_distribution<double> n;
  for (double& b : buckets) b = n(rng);
  t.stats.sketch = Sketch{128, 0x6d7369742d636d70ull, buckets};
  t.xxh3_64 = "0123456789abcdef";
  s.tensors = {t};
  return s;
}

// A store of kFiles files, built once and removed at exit: it is generated data.
struct BenchStore {
  std::string dir;
  std::string db;
  BenchStore() {
    char tmpl[] = "/tmp/msit_store_read_bench.XXXXXX";
    dir = ::mkdtemp(tmpl);
    db = dir + "/" + std::string(kStoreFileName);
    auto fd = open_trusted_dir(dir);
    if (!fd.ok()) std::abort();
    auto w = SummaryStore::open_for_write(DirRef{std::make_shared<const UniqueFd>(std::move(fd).value()), dir});
    if (!w.ok()) std::abort();
    std::vector<FileSummary> all;
    all.reserve(kFiles);
    for (int64_t i = 0; i < kFiles; ++i) all.push_back(fx_summary(i));
    std::vector<StoreEntry> batch;
    for (int64_t i = 0; i < kFiles; ++i) {
      batch.push_back(StoreEntry{"1/gm_1_dump/" + all[static_cast<size_t>(i)].source_name, FileIdentity{},
                                 &all[static_cast<size_t>(i)], SketchPrecision::kFloat32});
    }
    if (!(*w)->put(batch).ok()) std::abort();
  }
  ~BenchStore() {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
};

BenchStore& bench_store() {
  static BenchStore s;
  return s;
}

std::unique_ptr<SummaryStore> reader() {
  auto r = SummaryStore::open_read_only(bench_store().db);
  if (!r.ok() || !(*r)->begin_snapshot().ok()) std::abort();
  return std::move(r).value();
}

double g_floor_seconds_per_file = 0;

void report(benchmark::State& state, double seconds, bool is_floor) {
  const double per_file = seconds / static_cast<double>(kFiles);
  if (is_floor) g_floor_seconds_per_file = per_file;
  state.counters["us_per_file"] = per_file * 1e6;
  if (g_floor_seconds_per_file > 0) state.counters["x_floor"] = g_floor_seconds_per_file / per_file;
}

// The floor: the tensor columns compare reads, in id ranges of one batch, every column fetched
// by one typed getter call, nothing decoded or allocated.
void BM_SqliteStepFloor(benchmark::State& state) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(bench_store().db.c_str(), &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nullptr) != SQLITE_OK)
    std::abort();
  sqlite3_exec(db, "BEGIN", nullptr, nullptr, nullptr);
  sqlite3_stmt* s = nullptr;
  const char* sql =
      "SELECT role, idx, sub_index, dtype, shape, format, original_shape, count, padding_included, "
      "stats_available, l2norm_available, note, min, max, min_int, max_int, min_uint, max_uint, mean, std, "
      "abs_max, l2norm, sum, finite_count, nan_count, posinf_count, neginf_count, zero_count, elements, "
      "sketch_width, sketch_seed, sketch, xxh3_64, key >> 20 AS file_id FROM tensors "
      "WHERE key BETWEEN ?1 * 1048576 AND ?2 * 1048576 + 1048575 ORDER BY key";
  if (sqlite3_prepare_v2(db, sql, -1, &s, nullptr) != SQLITE_OK) std::abort();
  double total = 0;
  for (auto _ : state) {
    auto t0 = std::chrono::steady_clock::now();
    int64_t sink = 0;
    for (int64_t lo = 1; lo <= kFiles; lo += kBatch) {
      sqlite3_reset(s);
      sqlite3_bind_int64(s, 1, lo);
      sqlite3_bind_int64(s, 2, lo + static_cast<int64_t>(kBatch) - 1);
      while (sqlite3_step(s) == SQLITE_ROW) {
        for (int c = 0, n = sqlite3_column_count(s); c < n; ++c) {
          switch (sqlite3_column_type(s, c)) {
            case SQLITE_INTEGER: sink += sqlite3_column_int64(s, c); break;
            case SQLITE_FLOAT: sink += sqlite3_column_double(s, c) > 0; break;
            case SQLITE_TEXT:
            case SQLITE_BLOB: sink += sqlite3_column_bytes(s, c); break;
            default: break;
          }
        }
      }
    }
    benchmark::DoNotOptimize(sink);
    total += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  sqlite3_finalize(s);
  sqlite3_close(db);
  report(state, total / static_cast<double>(state.iterations()), true);
}

// load_many over batches of kBatch ids: in id order (one range statement per batch), or in the
// order compare meets another tree's files in: sorted by name, while ids follow the op number
// (op1, op10, op100, ..., op2: scattered within a batch, one lookup per file), or at random.
enum class Order : uint8_t { kIds, kNames, kRandom };
void load_batches(benchmark::State& state, Order how) {
  auto r = reader();
  std::vector<int64_t> order(static_cast<size_t>(kFiles));
  std::iota(order.begin(), order.end(), 1);
  if (how == Order::kNames) {
    std::sort(order.begin(), order.end(),
              [](int64_t a, int64_t b) { return std::to_string(a - 1) < std::to_string(b - 1); });
  }
  if (how == Order::kRandom) std::shuffle(order.begin(), order.end(), std::mt19937_64(7));
  std::vector<int64_t> ids;
  std::vector<std::optional<Result<FileSummary>>> out;
  double total = 0;
  for (auto _ : state) {
    auto t0 = std::chrono::steady_clock::now();
    for (size_t b = 0; b < order.size(); b += kBatch) {
      ids.assign(order.begin() + static_cast<std::ptrdiff_t>(b),
                 order.begin() + static_cast<std::ptrdiff_t>(std::min(order.size(), b + kBatch)));
      r->load_many(ids, out);
      for (auto& o : out) {
        if (!o || !o->ok() || o->value().tensors.size() != 1) std::abort();
      }
    }
    total += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  report(state, total / static_cast<double>(state.iterations()), false);
}

void BM_LoadManyNeighbours(benchmark::State& state) { load_batches(state, Order::kIds); }
void BM_LoadManyNameOrder(benchmark::State& state) { load_batches(state, Order::kNames); }
void BM_LoadManyRandom(benchmark::State& state) { load_batches(state, Order::kRandom); }

// load() per file: the whole entry (file row joined with its tensors, extra blocks).
void BM_LoadOneByOne(benchmark::State& state) {
  auto r = reader();
  double total = 0;
  for (auto _ : state) {
    auto t0 = std::chrono::steady_clock::now();
    for (int64_t id = 1; id <= kFiles; ++id) {
      auto f = r->load(id);
      if (!f.ok()) std::abort();
      benchmark::DoNotOptimize(f);
    }
    total += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  report(state, total / static_cast<double>(state.iterations()), false);
}

BENCHMARK(BM_SqliteStepFloor)->Unit(benchmark::kMillisecond)->MinTime(1.0);
BENCHMARK(BM_LoadManyNeighbours)->Unit(benchmark::kMillisecond)->MinTime(1.0);
BENCHMARK(BM_LoadManyNameOrder)->Unit(benchmark::kMillisecond)->MinTime(1.0);
BENCHMARK(BM_LoadManyRandom)->Unit(benchmark::kMillisecond)->MinTime(1.0);
BENCHMARK(BM_LoadOneByOne)->Unit(benchmark::kMillisecond)->MinTime(1.0);

}  // namespace
}  // namespace msit::store

BENCHMARK_MAIN();
