// ATB/torch match policies on small trees (docs/formats/atb-torch.md §3.3): module mapping, special names, the
// LinearOperation bias rule, null params, rope, torch vs torch; pure, no files.
#include <gtest/gtest.h>

#include "common/compare_atb/match.h"
#include "tests/unit/atb_fixtures.h"

namespace msit::atb {
namespace {

using namespace atb_test;

TopoTree torch_tree(const TorchNode& root) { return parse_torch_model_tree(torch_tree_json(root), "t").value(); }

// An ATB model of 11 layers `Layer_i`, each with the given children JSON (`%` replaced by i).
TopoTree atb_tree(const std::string& children, const std::string& extra_level1 = "") {
  std::string s = "{\"modelName\": \"M\", \"nodes\": [" + extra_level1;
  for (int i = 0; i < 11; ++i) {
    std::string c = children;
    for (size_t p; (p = c.find('%')) != std::string::npos;) c.replace(p, 1, std::to_string(i));
    s += std::string(i || !extra_level1.empty() ? ", " : "") + "{\"opName\": \"Layer_" + std::to_string(i) +
         "\", \"opType\": \"Layer\", \"nodes\": [" + c + "]}";
  }
  uint32_t show = 0;
  auto t = parse_atb_model(s + "]}", "m.json", false, show);
  EXPECT_TRUE(t.ok()) << (t.ok() ? "" : t.error().to_string());
  return std::move(t).value();
}

// root.model.layers.{0..10} with the given children names/types, plus embed_tokens, norm, lm_head.
TopoTree llama(const std::vector<std::pair<std::string, std::string>>& kids) {
  TorchNode layers{"root.model.layers", "ModuleList", {}};
  for (int i = 0; i < 11; ++i) {
    std::string b = "root.model.layers." + std::to_string(i);
    TorchNode l{b, "Decoder", {}};
    for (const auto& [n, t] : kids) l.children.push_back({b + "." + n, t, {}});
    layers.children.push_back(l);
  }
  TorchNode model{"root.model",
                  "Model",
                  {{"root.model.embed_tokens", "Embedding", {}}, layers, {"root.model.norm", "RMSNorm", {}}}};
  return torch_tree({"root", "LlamaForCausalLM", {model, {"root.lm_head", "Linear", {}}}});
}

// "golden name <- my name [my file]" per match.
std::vector<std::string> names(const TopoTree& g, const TopoTree& m, const std::vector<Match>& v) {
  std::vector<std::string> out;
  for (const auto& x : v) {
    std::string loc = x.my.loc == Loc::kAllInput ? " [inputs]" : x.my.loc == Loc::kFile ? " [" + x.my.file + "]" : "";
    out.push_back(g.nodes[x.golden.node].name + " <- " + m.nodes[x.my.node].name + loc);
  }
  return out;
}

bool has(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

MatchOptions builtins() {
  MatchOptions mo;
  mo.custom = custom_table({});
  return mo;
}

TEST(AtbMatch, ModuleMappingPairsAttentionAndMlpChildren) {
  auto g = llama({{"self_attn", "Attn"}, {"mlp", "MLP"}});
  auto m = atb_tree(R"({"opName": "Attention_%", "opType": "Attention"}, {"opName": "Mlp_%", "opType": "Mlp"})");
  auto v = names(g, m, match_tree_pair(g, 0, m, 0, PolicySet::kModule, builtins()));
  ASSERT_EQ(v.size(), 22u);
  EXPECT_EQ(v[0], "root.model.layers.0.self_attn <- Attention_0");
  EXPECT_EQ(v[1], "root.model.layers.0.mlp <- Mlp_0");
}

TEST(AtbMatch, SpecialNamesInTheLayerSet) {
  auto g = llama({{"mlp", "MLP"}});
  std::string extra = R"({"opName": "WordEmbedding_0", "opType": "WordEmbedding"})";
  auto m = atb_tree(R"({"opName": "Mlp_%", "opType": "Mlp"})", extra);
  // Level-1 nodes after the layers: the final norm and the lm head.
  uint32_t show = 0;
  std::string tail_json =
      R"({"modelName": "T", "nodes": [{"opName": "RmsNormOperation_12", "opType": "RmsNormOperation"},
      {"opName": "LmHead_13", "opType": "LmHead"}]})";
  auto t = parse_atb_model(tail_json, "t.json", false, show).value();
  auto v = names(g, m, match_tree_pair(g, 0, m, 0, PolicySet::kLayer, builtins()));
  EXPECT_EQ(v.size(), 12u);  // 11 layers + word embedding
  EXPECT_TRUE(has(v, "root.model.embed_tokens <- WordEmbedding_0"));
  auto w = names(g, t, match_tree_pair(g, 0, t, 0, PolicySet::kLayer, builtins()));
  EXPECT_TRUE(has(w, "root.model.norm <- RmsNormOperation_12"));
  EXPECT_TRUE(has(w, "root.lm_head <- LmHead_13"));
}

TEST(AtbMatch, LinearWithoutBiasIsReplacedByItsAddAndNullParamIsKept) {
  auto g = llama({{"fc", "Linear"}});
  auto m = atb_tree(R"({"opName": "LinearOperation_%_0", "opType": "LinearOperation", "param": {"hasBias": false}},
      {"opName": "ElewiseOperation_%_1", "opType": "ElewiseOperation", "param": {"elewiseType": 8}})");
  auto v = names(g, m, match_tree_pair(g, 0, m, 0, PolicySet::kApi, builtins()));
  EXPECT_TRUE(has(v, "root.model.layers.3.fc <- ElewiseOperation_3_1 [outtensor0.bin]"));
  EXPECT_FALSE(has(v, "root.model.layers.3.fc <- LinearOperation_3_0 [outtensor0.bin]"));
  auto n = atb_tree(R"({"opName": "LinearOperation_%_0", "opType": "LinearOperation", "param": null},
      {"opName": "ElewiseOperation_%_1", "opType": "ElewiseOperation", "param": {"elewiseType": 8}})");
  auto w = names(g, n, match_tree_pair(g, 0, n, 0, PolicySet::kApi, builtins()));  // msit crashes here (F6)
  EXPECT_TRUE(has(w, "root.model.layers.3.fc <- LinearOperation_3_0 [outtensor0.bin]"));
}

TEST(AtbMatch, RopeComparesMyInputs) {
  auto g = llama({{"rotary_emb", "Rotary"}, {"self_attn", "Attn"}});
  auto m = atb_tree(R"({"opName": "RopeOperation_%_0", "opType": "RopeOperation", "param": {}})");
  auto v = names(g, m, match_tree_pair(g, 0, m, 0, PolicySet::kApi, builtins()));
  EXPECT_TRUE(has(v, "root.model.layers.0.rotary_emb <- RopeOperation_0_0 [inputs]"));
}

TEST(AtbMatch, TorchVsTorchSameNamesAndStructure) {
  auto g = llama({{"self_attn", "Attn"}, {"mlp", "MLP"}});
  auto v = names(g, g, match_tree_pair(g, 0, g, 0, PolicySet::kApi, builtins()));
  for (const auto& n : g.nodes) {
    if (n.name != "root") { EXPECT_TRUE(has(v, n.name + " <- " + n.name)) << n.name; }
  }
  for (const auto& s : v) {  // nothing crosses over: every match pairs a node with itself
    auto p = s.find(" <- ");
    std::string mine = s.substr(p + 4);
    mine = mine.substr(0, mine.find(' '));
    EXPECT_EQ(s.substr(0, p), mine);
  }
}

}  // namespace
}  // namespace msit::atb
