// msProbe's -lm layer mapping (docs/formats/msprobe-compare.md §3.1): the YAML reader, where one
// entry is placed (layer path, framework frame, own name), and a small MindSpore/PyTorch pair
// turned into a data mapping. The generated pair of tests/integration/compare_msprobe_lm.sh and
// msProbe's own fixture check the whole compare against msProbe's rows.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/compare_msprobe/layer_mapping.h"
#include "common/compare_msprobe/mapping_file.h"
#include "tests/unit/compare_fixtures.h"

namespace msit {
namespace {

using compare_test::TempDir;
using compare_test::write_file;
namespace fs = std::filesystem;

Result<MsLayerMapping> layers(const std::string& text) {
  return parse_ms_layer_mapping(std::span<const char>(text.data(), text.size()), "lm.yaml");
}

TEST(MsprobeLayerMapping, ReadsClassesAndRulesInOrder) {
  auto m = layers(
      "TopLayer:\n  network_with_loss: module\n"
      "ParallelAttention:\n  flash_attention_score: core_attention_flash.npu_fusion_attention\n"
      "  a.b.c: x\n"
      "Empty: {}\n");
  ASSERT_TRUE(m.ok()) << m.error().to_string();
  ASSERT_EQ(m->size(), 3u);
  EXPECT_EQ(m->at("TopLayer").at(0), (std::pair<std::string, std::string>("network_with_loss", "module")));
  ASSERT_EQ(m->at("ParallelAttention").size(), 2u);
  EXPECT_EQ(m->at("ParallelAttention")[1].first, "a.b.c");
  EXPECT_TRUE(m->at("Empty").empty());
  auto empty = layers("");
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->empty());
}

TEST(MsprobeLayerMapping, BadFilesNameTheLine) {
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"TopLayer: x\n", "line 1: the value of 'TopLayer' is not a mapping of names"},
      {"TopLayer:\n  a:\n    b: c\n", "line 3: the value of 'TopLayer.a' is not a name"},
      {"TopLayer:\n  a: b\n  a: c\n", "line 3: 'a' is mapped twice under 'TopLayer'"},
      {"A:\n  a: b\nA:\n  c: d\n", "line 3: 'A' is listed twice"},
      {"- a\n", "line 1: a list"},
      {"A:\n  a:\n", "line 2: the value of 'A.a' is not a name"},
      {"A: &x\n  a: b\nB: *x\n", "line 3: the value of 'B' is not a mapping of names"},
      {"A:\n  a: \"b\n", "line 3: found unexpected end of stream"},
  };
  for (const auto& [text, want] : bad) {
    auto m = layers(text);
    ASSERT_FALSE(m.ok()) << text;
    const std::string e = m.error().to_string();
    EXPECT_NE(e.find("lm.yaml"), std::string::npos) << e;
    EXPECT_NE(e.find(want), std::string::npos) << e;
  }
}

TEST(MsprobeLayerMapping, ScopeOfEachKindOfEntry) {
  auto api = ms_layer_scope("Mint.matmul.3.forward", "Cell.net.layers.2.attn.Attention.forward.0", "");
  ASSERT_TRUE(api.ok()) << api.error().to_string();
  EXPECT_EQ(api->full_scope, "Cell.net.layers.2.attn.matmul");
  EXPECT_EQ(api->state, "forward");
  auto top = ms_layer_scope("Functional.linear.0.backward", "", "linear_impl");
  ASSERT_TRUE(top.ok());
  EXPECT_EQ(top->full_scope, "TopLayer.linear_impl.linear");
  EXPECT_EQ(top->state, "backward");
  auto prim = ms_layer_scope("Primitive.norm.RmsNorm.0.forward", "Cell.a.b.Norm.forward.0", "ignored");
  ASSERT_TRUE(prim.ok());
  EXPECT_EQ(prim->full_scope, "Cell.a.b.RmsNorm");  // Primitive frames are not read
  auto mod = ms_layer_scope("Module.layers.0.attn.Attention.forward.0", "Module.layers.0.Block.forward.0", "x");
  ASSERT_TRUE(mod.ok());
  EXPECT_EQ(mod->type_name, "Attention");
  EXPECT_EQ(mod->full_scope, "Module.layers.0.attn");
  auto grad_new = ms_layer_scope("Module.a.b.Linear.parameters_grad.0", "", "");
  ASSERT_TRUE(grad_new.ok());
  EXPECT_EQ(grad_new->full_scope, "Module.a.b.b");  // msProbe's placement, kept as it is
  auto grad_old = ms_layer_scope("Module.a.b.Linear.parameters_grad", "", "");
  ASSERT_TRUE(grad_old.ok());
  EXPECT_EQ(grad_old->full_scope, "Module.a.b");
  EXPECT_FALSE(ms_layer_scope("a.b.c", "", "").ok());
  EXPECT_FALSE(ms_layer_scope("Mint.add.0.forward", "Cell.a.forward", "").ok());  // parent too short
}

TEST(MsprobeLayerMapping, FrameScopeIsTheLastLeadingFrameworkFrame) {
  const std::vector<std::string> pt = {
      "File /x/msprobe/wrap.py, line 1, in op_template, \n return OpTemplate(op)",
      "File /env/site-packages/torch/nn/functional.py, line 9, in softmax_impl, \n ...",
      "File /env/site-packages/torch/nn/functional.py, line 8, in softmax, \n ...",
      "File /net/model.py, line 3, in forward, \n y = softmax(x)",
  };
  auto f = ms_frame_scope(pt, false);
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(*f, "softmax");
  EXPECT_EQ(*ms_frame_scope({pt[0], pt[3]}, false), "");  // the user's code first: no framework scope
  const std::vector<std::string> ms = {
      "File /env/site-packages/mindspore/nn/cell.py, line 494, in _run_construct, \n ...",
      "File /env/site-packages/mindspore/nn/cell.py, line 733, in __call__, \n ...",
      "File /net/model.py, line 3, in construct, \n ...",
  };
  EXPECT_EQ(*ms_frame_scope(ms, true), "");  // __call__ is never a scope
  EXPECT_FALSE(ms_frame_scope({"Template", "File /env/site-packages/torch/x.py"}, false).ok());
  EXPECT_EQ(*ms_frame_scope({}, false), "");
}

std::string stat_record(const char* dtype) {
  return std::string(R"({"type": "t", "dtype": ")") + dtype +
         R"(", "shape": [2], "Max": 1.0, "Min": 0.0, "Mean": 0.5, "Norm": 1.0})";
}

// A side of one module holding two matmuls and (target only) a cast.
void write_side(const fs::path& dir, const std::string& fw, const std::string& top,
                const std::vector<std::string>& apis) {
  const std::string rec = stat_record(fw == "mindspore" ? "Float32" : "torch.float32");
  const std::string cell = (fw == "mindspore" ? "Cell." : "Module.") + top + ".attn.Attention.forward.0";
  std::string data, construct;
  for (const std::string& a : apis) {
    data += "\"" + a + "\": {\"input_args\": [" + rec + "], \"output\": [" + rec + "]},";
    construct += "\"" + a + "\": \"" + cell + "\",";
  }
  data += "\"" + cell + "\": {\"input_args\": [" + rec + "], \"output\": [" + rec + "]}";
  construct += "\"" + cell + "\": null";
  write_file(dir / "dump.json",
             R"({"task": "statistics", "level": "mix", "framework": ")" + fw + R"(", "data": {)" + data + "}}");
  write_file(dir / "construct.json", "{" + construct + "}");
  write_file(dir / "stack.json", "{}");
}

TEST(MsprobeLayerMapping, PairsEntriesByPlaceAndIndex) {
  TempDir t;
  write_side(t.path / "ms", "mindspore", "net",
             {"Mint.matmul.0.forward", "Mint.cast.0.forward", "Mint.matmul.1.forward"});
  write_side(t.path / "pt", "pytorch", "module", {"Tensor.matmul.7.forward", "Tensor.matmul.8.forward"});
  auto npu = read_msprobe_side((t.path / "ms/dump.json").string());
  auto bench = read_msprobe_side((t.path / "pt/dump.json").string());
  ASSERT_TRUE(npu.ok() && bench.ok());
  EXPECT_TRUE(ms_layer_mapping_applies(*npu));
  EXPECT_FALSE(ms_layer_mapping_applies(*bench));
  MsLayerMapping lm;
  lm["TopLayer"] = {{"net", "module"}};
  auto dm = ms_layer_data_mapping(*npu, *bench, lm);
  ASSERT_TRUE(dm.ok()) << dm.error().to_string();
  EXPECT_EQ(dm->at("Mint.matmul.0.forward.input.0"), "Tensor.matmul.7.forward.input.0");
  EXPECT_EQ(dm->at("Mint.matmul.1.forward.output.0"), "Tensor.matmul.8.forward.output.0");
  EXPECT_EQ(dm->at("Mint.cast.0.forward.output.0"), "N/A");
  EXPECT_EQ(dm->at("Cell.net.attn.Attention.forward.0.input.0"), "Module.module.attn.Attention.forward.0.input.0");
  // Without the rule the top layers differ: nothing is found.
  auto none = ms_layer_data_mapping(*npu, *bench, {});
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->at("Mint.matmul.0.forward.input.0"), "N/A");
  // Only one of the side files: an error naming the missing one.
  fs::remove(t.path / "pt/stack.json");
  auto bad = ms_layer_data_mapping(*npu, *bench, lm);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().to_string().find("pt/stack.json"), std::string::npos) << bad.error().to_string();
}

}  // namespace
}  // namespace msit
