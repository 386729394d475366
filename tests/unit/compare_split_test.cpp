// A large raw pair split across threads (common/compare/evaluate.cpp, units merged in order):
// the row is the same whatever number of helper threads took part, the spare cores it took are
// given back, and the values are those of the whole tensors summed in one go.
#include <gtest/gtest.h>

#include <atomic>
#include <bit>
#include <cmath>

#include "common/compare/evaluate.h"
#include "common/compare/file_cache.h"
#include "common/compare/metrics.h"
#include "common/report/report_row.h"
#include "tests/unit/compare_fixtures.h"

using namespace compare_test;

namespace {

// Above the split threshold (1 Mi elements), not a whole number of units or vectors.
constexpr size_t kElements = (size_t{1} << 20) + 12345;

struct Pair {
  TempDir dir;
  fs::path golden, my;
  std::vector<float> g, m;
  msit::SourceFile golden_file, my_file;
  msit::PairSpec spec;

  Pair() {
    g = random_values(kElements, 1);
    m = random_values(kElements, 2);
    for (size_t i = 0; i < kElements; ++i) m[i] = g[i] + 1e-3f * m[i];
    golden = dir.path / "golden.npy";
    my = dir.path / "Add.add_0.1.1.1700000000000000";
    write_file(golden, npy_bytes(Tensor{g, {}}));
    write_file(my, ge_file_bytes({}, {Tensor{m, {}}}, "add_0"));
    golden_file.raw_path = golden.string();
    golden_file.kind = msit::SourceKind::kRaw;
    my_file.raw_path = my.string();
    my_file.kind = msit::SourceKind::kRaw;
    spec.golden = {msit::SlotKind::kFxFile, &golden_file, msit::Role::kOutput, 0};
    spec.my = {msit::SlotKind::kTensor, &my_file, msit::Role::kOutput, 0};
  }
};

msit::ReportRow evaluate(const Pair& p, int spare_cores, size_t chunk) {
  std::atomic<int> spare{spare_cores};
  msit::EvalOptions o;
  o.chunk_elements = chunk;
  o.spare_threads = &spare;
  msit::FileCache cache;
  msit::ReportRow r = msit::evaluate_pair(p.spec, cache, o);
  EXPECT_EQ(spare.load(), spare_cores) << "the helpers' cores are given back";
  return r;
}

void expect_same_row(const msit::ReportRow& a, const msit::ReportRow& b, const std::string& what) {
  EXPECT_EQ(fail_reason_cell(a), fail_reason_cell(b)) << what;
  EXPECT_EQ(a.compare_mode, b.compare_mode) << what;
  EXPECT_EQ(a.golden_max, b.golden_max) << what;
  EXPECT_EQ(a.golden_min, b.golden_min) << what;
  EXPECT_EQ(a.golden_mean, b.golden_mean) << what;
  EXPECT_EQ(a.my_max, b.my_max) << what;
  EXPECT_EQ(a.my_min, b.my_min) << what;
  EXPECT_EQ(a.my_mean, b.my_mean) << what;
  EXPECT_EQ(a.cosine, b.cosine) << what;
  EXPECT_EQ(a.max_rel, b.max_rel) << what;
  EXPECT_EQ(a.mean_rel, b.mean_rel) << what;
  EXPECT_EQ(a.max_abs, b.max_abs) << what;
  EXPECT_EQ(a.mean_abs, b.mean_abs) << what;
  EXPECT_EQ(a.kl, b.kl) << what;
  EXPECT_EQ(a.red, b.red) << what;
  EXPECT_EQ(a.stat_abs, b.stat_abs) << what;
  EXPECT_EQ(a.verdict, b.verdict) << what;
}

int f32_ulps(double a, double b) {
  const int32_t x = std::bit_cast<int32_t>(static_cast<float>(a)), y = std::bit_cast<int32_t>(static_cast<float>(b));
  return std::abs(x - y);
}

TEST(CompareSplit, TheRowDoesNotDependOnTheNumberOfThreads) {
  Pair p;
  const size_t chunk = msit::EvalOptions{}.chunk_elements;
  const msit::ReportRow alone = evaluate(p, 0, chunk);
  ASSERT_EQ(alone.compare_mode, msit::MetricSource::kExact);
  ASSERT_EQ(fail_reason_cell(alone), "");
  for (int spare : {1, 3}) expect_same_row(alone, evaluate(p, spare, chunk), std::to_string(spare) + " spare cores");
  // Small odd units: hundreds of units in flight per thread, the merge window wraps many times.
  const msit::ReportRow odd = evaluate(p, 0, 997);
  expect_same_row(odd, evaluate(p, 3, 997), "units of 997 pairs");
}

TEST(CompareSplit, SplitSumsAreTheWholeTensorsSums) {
  Pair p;
  const msit::ReportRow r = evaluate(p, 1, msit::EvalOptions{}.chunk_elements);
  msit::PairAccumulator whole;
  whole.add(p.g.data(), p.m.data(), kElements);
  const msit::MetricValues v = whole.exact().finish();
  const msit::SideStats gs = whole.golden().finish(), ms = whole.mine().finish();
  EXPECT_EQ(r.cosine, v.cosine);
  EXPECT_EQ(r.max_rel, v.max_rel);
  EXPECT_EQ(r.max_abs, v.max_abs);
  EXPECT_EQ(r.golden_max, gs.max);
  EXPECT_EQ(r.golden_min, gs.min);
  EXPECT_EQ(r.my_max, ms.max);
  EXPECT_EQ(r.my_min, ms.min);
  EXPECT_LE(f32_ulps(*r.mean_rel, *v.mean_rel), 1);
  EXPECT_LE(f32_ulps(*r.mean_abs, *v.mean_abs), 1);
  EXPECT_LE(f32_ulps(*r.red, *v.red), 1);
  EXPECT_LE(f32_ulps(*r.golden_mean, *gs.mean), 1);
  EXPECT_LE(f32_ulps(*r.my_mean, *ms.mean), 1);
  EXPECT_LE(f32_ulps(*r.kl, *v.kl), 2) << *r.kl << " vs " << *v.kl;
}

}  // namespace
