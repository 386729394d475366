// A large raw pair of plain files is split into units read with positional reads outside the
// queue lock (common/compare/evaluate.cpp); a side that needs sequential reading (here a
// big-endian npy, byte-swapped by its reader) takes the locked path. Both paths give the same
// row at any thread count, and a file truncated under the reader gives the same error naming it.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>

#include "common/compare/evaluate.h"
#include "common/compare/file_cache.h"
#include "common/report/report_row.h"
#include "tests/unit/compare_fixtures.h"

using namespace compare_test;

namespace {

constexpr size_t kElements = (size_t{1} << 20) + 4321;  // above the split threshold, ragged end

// The same values as npy_bytes() writes, stored big-endian ('>f4').
std::string big_endian_npy(const std::vector<float>& v) {
  std::string b = npy_bytes(Tensor{v, {}});
  const size_t at = b.find("'<f4'");
  b[at + 1] = '>';
  for (size_t p = b.size() - v.size() * 4; p < b.size(); p += 4)
    std::swap(b[p], b[p + 3]), std::swap(b[p + 1], b[p + 2]);
  return b;
}

struct Pair {
  TempDir dir;
  fs::path golden, golden_be, my;
  msit::SourceFile golden_file, golden_be_file, my_file;

  Pair() {
    std::vector<float> g = random_values(kElements, 5), m = random_values(kElements, 6);
    for (size_t i = 0; i < kElements; ++i) m[i] = g[i] + 1e-3f * m[i];
    golden = dir.path / "golden.npy";
    golden_be = dir.path / "golden_be.npy";
    my = dir.path / "Add.add_0.1.1.1700000000000000";
    write_file(golden, npy_bytes(Tensor{g, {}}));
    write_file(golden_be, big_endian_npy(g));
    write_file(my, ge_file_bytes({}, {Tensor{m, {}}}, "add_0"));
    for (auto [f, p] : {std::pair{&golden_file, &golden}, {&golden_be_file, &golden_be}, {&my_file, &my}}) {
      f->raw_path = p->string();
      f->kind = msit::SourceKind::kRaw;
    }
  }
  msit::PairSpec spec(const msit::SourceFile& g) const {
    msit::PairSpec s;
    s.golden = {msit::SlotKind::kFxFile, &g, msit::Role::kOutput, 0};
    s.my = {msit::SlotKind::kTensor, &my_file, msit::Role::kOutput, 0};
    return s;
  }
};

msit::ReportRow evaluate(const msit::PairSpec& spec, msit::FileCache& cache, int spare_cores) {
  std::atomic<int> spare{spare_cores};
  msit::EvalOptions o;
  o.chunk_elements = 4099;  // hundreds of units: threads interleave
  o.spare_threads = &spare;
  msit::ReportRow r = msit::evaluate_pair(spec, cache, o);
  EXPECT_EQ(spare.load(), spare_cores) << "the helpers' cores are given back";
  return r;
}

void expect_same_row(const msit::ReportRow& a, const msit::ReportRow& b, const std::string& what) {
  EXPECT_EQ(a.verdict, b.verdict) << what;
  EXPECT_EQ(a.golden_max, b.golden_max) << what;
  EXPECT_EQ(a.golden_mean, b.golden_mean) << what;
  EXPECT_EQ(a.my_min, b.my_min) << what;
  EXPECT_EQ(a.my_mean, b.my_mean) << what;
  EXPECT_EQ(a.cosine, b.cosine) << what;
  EXPECT_EQ(a.max_rel, b.max_rel) << what;
  EXPECT_EQ(a.mean_rel, b.mean_rel) << what;
  EXPECT_EQ(a.mean_abs, b.mean_abs) << what;
  EXPECT_EQ(a.kl, b.kl) << what;
  EXPECT_EQ(a.red, b.red) << what;
}

TEST(ComparePread, PositionalAndSequentialReadsGiveTheSameRowAtAnyThreadCount) {
  Pair p;
  msit::FileCache cache;
  const msit::ReportRow plain = evaluate(p.spec(p.golden_file), cache, 0);
  ASSERT_EQ(plain.compare_mode, msit::MetricSource::kExact);
  ASSERT_TRUE(plain.cosine.has_value());
  EXPECT_GT(*plain.cosine, 0.99);
  for (int spare : {1, 3}) {
    expect_same_row(plain, evaluate(p.spec(p.golden_file), cache, spare), "plain, spare " + std::to_string(spare));
    expect_same_row(plain, evaluate(p.spec(p.golden_be_file), cache, spare),
                    "big-endian golden, spare " + std::to_string(spare));
  }
}

TEST(ComparePread, FileTruncatedUnderTheReaderIsTheSameErrorAtAnyThreadCount) {
  Pair p;
  std::string first;
  for (int spare : {0, 1, 3}) {
    msit::FileCache cache;
    ASSERT_FALSE(cache.get(p.my_file)->error.has_value());  // header read while the file was whole
    const auto whole = fs::file_size(p.my);
    fs::resize_file(p.my, whole - kElements * 2);  // half of the payload gone
    const msit::ReportRow r = evaluate(p.spec(p.golden_file), cache, spare);
    EXPECT_EQ(r.verdict, msit::Verdict::kError);
    EXPECT_EQ(r.problem.path(), p.my.string());
    EXPECT_NE(std::string(r.problem.text()).find("short read"), std::string::npos) << r.problem.text();
    if (first.empty()) first = std::string(r.problem.text());
    EXPECT_EQ(std::string(r.problem.text()), first) << "spare " << spare << ": the first unit's error, as with -j 1";
    fs::resize_file(p.my, whole);  // zeros back; the next round truncates again
  }
}

}  // namespace
