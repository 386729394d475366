// Keeping the evidence on ATB/torch roots (docs/live-divergence.md "ATB and torch"): the rows of
// the api sheet are mapped back to their nodes' files, so a final token's verdict keeps the
// diverging node's files (intensors with its outtensor) and those of the N nodes before it.
#include <gtest/gtest.h>

#include <algorithm>

#include "common/compare_atb/atb_compare.h"
#include "daemon/live_compare_atb.h"
#include "tests/unit/atb_fixtures.h"

namespace msit::daemon {
namespace {

using namespace atb_test;

TEST(LiveCompareAtbKeep, NodeDirectoryOfAtbAndTorchFiles) {
  EXPECT_EQ(atb_node_dir("/r/tensors/0_200/0/6_DecoderLayer/5_LinearOperation/after/outtensor0.bin"),
            "/r/tensors/0_200/0/6_DecoderLayer/5_LinearOperation");
  EXPECT_EQ(atb_node_dir("/r/tensors/0_200/0/6_DecoderLayer/5_LinearOperation/before/intensor1.bin"),
            "/r/tensors/0_200/0/6_DecoderLayer/5_LinearOperation");
  EXPECT_EQ(atb_node_dir("/r/0/root.model.layers.6.self_attn.o_proj/output.pth"),
            "/r/0/root.model.layers.6.self_attn.o_proj");
}

TEST(LiveCompareAtbKeep, TokenDirectoryIsTheFirstComponentNamedByTheToken) {
  EXPECT_EQ(atb_token_dir("/r", "/r/tensors/0_200/3/1_Layer/after/outtensor0.bin", 3), "/r/tensors/0_200/3");
  EXPECT_EQ(atb_token_dir("/r", "/r/12/root.fc/output.pth", 12), "/r/12");
  EXPECT_EQ(atb_token_dir("/r", "/r/tensors/0_200/3/1_Layer/after/outtensor0.bin", 4), "");
  EXPECT_EQ(atb_token_dir("/r", "/rx/3/a.bin", 3), "");  // not under the root
  EXPECT_EQ(atb_token_dir("/r", "/r/3", 3), "");         // a file name is no directory
}

// One token, a layer and three nodes A, B, C in report order; C diverges first.
TEST(LiveCompareAtbKeep, VerdictKeepsTheDivergingNodeAndTheNodesBeforeItWithTheirInputs) {
  TempDir tmp;
  std::string root = (tmp.p / "msit_dump_1").string(), tok = root + "/tensors/0_200/0";
  std::vector<std::string> all;
  auto put = [&](const std::string& rel) {
    write_file(tok + "/" + rel, "x");
    all.push_back(tok + "/" + rel);
  };
  put("0_Layer/before/intensor0.bin");
  put("0_Layer/after/outtensor0.bin");
  for (const char* n : {"0_Layer/0_A", "0_Layer/1_B", "0_Layer/2_C"}) {
    put(std::string(n) + "/before/intensor0.bin");
    put(std::string(n) + "/after/outtensor0.bin");
  }
  write_file(tok + "/0_Layer/2_C/after/msit-summary.db", "store");  // ours: never a dump file
  auto row = [&](const std::string& node, bool first) {
    ReportRow r;
    r.token_id = 0;
    r.my_data_path = tok + "/" + node + "/after/outtensor0.bin";
    if (first) r.jump = ReportRow::Jump::kFirst;
    return r;
  };
  std::vector<ReportRow> rows = {row("0_Layer", false), row("0_Layer/0_A", false), row("0_Layer/1_B", false),
                                 row("0_Layer/2_C", true)};
  std::set<std::string> indexed;
  auto v = atb_token_verdicts(
      root, rows, [](int64_t) { return true; }, &indexed);
  ASSERT_EQ(v.size(), 1u);
  std::vector<std::string> files = v[0].files, want_all = all;
  std::sort(files.begin(), files.end());
  std::sort(want_all.begin(), want_all.end());
  EXPECT_EQ(files, want_all);
  EXPECT_EQ(indexed, std::set<std::string>(all.begin(), all.end()));
  ASSERT_TRUE(v[0].diverged.has_value());
  EXPECT_EQ(*v[0].diverged, 3u);
  std::vector<std::string> keep = files_to_keep(v[0], 1);
  std::sort(keep.begin(), keep.end());
  std::vector<std::string> want = {tok + "/0_Layer/1_B/after/outtensor0.bin", tok + "/0_Layer/1_B/before/intensor0.bin",
                                   tok + "/0_Layer/2_C/after/outtensor0.bin",
                                   tok + "/0_Layer/2_C/before/intensor0.bin"};
  EXPECT_EQ(keep, want);
  // A token that is not final gives no verdict, but its files are indexed (not released as unplaced).
  indexed.clear();
  EXPECT_TRUE(atb_token_verdicts(
                  root, rows, [](int64_t) { return false; }, &indexed)
                  .empty());
  EXPECT_EQ(indexed.size(), all.size());
}

// No first divergence: nothing kept, every file of the token released.
TEST(LiveCompareAtbKeep, CleanTokenKeepsNothing) {
  TempDir tmp;
  std::string root = (tmp.p / "d").string(), f = root + "/0/root.fc/output.pth";
  write_file(f, "x");
  write_file(root + "/0/root.fc/input_0.pth", "x");
  ReportRow r;
  r.token_id = 0;
  r.my_data_path = f;
  auto v = atb_token_verdicts(
      root, {r}, [](int64_t) { return true; }, nullptr);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].files.size(), 2u);
  EXPECT_TRUE(files_to_keep(v[0], 5).empty());
}

// Passes on dirs that pair nothing yet (empty, then partly populated) say so once, naming both.
TEST(LiveCompareWaiting, NothingToCompareYetIsSaidOnce) {
  TempDir tmp;
  std::string mine = (tmp.p / "mine").string(), golden = (tmp.p / "golden").string();
  fs::create_directories(mine);
  fs::create_directories(golden);
  LiveRootCompare live(mine, golden, Finality{0, 0});
  std::vector<std::string> notes;
  EXPECT_TRUE(live.pass(1, notes).empty());
  EXPECT_TRUE(live.pass(2, notes).empty());
  // GE dumps appearing rank by rank: the reason's rank lists change ("my ranks [0]", "[0, 1]").
  auto ge = [](const std::string& root, int rank, const std::string& name) {
    write_file(
        fs::path(root) / ("worldsize2_global_rank" + std::to_string(rank)) / "20250601080000/0/graph_1_0/1/0" / name,
        "x");
  };
  ge(mine, 0, "Add.Add_1.11.2.1748764800000100");
  EXPECT_TRUE(live.pass(3, notes).empty());
  ge(mine, 1, "Add.Add_1.11.2.1748764800000100");
  EXPECT_TRUE(live.pass(4, notes).empty());
  ASSERT_EQ(notes.size(), 1u) << ::testing::PrintToString(notes);
  EXPECT_NE(notes[0].find("match: nothing to compare yet"), std::string::npos) << notes[0];
  EXPECT_NE(notes[0].find(mine), std::string::npos) << notes[0];
  EXPECT_NE(notes[0].find(golden), std::string::npos) << notes[0];
}

// F3's trees (docs/formats/atb-torch.md §5) with 4 blocks, block 3's Linear diverging.
void write_f3(const fs::path& torch_proc, const fs::path& atb_root, int blocks) {
  write_file(torch_proc / "model_tree.json", torch_tree_json(f3_torch_tree()));
  write_file(atb_root / "model" / "200" / "M.json", f3_atb_model("BlockLayer", 0, 11));
  for (int i = 0; i < blocks; ++i) {
    std::string b = "root.layers." + std::to_string(i);
    write_torch_tensor(torch_proc / "0" / b / "output.pth", {1, 2, 3, 4}, {1, 4});
    write_torch_tensor(torch_proc / "0" / (b + ".ln") / "output.pth", {-1, -0.5, 0.5, 1}, {1, 4});
    write_torch_tensor(torch_proc / "0" / (b + ".fc") / "input_0.pth", {-1, -0.5, 0.5, 1}, {1, 4});
    write_torch_tensor(torch_proc / "0" / (b + ".fc") / "output.pth", {1, 2, 3, 4}, {1, 4});
    fs::path l = atb_root / "tensors" / "0_200" / "0" / (std::to_string(i) + "_BlockLayer");
    write_atb_bin(l / "after" / "outtensor0.bin", {1, 2, 3, 4}, {1, 4}, false);
    write_atb_bin(l / "0_LayerNormOperation" / "after" / "outtensor0.bin", {-1, -0.5, 0.5, 1}, {1, 4}, false);
    write_atb_bin(l / "1_LinearOperation" / "before" / "intensor0.bin", {-1, -0.5, 0.5, 1}, {1, 4}, false);
    write_atb_bin(l / "1_LinearOperation" / "after" / "outtensor0.bin", {1, 2, 3, i == 3 ? 5.0f : 4.0f}, {1, 4}, false);
  }
}

// The ATB row cache: a second run on the same trees reads no pair again and gives the same rows
// (same measures, same first divergence) as a run without it; a new file is evaluated alone.
TEST(AtbRowCache, SecondRunReadsNothingAndAgreesWithAFreshRun) {
  TempDir tmp;
  fs::path torch = tmp.p / "msit_dump_20260101_000000" / "torch_tensors" / "cpu_100";
  fs::path atb_root = tmp.p / "atb" / "msit_dump_20260101_000001";
  write_f3(torch, atb_root, 4);
  atb::AtbCompareOptions fresh;
  fresh.level = atb::PolicySet::kApi;
  atb::AtbRowCache cache;
  atb::AtbCompareOptions cached = fresh;
  cached.row_cache = &cache;
  auto first = atb::run_atb_compare(torch.string(), atb_root.string(), cached);
  ASSERT_TRUE(first.ok());
  size_t n = first->sheets.at(0).rows.size();
  ASSERT_GT(n, 0u);
  EXPECT_EQ(cache.hits, 0u);
  auto again = atb::run_atb_compare(torch.string(), atb_root.string(), cached);
  auto want = atb::run_atb_compare(torch.string(), atb_root.string(), fresh);
  ASSERT_TRUE(again.ok());
  ASSERT_TRUE(want.ok());
  EXPECT_EQ(cache.evaluated, 0u);
  EXPECT_GE(cache.hits, n);
  const auto& a = again->sheets.at(0).rows;
  const auto& w = want->sheets.at(0).rows;
  ASSERT_EQ(a.size(), w.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].my_data_path, w[i].my_data_path);
    EXPECT_EQ(a[i].data_id, w[i].data_id);
    EXPECT_EQ(a[i].red, w[i].red);
    EXPECT_EQ(a[i].cosine, w[i].cosine);
    EXPECT_EQ(a[i].jump, w[i].jump) << a[i].my_data_path;
  }
  // One more block on both sides: only its pairs are read.
  write_f3(torch, atb_root, 5);
  auto grown = atb::run_atb_compare(torch.string(), atb_root.string(), cached);
  ASSERT_TRUE(grown.ok());
  EXPECT_GT(cache.evaluated, 0u);
  EXPECT_LT(cache.evaluated, grown->sheets.at(0).rows.size());
}

// The live comparer's ATB pass uses it: a second pass on unchanged trees evaluates nothing.
TEST(AtbRowCache, LivePassEvaluatesOnlyNewPairs) {
  TempDir tmp;
  fs::path torch = tmp.p / "msit_dump_20260101_000000" / "torch_tensors" / "cpu_100";
  fs::path atb_root = tmp.p / "atb" / "msit_dump_20260101_000001";
  write_f3(torch, atb_root, 4);
  LiveRootCompare live(atb_root.string(), torch.string(), Finality{0, 0});
  std::vector<std::string> notes;
  auto events = live.pass(1, notes);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].op, "3_BlockLayer/1_LinearOperation");
  EXPECT_GT(live.atb_evaluated(), 0u);
  EXPECT_TRUE(live.pass(2, notes).empty());
  EXPECT_EQ(live.atb_evaluated(), 0u);
  // The token was answered at pass 1: it is left out of later passes and its rows left the
  // cache (tests/unit/live_compare_atb_incremental_test.cpp).
  EXPECT_EQ(live.cached_rows(), 0u);
}

}  // namespace
}  // namespace msit::daemon
