// GE graph text: the protobuf text format as torchair writes it, and what msit's line parser
// gets wrong (braces inside strings, escapes, top-level attr blocks).
#include <gtest/gtest.h>

#include <cmath>

#include "common/formats/graph_text.h"

TEST(GraphText, ParsesOpsInputsAndFxTags) {
  const char* text = R"(name: "graph_1"
op {
  name: "Add"
  type: "Add"
  input: "arg0_1:0"
  input: "arg1_1:0"
  attr {
    key: "x"
    value { s: "a {b}: c" }
  }
  output_desc {
    name: "y"
    dtype: DT_FLOAT16
    shape { dim: 2 dim: 3 }
    layout: "ND"
    attr {
      key: "_fx_tensor_name"
      value {
        s: "add_1-aten.add.Tensor.OUTPUT.0"
      }
    }
  }
}
op {
  name: "caf\303\251\"q\\"
  type: "Cast"
  input: "Add:0"
  input: "Add:-1"
  output_desc { name: "y" }
  output_desc <
    attr { key: "_fx_tensor_name" value { s: "x-aten.y.OUTPUT.1" } }
  >
}
attr {
  key: "graph_attr"
  value { i: 1 }
}
)";
  auto g = msit::parse_graph_text(text, "g.txt");
  ASSERT_TRUE(g.ok()) << g.error().to_string();
  EXPECT_EQ(g->name, "graph_1");
  ASSERT_EQ(g->ops.size(), 2u);
  EXPECT_EQ(g->ops[0].type, "Add");
  EXPECT_EQ(g->ops[0].inputs, (std::vector<std::string>{"arg0_1:0", "arg1_1:0"}));
  ASSERT_EQ(g->ops[0].output_descs.size(), 1u);
  EXPECT_EQ(g->ops[0].output_descs[0].fx_tensor_names, (std::vector<std::string>{"add_1-aten.add.Tensor.OUTPUT.0"}));
  EXPECT_EQ(g->ops[1].name, "caf\xc3\xa9\"q\\");
  EXPECT_EQ(g->ops[1].inputs.size(), 2u);
  ASSERT_EQ(g->ops[1].output_descs.size(), 2u);
  EXPECT_TRUE(g->ops[1].output_descs[0].fx_tensor_names.empty());
  EXPECT_EQ(g->ops[1].output_descs[1].fx_tensor_names[0], "x-aten.y.OUTPUT.1");
  EXPECT_EQ(g->position("Add"), 0);
  EXPECT_EQ(g->position("missing"), -1);
}

TEST(GraphText, ErrorsNameTheLine) {
  auto g = msit::parse_graph_text("op {\n  name: \"a\"\n", "bad.txt");
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.error().to_string().find("bad.txt"), std::string::npos);
  auto s = msit::parse_graph_text("op {\n  name: \"a\n}\n", "bad.txt");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("line 2"), std::string::npos) << s.error().message;
  std::string deep;
  for (int i = 0; i < 100; ++i) deep += "a {";
  EXPECT_FALSE(msit::parse_graph_text(deep, "deep.txt").ok());
}

TEST(GraphText, FxKeyAndFileOrder) {
  EXPECT_EQ(msit::fx_node_key_from_tensor_name("add_1-aten.add.Tensor.OUTPUT.0"), "add_1-aten.add.Tensor");
  EXPECT_EQ(msit::fx_node_key_from_tensor_name("mm-aten.mm.default"), "mm-aten.mm.default");
  EXPECT_EQ(msit::graph_file_sort_key("dynamo_original_graph_12_rank_0_pid_5_ts_2025.txt"), 12u);
  EXPECT_TRUE(msit::is_original_graph_file_name("dynamo_original_graph_1_2025.txt"));
  EXPECT_FALSE(msit::is_original_graph_file_name("dynamo_optimized_graph_1_2025.txt"));
}

// Op attributes as torchair prints them (docs/formats/graph-text.md §2, AttrDef): the values
// opcheck takes its semantics from; a value that does not parse is kNone (missing), never 0.
TEST(GraphText, ParsesOpAttributes) {
  const char* text = R"(op {
  name: "mm"
  type: "BatchMatMulV2"
  input: "a:0"
  attr {
    key: "adj_x1"
    value {
      b: true
    }
  }
  attr { key: "axes" value { list { i: -1 i: 2 val_type: VT_LIST_INT } } }
  attr { key: "dst_type" value { i: 27 } }
  attr { key: "epsilon" value { f: 1e-06 } }
  attr { key: "dtype" value { dt: DT_FLOAT16 } }
  attr { key: "empty" value { list { } } }
  attr { key: "fl" value { list { f: 0.5 f: inf } } }
  attr { key: "name" value { s: "x" } }
  attr { key: "bad" value { i: zz } }
  output_desc { attr { key: "_fx_tensor_name" value { s: "mm-aten.mm.OUTPUT.0" } } }
}
)";
  auto g = msit::parse_graph_text(text, "g.txt");
  ASSERT_TRUE(g.ok()) << g.error().message;
  const msit::GraphOp& op = g->ops.at(0);
  ASSERT_EQ(op.attrs.size(), 9u);
  ASSERT_NE(op.attr("adj_x1"), nullptr);
  EXPECT_EQ(op.attr("adj_x1")->kind, msit::AttrKind::kBool);
  EXPECT_TRUE(op.attr("adj_x1")->b);
  EXPECT_EQ(op.attr("axes")->kind, msit::AttrKind::kIntList);
  EXPECT_EQ(op.attr("axes")->ints, (std::vector<int64_t>{-1, 2}));
  EXPECT_EQ(op.attr("dst_type")->i, 27);
  EXPECT_EQ(op.attr("epsilon")->kind, msit::AttrKind::kFloat);
  EXPECT_DOUBLE_EQ(op.attr("epsilon")->f, 1e-06);
  EXPECT_EQ(op.attr("dtype")->kind, msit::AttrKind::kDtype);
  EXPECT_EQ(op.attr("dtype")->s, "DT_FLOAT16");
  EXPECT_TRUE(op.attr("empty")->ints.empty());
  EXPECT_EQ(op.attr("fl")->kind, msit::AttrKind::kFloatList);
  EXPECT_TRUE(std::isinf(op.attr("fl")->floats.at(1)));
  EXPECT_EQ(op.attr("name")->s, "x");
  EXPECT_EQ(op.attr("bad")->kind, msit::AttrKind::kNone);
  EXPECT_EQ(op.attr("transpose_x1"), nullptr);
  EXPECT_EQ(op.output_descs.at(0).fx_tensor_names.size(), 1u);  // desc attrs stay the desc's
}
