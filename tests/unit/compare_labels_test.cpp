// Typed op labels (docs/compare.md "Op labels"): the pair builders set them from the dump's own
// structure (GE op name and type, FX node and target, role and index, execution order), the
// writers print them (both sides when they name different ops: ATB node vs torch module), and
// the first-divergence rule walks rows in their execution order, not in report order.
#include <gtest/gtest.h>

#include "common/compare/divergence.h"
#include "common/compare/matching.h"
#include "common/compare/terminal_summary.h"
#include "common/report/op_label.h"

namespace {

using msit::ReportRow;
using msit::TensorLabel;
using msit::TensorRole;

msit::SourceFile file(const std::string& name) {
  msit::SourceFile f;
  f.raw_path = "/ge/" + name;
  return f;
}

msit::GraphOp graph_op(std::string name, std::vector<std::vector<std::string>> tags) {
  msit::GraphOp o;
  o.name = std::move(name);
  for (auto& t : tags) o.output_descs.push_back({t});
  return o;
}

TEST(CompareLabels, GeFxPairsCarryBothSidesLabels) {
  msit::GraphDef g;
  g.index_of.emplace("Add_1", 0);
  g.ops.push_back(graph_op("Add_1", {{"add_1-aten.add.Tensor.OUTPUT.0"}}));
  msit::DumpGroup my, golden;
  my.tokens[0].ge_ops.emplace_back("Add_1", file("Add.Add_1.1.1.1700000000000002"));
  my.tokens[0].ge_ops.emplace_back("Cast_7", file("Cast.Cast_7.2.1.1700000000000001"));
  msit::FxNodeFiles n;
  n.inputs = {file("add_1-aten.add.Tensor.INPUT.0.1.npy"), file("add_1-aten.add.Tensor.INPUT.1.1.npy")};
  n.outputs = {file("add_1-aten.add.Tensor.OUTPUT.0.1.npy")};
  golden.tokens[0].fx_nodes["add_1-aten.add.Tensor"] = n;
  msit::MatchContext ctx;
  ctx.graph = &g;
  ctx.counts = [](const msit::SourceFile&) -> msit::Result<msit::TensorCounts> { return msit::TensorCounts{2, 1}; };
  msit::MatchResult out;
  msit::match_ge_fx(ctx, my, golden, out);
  msit::sort_rows_msit(out.pairs, 0, out.pairs.size());
  msit::number_rows(out.pairs, 0, out.pairs.size());
  ASSERT_EQ(out.pairs.size(), 4u);
  // Cast self row first (earlier timestamp): my output 0 against its own input 0.
  EXPECT_EQ(out.pairs[0].my_label.op, "Cast_7");
  EXPECT_EQ(out.pairs[0].my_label.op_type, "Cast");
  EXPECT_EQ(out.pairs[0].my_label.role, TensorRole::kOutput);
  EXPECT_EQ(out.pairs[0].golden_label.role, TensorRole::kInput);
  EXPECT_EQ(out.pairs[0].my_label.order, 0u);
  // Add_1: inputs 0 and 1, then output 0, each side named by its own dump.
  EXPECT_EQ(out.pairs[2].my_label.op, "Add_1");
  EXPECT_EQ(out.pairs[2].my_label.op_type, "Add");
  EXPECT_EQ(out.pairs[2].my_label.role, TensorRole::kInput);
  EXPECT_EQ(out.pairs[2].my_label.index, 1u);
  EXPECT_EQ(out.pairs[2].golden_label.op, "add_1");
  EXPECT_EQ(out.pairs[2].golden_label.op_type, "aten.add.Tensor");
  EXPECT_EQ(out.pairs[3].my_label.role, TensorRole::kOutput);
  EXPECT_EQ(out.pairs[3].golden_label.role, TensorRole::kOutput);
  EXPECT_EQ(out.pairs[3].my_label.order, 3u);
}

ReportRow atb_row(int layer, int leaf, const std::string& type, const std::string& module, double red, uint64_t order) {
  ReportRow r;
  r.my_data_path =
      "/a/" + std::to_string(layer) + "_DecoderLayer/" + std::to_string(leaf) + "_" + type + "/after/outtensor0.bin";
  r.golden_data_path = "/t/" + module + "/output.pth";
  r.my_label = {std::to_string(layer) + "_DecoderLayer/" + std::to_string(leaf) + "_" + type, type, TensorRole::kOutput,
                0, order};
  r.golden_label = {module, type == "LinearOperation" ? "Linear" : "LlamaRMSNorm", TensorRole::kOutput, 0, order};
  r.golden_dtype = msit::CellDType{msit::DType::kFloat32};
  r.my_dtype = msit::CellDType{msit::DType::kFloat32};
  r.compare_mode = msit::MetricSource::kExact;
  r.verdict = msit::Verdict::kPass;
  r.red = red;
  r.cosine = 1.0 - red * red / 2;
  return r;
}

TEST(CompareLabels, TextShowsBothSidesWhenTheyNameDifferentOps) {
  ReportRow r = atb_row(9, 3, "LinearOperation", "root.model.layers.9.self_attn.v_proj", 0.3, 7);
  EXPECT_EQ(msit::op_text(r),
            "9_DecoderLayer/3_LinearOperation (LinearOperation) output 0 vs root.model.layers.9.self_attn.v_proj "
            "(Linear) output 0");
  r.golden_label = r.my_label;  // same op on both sides (GE vs GE): named once
  EXPECT_EQ(msit::op_text(r), "9_DecoderLayer/3_LinearOperation (LinearOperation) output 0");
  ReportRow bare;  // no label (a flow that knows no ops): the file's base name, no parsing
  bare.my_data_path = "/d/Add.Add_1.1.1.17,outputs,0";
  bare.my_file_len = 19;  // the evaluator records where the file ends (ReportRow::my_file_len)
  EXPECT_EQ(msit::op_text(bare), "Add.Add_1.1.1.17");
  EXPECT_EQ(msit::row_file(bare, false), "/d/Add.Add_1.1.1.17");
  EXPECT_EQ(msit::label_text(TensorLabel{}), "");
}

// Report order is not execution order (msit sorts ATB rows by my show order, a layer before its
// ops): the rule names the op that ran first, by the labels' order.
TEST(CompareLabels, RuleWalksRowsInLabelOrder) {
  std::vector<ReportRow> rows;
  const uint64_t n = 40;
  for (uint64_t i = 0; i < n; ++i) {
    double level = 2e-4 + 1e-5 * static_cast<double>(i % 5);
    rows.push_back(atb_row(static_cast<int>(i / 4), static_cast<int>(i % 4), "LinearOperation",
                           "root.model.layers." + std::to_string(i / 4) + ".mlp.up_proj", level, n - i));
  }
  // Two injected outputs; in report order index 10 comes first, in execution order index 30.
  rows[10].red = 0.2;
  rows[10].cosine = 0.98;
  rows[30].red = 0.3;
  rows[30].cosine = 0.955;
  msit::mark_error_jumps(rows);
  EXPECT_EQ(rows[30].jump, ReportRow::Jump::kFirst)
      << rows[30].error_jump.value_or(-1) << " " << rows[30].error_floor.value_or(-1) << " "
      << rows[30].noise_floor.value_or(-1) << " " << rows[30].error_level.value_or(-1);
  EXPECT_NE(rows[10].jump, ReportRow::Jump::kFirst);
  auto order = msit::walk_order(rows);
  EXPECT_EQ(order.front(), n - 1);
  std::string text = msit::terminal_summary(rows, std::nullopt);
  EXPECT_NE(text.find("token 0: " + msit::op_text(rows[30])), std::string::npos) << text;
}

}  // namespace
