// The live comparer on ATB/torch trees (docs/live-divergence.md "How the live comparer
// decides"): its answer is the first divergence `compare --cl api` marks, which sees each op's
// inputs (ATB intensors, torch input_k) through the ATB library's post-pass.
#include <gtest/gtest.h>

#include "common/compare_atb/atb_compare.h"
#include "daemon/live_compare.h"
#include "tests/unit/atb_fixtures.h"

namespace msit::daemon {
namespace {

using namespace atb_test;

// F3's trees (docs/formats/atb-torch.md §5) with all 11 blocks, each a LayerNorm then a Linear,
// every output equal on both sides except block 10's Linear, the last op (RED ~0.18). `input_error` also
// makes that Linear's input differ (RED ~0.32): then the input explains the output's error.
struct Trees {
  TempDir tmp;
  fs::path torch_proc, atb_root;
  explicit Trees(bool input_error) {
    torch_proc = tmp.p / "msit_dump_20260101_000000" / "torch_tensors" / "cpu_100";
    atb_root = tmp.p / "atb" / "msit_dump_20260101_000001";
    fs::path atb_proc = atb_root / "tensors" / "0_200";
    write_file(torch_proc / "model_tree.json", torch_tree_json(f3_torch_tree()));
    write_file(atb_root / "model" / "200" / "M.json", f3_atb_model("BlockLayer", 0, 11));
    for (int i = 0; i <= 10; ++i) {
      std::string b = "root.layers." + std::to_string(i);
      write_torch_tensor(torch_proc / "0" / b / "output.pth", {1, 2, 3, 4}, {1, 4});
      write_torch_tensor(torch_proc / "0" / (b + ".ln") / "output.pth", {-1, -0.5, 0.5, 1}, {1, 4});
      write_torch_tensor(torch_proc / "0" / (b + ".fc") / "input_0.pth", {-1, -0.5, 0.5, 1}, {1, 4});
      write_torch_tensor(torch_proc / "0" / (b + ".fc") / "output.pth", {1, 2, 3, 4}, {1, 4});
      fs::path l = atb_proc / "0" / (std::to_string(i) + "_BlockLayer");
      write_atb_bin(l / "after" / "outtensor0.bin", {1, 2, 3, 4}, {1, 4}, false);
      write_atb_bin(l / "0_LayerNormOperation" / "after" / "outtensor0.bin", {-1, -0.5, 0.5, 1}, {1, 4}, false);
      bool bad = i == 10;
      write_atb_bin(l / "1_LinearOperation" / "before" / "intensor0.bin",
                    {-1, -0.5, 0.5, bad && input_error ? 1.5f : 1.0f}, {1, 4}, false);
      write_atb_bin(l / "1_LinearOperation" / "after" / "outtensor0.bin", {1, 2, 3, bad ? 5.0f : 4.0f}, {1, 4}, false);
    }
  }
  // The ops `compare --cl api` marks first (its ATB node path).
  std::vector<std::string> compare_firsts() const {
    atb::AtbCompareOptions o;
    o.level = atb::PolicySet::kApi;
    auto res = atb::run_atb_compare(torch_proc.string(), atb_root.string(), o);
    EXPECT_TRUE(res.ok());
    std::vector<std::string> v;
    if (!res.ok()) return v;
    for (const auto& r : res->sheets.at(0).rows)
      if (r.jump == ReportRow::Jump::kFirst) v.push_back(r.my_label.op);
    return v;
  }
  // What the live comparer reports once every token is final (no settle, no quiet time).
  std::vector<std::string> live_firsts(std::vector<std::string>* notes_out = nullptr) const {
    LiveRootCompare live(atb_root.string(), torch_proc.string(), Finality{0, 0});
    std::vector<std::string> notes, v;
    for (const auto& e : live.pass(1, notes)) v.push_back(e.op);
    EXPECT_TRUE(live.pass(2, notes).empty());  // answered once
    if (notes_out) *notes_out = notes;
    return v;
  }
};

TEST(LiveCompareAtb, NamesTheDivergingAtbNodeAsCompareDoes) {
  Trees t(false);
  std::vector<std::string> want{"10_BlockLayer/1_LinearOperation"};
  ASSERT_EQ(t.compare_firsts(), want);
  EXPECT_EQ(t.live_firsts(), want);
}

// The op's input error explains its output's: compare names nothing, and neither does the live
// comparer (a post-pass over the sheet without the input rows would take the previous output,
// an exact LayerNorm, as the input and name the Linear).
TEST(LiveCompareAtb, AnErrorItsInputsExplainIsNotNamed) {
  Trees t(true);
  ASSERT_EQ(t.compare_firsts(), std::vector<std::string>{});
  std::vector<std::string> notes;
  EXPECT_EQ(t.live_firsts(&notes), std::vector<std::string>{});
  // The final token is noted as judged, once.
  size_t judged = 0;
  for (const auto& n : notes) judged += n.find("rank -, token 0 judged clean") != std::string::npos;
  EXPECT_EQ(judged, 1u);
}

}  // namespace
}  // namespace msit::daemon
