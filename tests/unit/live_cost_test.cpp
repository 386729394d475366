// The live comparer's cost (docs/live-divergence.md "Cost"): answered tokens are retired and
// their unchanged directories left unlisted, a retired token whose files change is judged
// again, and the store catalog lists again only the stores that changed.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "common/compaction/compact_run.h"
#include "common/store/store_catalog.h"
#include "daemon/live_compare.h"
#include "npy_fixture.h"

namespace fs = std::filesystem;

namespace msit::daemon {
namespace {

class LiveCostTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/msit-live-cost-test.XXXXXX";
    dir_ = ::mkdtemp(tmpl);
  }
  void TearDown() override {
    store::StoreCatalog::instance().forget_all();
    fs::remove_all(dir_);
  }
  // An FX file of token `token` under side's rank/graph dir.
  std::string fx(const std::string& side, int token, const std::string& node, std::vector<float> v) {
    std::string d = dir_ + "/" + side + "/worldsize1_global_rank0/gm_1_dump/" + std::to_string(token);
    fs::create_directories(d);
    std::string p = d + "/" + node + ".OUTPUT.0.20250101000000000000.npy";
    std::ofstream(p, std::ios::binary) << test::npy_bytes(v);
    return p;
  }
  // Every directory's mtime a minute back: old enough to be skipped (LiveRootCompare).
  void age_dirs() {
    timespec t[2];
    clock_gettime(CLOCK_REALTIME, &t[0]);
    t[0].tv_sec -= 60;
    t[1] = t[0];
    for (const auto& e : fs::recursive_directory_iterator(dir_))
      if (e.is_directory()) ::utimensat(AT_FDCWD, e.path().c_str(), t, 0);
  }
  std::string dir_;
};

TEST_F(LiveCostTest, AnsweredTokensAreSkippedUntilTheirFilesChange) {
  for (const char* side : {"my", "golden"}) {
    for (int tok : {0, 1}) {
      fx(side, tok, "add_1-aten.add.Tensor", {1, 2, 3, 4});
      fx(side, tok, "mul_2-aten.mul.Tensor", {2, 4, 6, 8});
    }
  }
  age_dirs();
  Finality now_final{0, 0};  // every token with files on both sides is final at once
  LiveRootCompare live(dir_ + "/my", dir_ + "/golden", now_final);
  std::vector<std::string> notes;
  EXPECT_TRUE(live.pass(1, notes).empty());
  EXPECT_EQ(live.retired_tokens(), 2u);  // both judged clean, then retired
  ASSERT_EQ(notes.size(), 2u) << (notes.empty() ? "" : notes[0]);
  EXPECT_NE(notes[0].find("judged clean"), std::string::npos) << notes[0];
  // Nothing changed: neither token is read or matched again.
  notes.clear();
  EXPECT_TRUE(live.pass(2, notes).empty());
  EXPECT_EQ(live.cached_rows(), 0u);
  EXPECT_TRUE(notes.empty());
  EXPECT_FALSE(live.pending());
  // A file added to token 0 on both sides (its directories' mtimes change): token 0 is judged
  // again with it, token 1 stays skipped.
  fx("my", 0, "sub_3-aten.sub.Tensor", {1, 1, 1, 1});
  fx("golden", 0, "sub_3-aten.sub.Tensor", {1, 1, 1, 1});
  EXPECT_TRUE(live.pass(3, notes).empty());
  EXPECT_EQ(live.cached_rows(), 3u);     // token 0's three outputs, nothing of token 1
  EXPECT_EQ(live.retired_tokens(), 2u);  // token 0 answered again, and retired again
  EXPECT_TRUE(live.pass(4, notes).empty());
  EXPECT_EQ(live.cached_rows(), 0u);  // its rows left the cache with it
}

// More tokens than two windows (2,048 files each): the second pass leaves the known tokens past
// its window unlisted (docs/live-divergence.md "Cost"), and every token is still judged once.
TEST_F(LiveCostTest, TokensPastTheWindowAreJudgedWhenTheirWindowComes) {
  constexpr int kTokens = 28, kFiles = 180;  // a window: 12 tokens (2,160 files)
  for (const char* side : {"my", "golden"})
    for (int tok = 0; tok < kTokens; ++tok)
      for (int i = 0; i < kFiles; ++i) fx(side, tok, "add_" + std::to_string(i) + "-aten.add.Tensor", {1, 2, 3, 4});
  age_dirs();
  LiveRootCompare live(dir_ + "/my", dir_ + "/golden", Finality{0, 0});
  std::vector<std::string> notes;
  size_t retired = 0;
  for (int64_t pass = 1; pass <= 6 && (pass == 1 || live.pending()); ++pass) {
    EXPECT_TRUE(live.pass(pass, notes).empty());
    EXPECT_GT(live.retired_tokens(), retired) << "pass " << pass << " judged nothing";
    retired = live.retired_tokens();
  }
  EXPECT_EQ(live.retired_tokens(), static_cast<size_t>(kTokens));
  EXPECT_EQ(notes.size(), static_cast<size_t>(kTokens));  // each token judged clean once
  EXPECT_FALSE(live.pending());
}

TEST_F(LiveCostTest, AChangedTokenThatNowDivergesIsReported) {
  for (const char* side : {"my", "golden"}) fx(side, 0, "add_1-aten.add.Tensor", {1, 2, 3, 4});
  age_dirs();
  LiveRootCompare live(dir_ + "/my", dir_ + "/golden", Finality{0, 0});
  std::vector<std::string> notes;
  EXPECT_TRUE(live.pass(1, notes).empty());
  EXPECT_EQ(live.retired_tokens(), 1u);
  // The next op's output diverges far beyond the first one's (exact) error.
  fx("golden", 0, "mul_2-aten.mul.Tensor", {2, 4, 6, 8});
  fx("my", 0, "mul_2-aten.mul.Tensor", {8, -6, 4, -2});
  std::vector<DivergenceEvent> events;
  for (int64_t t = 2; t < 5 && events.empty(); ++t) events = live.pass(t, notes);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].op, "mul_2");
}

TEST_F(LiveCostTest, AGoldenFarAheadIsReadTokenByTokenAsTheDumpReachesIt) {
  // The golden is indexed by token and only its tokens near mine are read: a dump that reaches
  // the golden's tokens one pass after another is judged on each as a whole golden would judge it.
  constexpr int kGolden = 8, kDiverging = 4;
  for (int tok = 0; tok < kGolden; ++tok) {
    fx("golden", tok, "add_1-aten.add.Tensor", {1, 2, 3, 4});
    fx("golden", tok, "mul_2-aten.mul.Tensor", {2, 4, 6, 8});
  }
  LiveRootCompare live(dir_ + "/my", dir_ + "/golden", Finality{0, 0});
  std::vector<std::string> notes;
  std::vector<DivergenceEvent> events;
  for (int tok = 0; tok < kGolden - 2; ++tok) {
    fx("my", tok, "add_1-aten.add.Tensor", {1, 2, 3, 4});
    fx("my", tok, "mul_2-aten.mul.Tensor",
       tok == kDiverging ? std::vector<float>{8, -6, 4, -2} : std::vector<float>{2, 4, 6, 8});
    age_dirs();
    for (int64_t t = 1; t < 4; ++t) {
      auto e = live.pass(tok * 10 + t, notes);
      events.insert(events.end(), e.begin(), e.end());
      if (!live.pending()) break;
    }
  }
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].op, "mul_2");
  EXPECT_EQ(events[0].token, std::to_string(kDiverging));
  EXPECT_EQ(live.retired_tokens(), static_cast<size_t>(kGolden - 2));  // every token of mine answered
}

TEST_F(LiveCostTest, CatalogListsAgainOnlyTheStoresThatChanged) {
  std::vector<std::string> roots;
  for (const char* side : {"a", "b"}) {
    const std::string root = dir_ + "/" + side + "/msit_fx_dump";
    fs::create_directories(root + "/0");
    std::ofstream(root + "/0/x-aten.add.Tensor.OUTPUT.0.20250101000000000000.npy", std::ios::binary)
        << test::npy_bytes({1, 2});
    CompactRunOptions o;
    o.file.format = SummaryFormat::kStore;
    ASSERT_TRUE(run_compact({root}, o, {}).failures.empty());
    roots.push_back(root);
  }
  // Both stores a minute old: a store written in the last seconds is listed at every pass
  // (StoreCatalog::forget_changed, store_catalog_recent_test.cpp).
  timespec t[2];
  clock_gettime(CLOCK_REALTIME, &t[0]);
  t[0].tv_sec -= 60;
  t[1] = t[0];
  for (const auto& e : fs::recursive_directory_iterator(dir_))
    if (e.path().filename().string().rfind("msit-summary.db", 0) == 0) ::utimensat(AT_FDCWD, e.path().c_str(), t, 0);
  auto& catalog = store::StoreCatalog::instance();
  catalog.forget_all();
  const store::StoredList a = catalog.stored_in(roots[0] + "/0");
  const store::StoredList b = catalog.stored_in(roots[1] + "/0");
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  const std::string a_name(a->front().name);
  // b gains a file; a does not change.
  std::ofstream(roots[1] + "/0/y-aten.add.Tensor.OUTPUT.0.20250101000000000000.npy", std::ios::binary)
      << test::npy_bytes({3, 4});
  CompactRunOptions o;
  o.file.format = SummaryFormat::kStore;
  ASSERT_TRUE(run_compact({roots[1]}, o, {}).failures.empty());
  catalog.forget_changed();
  const store::StoredList a2 = catalog.stored_in(roots[0] + "/0");
  const store::StoredList b2 = catalog.stored_in(roots[1] + "/0");
  ASSERT_NE(a2, nullptr);
  ASSERT_NE(b2, nullptr);
  EXPECT_EQ(a2->size(), 1u);  // a as it was
  EXPECT_EQ(a2->front().name, a_name);
  EXPECT_EQ(b2->size(), 2u);  // b read through a new snapshot: the new file is there
}

}  // namespace
}  // namespace msit::daemon
