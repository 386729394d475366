// The live comparer's pure parts: when a token is final, the stable event id, which row is a
// token's first divergence, and a pass over roots with nothing to pair yet.
#include "daemon/live_compare.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "common/report/op_label.h"

namespace msit::daemon {
namespace {

constexpr int64_t kS = 1'000'000'000;
using Key = TokenFinality::Key;

TEST(TokenFinality, TokenWithALaterTokenOnBothSidesIsFinalOnceSettled) {
  TokenFinality f(Finality{kS, 3 * kS});
  f.observe({{{0, 0}, 5}, {{0, 1}, 1}}, {{{0, 0}, 5}, {{0, 1}, 5}}, 0);
  EXPECT_FALSE(f.is_final({0, 0}, 0));
  EXPECT_FALSE(f.is_final({0, 0}, kS - 1));
  EXPECT_TRUE(f.is_final({0, 0}, kS));
  EXPECT_FALSE(f.is_final({0, 1}, kS));  // the last token waits for the trees to go quiet
  EXPECT_TRUE(f.any_pending(kS));
}

TEST(TokenFinality, AChangedTokenSettlesAgain) {
  TokenFinality f(Finality{kS, 3 * kS});
  f.observe({{{0, 0}, 5}, {{0, 1}, 1}}, {{{0, 0}, 5}, {{0, 1}, 5}}, 0);
  f.observe({{{0, 0}, 6}, {{0, 1}, 1}}, {{{0, 0}, 5}, {{0, 1}, 5}}, 2 * kS);  // a late file of token 0
  EXPECT_FALSE(f.is_final({0, 0}, 2 * kS));
  EXPECT_TRUE(f.is_final({0, 0}, 3 * kS));
}

TEST(TokenFinality, GoldenWithoutTheLaterTokenWaitsForQuiet) {
  TokenFinality f(Finality{kS, 3 * kS});
  // The golden is dumped at the same time and has not reached token 1.
  f.observe({{{0, 0}, 5}, {{0, 1}, 1}}, {{{0, 0}, 5}}, 0);
  EXPECT_FALSE(f.is_final({0, 0}, 2 * kS));
  f.observe({{{0, 0}, 5}, {{0, 1}, 1}}, {{{0, 0}, 5}}, 2 * kS);
  EXPECT_TRUE(f.is_final({0, 0}, 3 * kS));  // nothing changed on either side for the quiet time
}

TEST(TokenFinality, TokenWithoutAGoldenCounterpartIsNeverFinal) {
  TokenFinality f(Finality{kS, 3 * kS});
  f.observe({{{0, 0}, 5}}, {}, 0);
  EXPECT_FALSE(f.is_final({0, 0}, 100 * kS));
}

TEST(TokenFinality, RanksAreIndependent) {
  TokenFinality f(Finality{kS, 3 * kS});
  f.observe({{{0, 0}, 5}, {{0, 1}, 1}, {{1, 0}, 5}}, {{{0, 0}, 5}, {{0, 1}, 5}, {{1, 0}, 5}, {{1, 1}, 5}}, 0);
  EXPECT_TRUE(f.is_final({0, 0}, kS));
  EXPECT_FALSE(f.is_final({1, 0}, kS));  // rank 1 has not started token 1 on the watched side
}

TEST(DivergenceId, StableAndDistinct) {
  std::string a = divergence_id("/d/ge", 0, 0, "MatMul_13");
  EXPECT_EQ(a, divergence_id("/d/ge", 0, 0, "MatMul_13"));
  EXPECT_EQ(a.size(), 16u);
  EXPECT_NE(a, divergence_id("/d/ge", 1, 0, "MatMul_13"));
  EXPECT_NE(a, divergence_id("/d/ge", 0, 1, "MatMul_13"));
  EXPECT_NE(a, divergence_id("/d/ge", 0, 0, "MatMul_14"));
  EXPECT_NE(a, divergence_id("/d/fx", 0, 0, "MatMul_13"));
}

TEST(FirstDivergences, FirstRowOfEachToken) {
  std::vector<ReportRow> rows(4);
  rows[0].token_id = 0;
  rows[1].token_id = 0;
  rows[1].jump = ReportRow::Jump::kFirst;
  rows[2].token_id = 1;
  rows[2].jump = ReportRow::Jump::kJump;
  rows[3].token_id = 1;
  rows[3].jump = ReportRow::Jump::kFirst;
  auto f = first_divergences(rows);
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0], 1u);
  EXPECT_EQ(f[1], 3u);
}

TEST(DivergenceEvent, NamesTheGeOpFromTheRow) {
  ReportRow r;
  r.token_id = 2;
  r.rank = 3;
  r.my_data_path = "/d/ge/1/graph_1_0/1/2/MatMulV2.MatMul_13.4.5.1700000000000001,outputs,0";
  r.golden_data_path = "/d/fx/gm/2/mm_13-aten.mm.default.OUTPUT.0.1.npy";
  r.my_label = TensorLabel{"MatMul_13", "MatMulV2", TensorRole::kOutput, 0, 13};  // as the GE pair builder sets it
  r.red = 0.05;
  r.error_jump = 7.0;
  DivergenceEvent e = divergence_event(r, "/d/ge", "/d/fx");
  EXPECT_EQ(e.op, "MatMul_13");
  EXPECT_EQ(e.op_type, "MatMulV2");
  EXPECT_EQ(e.token, "2");
  EXPECT_EQ(e.rank, 3);
  EXPECT_EQ(e.red, 0.05);
  EXPECT_EQ(e.error_jump, 7.0);
  EXPECT_EQ(e.id, divergence_id("/d/ge", 3, 2, "MatMul_13"));
}

TEST(LiveRootCompare, NothingToPairYetRaisesNothingAndSaysWhyOnce) {
  auto dir = std::filesystem::temp_directory_path() / ("live_compare_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir / "ge");
  std::filesystem::create_directories(dir / "fx");
  LiveRootCompare c((dir / "ge").string(), (dir / "fx").string());
  std::vector<std::string> notes;
  EXPECT_TRUE(c.pass(0, notes).empty());
  EXPECT_EQ(notes.size(), 1u);
  EXPECT_TRUE(c.pass(kS, notes).empty());
  EXPECT_EQ(notes.size(), 1u);  // the same reason is not repeated
  EXPECT_FALSE(c.pending());
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace msit::daemon

namespace msit::daemon {
namespace {

TEST(DivergenceEvent, NamesTheOpByItsLabelNotTheTensorFile) {
  ReportRow r;
  r.token_id = 0;
  r.my_data_path = "/d/atb/tensors/0_200/0/9_DecoderLayer/3_LinearOperation/after/outtensor0.bin";
  r.my_label = TensorLabel{"9_DecoderLayer/3_LinearOperation", "LinearOperation", TensorRole::kOutput, 0, 7};
  DivergenceEvent e = divergence_event(r, "/d/atb/tensors/0_200", "/d/torch");
  EXPECT_EQ(e.op, "9_DecoderLayer/3_LinearOperation");
  EXPECT_EQ(e.op_type, "LinearOperation");
  // A row without a label (no pair builder knew the op) is named by its file.
  r.my_label = TensorLabel{};
  r.golden_label = TensorLabel{};
  EXPECT_EQ(divergence_event(r, "/d/atb/tensors/0_200", "/d/torch").op, row_file(r, false));
}

}  // namespace
}  // namespace msit::daemon
