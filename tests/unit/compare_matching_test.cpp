// Matching on in-memory dump indexes: fused-name splitting, msit's quirks (reassigned rows,
// Cast self rows, accumulating golden cells), diagnostic rows and msit's row order.
#include <gtest/gtest.h>

#include "common/compare/matching.h"

namespace {

msit::GraphDef graph(std::vector<msit::GraphOp> ops) {
  msit::GraphDef g;
  for (auto& op : ops) {
    g.index_of.emplace(op.name, g.ops.size());
    g.ops.push_back(std::move(op));
  }
  return g;
}

msit::GraphOp op(std::string name, std::vector<std::string> inputs, std::vector<std::vector<std::string>> tags) {
  msit::GraphOp o;
  o.name = std::move(name);
  o.inputs = std::move(inputs);
  for (auto& t : tags) o.output_descs.push_back({t});
  return o;
}

msit::SourceFile file(const std::string& name) {
  msit::SourceFile f;
  f.raw_path = "/ge/" + name;
  return f;
}

msit::FxNodeFiles fx_node(const std::string& key, int inputs, int outputs) {
  msit::FxNodeFiles n;
  for (int i = 0; i < inputs; ++i) n.inputs.push_back(file(key + ".INPUT." + std::to_string(i) + ".1.npy"));
  for (int i = 0; i < outputs; ++i) n.outputs.push_back(file(key + ".OUTPUT." + std::to_string(i) + ".1.npy"));
  return n;
}

msit::MatchContext context(const msit::GraphDef& g, uint32_t inputs = 2, uint32_t outputs = 1) {
  msit::MatchContext ctx;
  ctx.graph = &g;
  ctx.graph_path = "/g.txt";
  ctx.counts = [=](const msit::SourceFile& f) -> msit::Result<msit::TensorCounts> {
    if (f.raw_name().find("Broken") != std::string_view::npos)
      return msit::make_error(f.path(), msit::Stage::kHeader, "corrupt");
    return msit::TensorCounts{inputs, outputs};
  };
  return ctx;
}

TEST(CompareMatching, SplitFusedNameLongestFirstAndAbort) {
  auto g = graph({op("Add_2", {}, {}), op("Add", {}, {}), op("Cast_9", {}, {}), op("ConcatV2", {}, {})});
  auto none = [](const std::string&) { return false; };
  EXPECT_EQ(msit::split_fused_name("Add_2Cast_9ConcatV2", g, none),
            (std::vector<std::string>{"Add_2", "Cast_9", "ConcatV2"}));
  // A prefix that is a dump op but not a graph op stops the split (msit's find_longest_name).
  auto dump = [](const std::string& n) { return n == "Add_2Cast"; };
  EXPECT_EQ(msit::split_fused_name("Add_2Cast_9", g, dump), std::vector<std::string>{});
  EXPECT_EQ(msit::split_fused_name("Nope", g, none), std::vector<std::string>{});
}

TEST(CompareMatching, GeVsFxQuirksAndDiagnostics) {
  auto g =
      graph({op("Add_1", {"x:0"},
                {{"add_1-aten.add.Tensor.OUTPUT.0"}, {"gone-aten.x.OUTPUT.0"}, {"add_1b-aten.add.Tensor.OUTPUT.0"}}),
             op("Mul_1", {"Add_1:0"}, {{}})});
  msit::DumpGroup my, golden;
  auto& mt = my.tokens[0];
  mt.ge_ops.emplace_back("Add_1", file("Add.Add_1.1.1.1700000000000002"));
  mt.ge_ops.emplace_back("Cast_7", file("Cast.Cast_7.2.1.1700000000000001"));
  mt.ge_ops.emplace_back("Zzz", file("Foo.Zzz.3.1.1700000000000003"));
  mt.ge_ops.emplace_back("Mul_1", file("Mul.Mul_1.4.1.1700000000000004"));
  my.tokens[5];  // a token the golden side lacks: warned, not compared
  auto& gt = golden.tokens[0];
  gt.fx_nodes["add_1-aten.add.Tensor"] = fx_node("add_1-aten.add.Tensor", 2, 1);
  gt.fx_nodes["add_1b-aten.add.Tensor"] = fx_node("add_1b-aten.add.Tensor", 1, 1);
  auto ctx = context(g);
  msit::MatchResult out;
  msit::match_ge_fx(ctx, my, golden, out);
  std::vector<std::string> cells;
  for (const auto& p : out.pairs)
    cells.push_back(p.golden_cell + " | " + p.my_cell + " | " + msit::row_problem_text(p.problem));
  // Graph order: ops absent from the graph (-1) first, in insertion order; then Add_1, Mul_1.
  ASSERT_EQ(out.pairs.size(), 4u) << testing::PrintToString(cells);
  EXPECT_EQ(out.pairs[0].my_cell, "/ge/Cast.Cast_7.2.1.1700000000000001,outputs,0");  // Cast self row
  EXPECT_EQ(out.pairs[0].golden_cell, "/ge/Cast.Cast_7.2.1.1700000000000001,inputs,0");
  EXPECT_EQ(out.pairs[0].data_id, 0u);
  EXPECT_NE(out.pairs[1].problem.text().find("not found in graph"), std::string::npos);
  EXPECT_FALSE(out.pairs[1].data_id.has_value());
  // Add_1: the first tag's 3 rows are created then replaced by the last tag's 2 rows (ids 1-3 used).
  EXPECT_EQ(out.pairs[2].golden_cell, "/ge/add_1b-aten.add.Tensor.INPUT.0.1.npy");
  EXPECT_EQ(out.pairs[2].data_id, 4u);
  EXPECT_EQ(out.pairs[3].my_cell, "/ge/Add.Add_1.1.1.1700000000000002,outputs,0");
  EXPECT_EQ(out.pairs[3].data_id, 5u);
  // Mul_1 has no tag: an intermediate op, counted, no row.
  EXPECT_EQ(out.ops_without_rows, 1u);
}

TEST(CompareMatching, GeVsGeAccumulatingGoldenCells) {
  auto g = graph({op("A", {"x:0", "y:0"}, {}), op("B", {"A:0", "z:0"}, {})});
  msit::DumpGroup fused, plain;
  fused.tokens[0].ge_ops.emplace_back("AB", file("AutomaticBufferFusionOp.AB.1.1.1700000000000001"));
  fused.tokens[0].ge_ops.emplace_back("Q", file("Relu.Q.2.1.1700000000000002"));
  plain.tokens[0].ge_ops.emplace_back("A", file("Add.A.1.1.1700000000000001"));
  plain.tokens[0].ge_ops.emplace_back("B", file("Mul.B.1.1.1700000000000002"));
  auto ctx = context(g, 2, 2);
  msit::MatchResult out;
  msit::match_ge_ge(ctx, fused, plain, out);
  // Fused AB: inputs x, y (from A) and z (from B; A:0 is produced inside the fusion), capped at
  // my 2 inputs; outputs from the last component B with msit's accumulating cell.
  ASSERT_EQ(out.pairs.size(), 5u);
  EXPECT_EQ(out.pairs[0].golden_cell, "/ge/Add.A.1.1.1700000000000001,inputs,0");
  EXPECT_EQ(out.pairs[1].golden_cell, "/ge/Add.A.1.1.1700000000000001,inputs,1");
  EXPECT_EQ(out.pairs[2].golden_cell, "/ge/Mul.B.1.1.1700000000000002,inputs,0,outputs,0");
  EXPECT_EQ(out.pairs[3].golden_cell, "/ge/Mul.B.1.1.1700000000000002,inputs,0,outputs,0,outputs,1");
  EXPECT_EQ(out.pairs[3].golden.file->raw_name(), "Mul.B.1.1.1700000000000002");
  EXPECT_NE(out.pairs[4].problem.text().find("golden data missing for op Q"), std::string::npos);
}

TEST(CompareMatching, UnreadableFileBecomesProblemRowAndSortIsMsits) {
  auto g = graph({op("Broken", {}, {{"b-aten.b.OUTPUT.0"}})});
  msit::DumpGroup my, golden;
  my.tokens[0].ge_ops.emplace_back("Broken", file("Add.Broken.1.1.17"));
  golden.tokens[0].fx_nodes["b-aten.b"] = fx_node("b-aten.b", 1, 1);
  auto ctx = context(g);
  msit::MatchResult out;
  msit::match_ge_fx(ctx, my, golden, out);
  ASSERT_EQ(out.pairs.size(), 1u);
  EXPECT_NE(msit::row_problem_text(out.pairs[0].problem).find("corrupt"), std::string::npos);

  std::vector<msit::PairSpec> rows(4);
  rows[0].my_cell = "/a/X.x.1.1.20,outputs,0";
  rows[1].my_cell = "/a/X.x.1.1.10,outputs,10";
  rows[2].my_cell = "/a/X.x.1.1.10,outputs,2";
  rows[3].my_cell = "/a/X.x.1.1.10,inputs,0";
  msit::sort_rows_msit(rows, 0, rows.size());
  EXPECT_EQ(rows[0].my_cell, "/a/X.x.1.1.10,inputs,0");
  EXPECT_EQ(rows[1].my_cell, "/a/X.x.1.1.10,outputs,10");  // string order: 10 < 2
  EXPECT_EQ(rows[2].my_cell, "/a/X.x.1.1.10,outputs,2");
  EXPECT_EQ(rows[3].my_cell, "/a/X.x.1.1.20,outputs,0");
}

}  // namespace
