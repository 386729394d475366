// GE graph text: the protobuf text format as torchair writes it, and what msit's line parser
// gets wrong (braces inside strings, escapes, top-level attr blocks).
#include <gtest/gtest.h>

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
