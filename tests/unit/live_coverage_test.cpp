// Coverage of the live comparer (docs/live-divergence.md "Coverage: what is not compared"): the
// tensors of a final token of mine without golden partner are said once per token, as an event
// of kind not_compared with an id stable over restarts, and a token judged clean says it.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "common/store/store_catalog.h"
#include "daemon/live_compare.h"
#include "npy_fixture.h"

namespace fs = std::filesystem;

namespace msit::daemon {
namespace {

class LiveCoverageTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/msit-live-coverage-test.XXXXXX";
    dir_ = ::mkdtemp(tmpl);
  }
  void TearDown() override {
    store::StoreCatalog::instance().forget_all();
    fs::remove_all(dir_);
  }
  // An FX output file of token `token` under side's rank/graph dir.
  void fx(const std::string& side, int token, const std::string& node, std::vector<float> v) {
    std::string d = dir_ + "/" + side + "/worldsize1_global_rank0/gm_1_dump/" + std::to_string(token);
    fs::create_directories(d);
    std::ofstream(d + "/" + node + ".OUTPUT.0.20250101000000000000.npy", std::ios::binary) << test::npy_bytes(v);
  }
  std::string dir_;
};

std::vector<const DivergenceEvent*> gaps(const std::vector<DivergenceEvent>& events) {
  std::vector<const DivergenceEvent*> out;
  for (const auto& e : events)
    if (e.kind == EventKind::kNotCompared) out.push_back(&e);
  return out;
}

// Token 0 of mine has mul_2, which the golden's token 0 lacks; token 1 has every partner.
TEST_F(LiveCoverageTest, OpsWithoutGoldenAreSaidOncePerTokenAndInItsCleanLine) {
  for (int tok : {0, 1}) {
    fx("my", tok, "add_1-aten.add.Tensor", {1, 2, 3, 4});
    fx("golden", tok, "add_1-aten.add.Tensor", {1, 2, 3, 4});
    fx("my", tok, "mul_2-aten.mul.Tensor", {2, 4, 6, 8});
  }
  fx("golden", 1, "mul_2-aten.mul.Tensor", {2, 4, 6, 8});
  LiveRootCompare live(dir_ + "/my", dir_ + "/golden", Finality{0, 0});
  std::vector<std::string> notes;
  std::vector<DivergenceEvent> events = live.pass(1, notes);
  auto g = gaps(events);
  ASSERT_EQ(g.size(), 1u) << ::testing::PrintToString(notes);
  EXPECT_EQ(events.size(), 1u);  // no divergence: both tokens are clean
  EXPECT_EQ(g[0]->rank, 0);
  EXPECT_EQ(g[0]->token, "0");
  EXPECT_EQ(g[0]->not_compared, "token 0 of rank 0 of " + dir_ +
                                    "/my: 1 of my 2 tensors has no golden counterpart (mul_2) in the golden " + dir_ +
                                    "/golden: not compared; it could hold the divergence");
  // Token 0's clean line says what it did not compare; token 1's does not.
  std::string token0, token1;
  for (const auto& n : notes) (n.find("token 0 judged clean") != std::string::npos ? token0 : token1) += n;
  EXPECT_NE(token0.find("; 1 of my 2 tensors not compared (no golden counterpart)); final:"), std::string::npos)
      << token0;
  EXPECT_EQ(token1.find("not compared"), std::string::npos) << token1;
  // Said once: later passes raise nothing.
  EXPECT_TRUE(live.pass(2, notes).empty());
  // Another process (a restart) makes the same event with the same id: the alerts, which read
  // the events file back, drop it.
  LiveRootCompare again(dir_ + "/my", dir_ + "/golden", Finality{0, 0});
  auto events2 = again.pass(3, notes);
  ASSERT_EQ(gaps(events2).size(), 1u);
  EXPECT_EQ(gaps(events2)[0]->id, g[0]->id);
}

// A divergence in a token with tensors of mine without golden: both are said, the divergence
// first, and the gap's id differs from the divergence's.
TEST_F(LiveCoverageTest, ADivergingTokenWithOpsWithoutGoldenGetsBothEvents) {
  fx("my", 0, "add_1-aten.add.Tensor", {1, 2, 3, 4});
  fx("golden", 0, "add_1-aten.add.Tensor", {1, 2, 3, 4});
  fx("my", 0, "mul_2-aten.mul.Tensor", {8, -6, 4, -2});
  fx("golden", 0, "mul_2-aten.mul.Tensor", {2, 4, 6, 8});
  fx("my", 0, "sub_3-aten.sub.Tensor", {1, 1, 1, 1});
  LiveRootCompare live(dir_ + "/my", dir_ + "/golden", Finality{0, 0});
  std::vector<std::string> notes;
  auto events = live.pass(1, notes);
  ASSERT_EQ(events.size(), 2u) << ::testing::PrintToString(notes);
  EXPECT_EQ(events[0].kind, EventKind::kDivergence);
  EXPECT_EQ(events[0].op, "mul_2");
  EXPECT_EQ(events[1].kind, EventKind::kNotCompared);
  EXPECT_NE(events[1].not_compared.find("1 of my 3 tensors has no golden counterpart (sub_3)"), std::string::npos)
      << events[1].not_compared;
  EXPECT_NE(events[0].id, events[1].id);
}

}  // namespace
}  // namespace msit::daemon
