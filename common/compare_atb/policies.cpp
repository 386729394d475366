// The individual policies of 3.3 (M and A; L reuses the layer pairs and special names).
#include <algorithm>
#include <cctype>
#include <deque>
#include <map>

#include "common/compare_atb/match_internal.h"

namespace msit::atb {

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}
bool contains(std::string_view hay, std::string_view needle) { return hay.find(needle) != std::string_view::npos; }

namespace {

template <class Pred>
std::vector<uint32_t> select(const TopoTree& t, const std::vector<uint32_t>& from, Pred pred) {
  std::vector<uint32_t> out;
  for (uint32_t n : from)
    if (pred(t.nodes[n])) out.push_back(n);
  return out;
}

std::vector<uint32_t> all_nodes(const TopoTree& t) {
  std::vector<uint32_t> v;
  subtree(t, 0, false, v);
  return v;
}

std::vector<uint32_t> under(const TopoTree& t, uint32_t n, bool leaves) {
  std::vector<uint32_t> v;
  subtree(t, n, leaves, v);
  return v;
}

const std::string& quant_type(const std::string& t) {
  static const std::map<std::string, std::string> kQuant = {{"LinearQuantOperation", "LinearOperation"},
                                                            {"LinearDequantOnly", "LinearNoQuant"},
                                                            {"LinearRowParallelNoAdd", "LinearRowParallelAndAdd"}};
  auto it = kQuant.find(t);
  return it == kQuant.end() ? t : it->second;
}

// Children grouped by (renamed) type, groups in first-seen order.
std::vector<std::pair<std::string, std::vector<uint32_t>>> by_type(const TopoTree& t, uint32_t n) {
  std::vector<std::pair<std::string, std::vector<uint32_t>>> groups;
  for (uint32_t c : t.nodes[n].children) {
    const std::string& ty = quant_type(t.nodes[c].type);
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& p) { return p.first == ty; });
    if (it == groups.end()) groups.push_back({ty, {c}});
    else it->second.push_back(c);
  }
  return groups;
}

// "Type_file" -> (type, file or empty).
std::pair<std::string, std::string> split_entry(const std::string& s) {
  auto pos = s.find('_');
  if (pos == std::string::npos) return {s, ""};
  return {s.substr(0, pos), s.substr(pos + 1)};
}

}  // namespace

// A LinearOperation without bias is followed by the ElewiseOperation (type 8: add) that adds it.
uint32_t linear_with_bias(const TopoTree& t, uint32_t n) {
  const TopoNode& node = t.nodes[n];
  if (node.type != "LinearOperation" || !node.param.is_object || node.param.has_bias_true || node.parent < 0) return n;
  const auto& sib = t.nodes[static_cast<size_t>(node.parent)].children;
  auto it = std::find(sib.begin(), sib.end(), n);
  if (it == sib.end() || it + 1 == sib.end()) return n;
  const TopoNode& next = t.nodes[*(it + 1)];
  return next.type == "ElewiseOperation" && next.param.elewise_type == 8 ? *(it + 1) : n;
}

void policy_modules(MatchSink& s, const LayerPairs& layers) {
  static const std::vector<MappingEntry> kModules = {{"Attention", {"self_attn", "self_attention", "Attention"}},
                                                     {"Mlp", {"mlp", "Mlp"}},
                                                     {"mlp", {"mlp"}},
                                                     {"self_attn", {"self_attn"}},
                                                     {"self_attention", {"self_attention"}}};
  for (auto [g, m] : layers) {
    for (const auto& [atb, torch] : kModules) {
      auto mine = select(s.m, s.m.nodes[m].children, [&](const TopoNode& n) { return contains(n.tensor_path, atb); });
      auto gold = select(s.g, s.g.nodes[g].children, [&](const TopoNode& n) {
        return std::any_of(torch.begin(), torch.end(),
                           [&](const std::string& v) { return contains(n.tensor_path, v); });
      });
      s.zip(mine, gold);
    }
  }
}

void policy_last_chain(MatchSink& s) {
  auto chain = [](const TopoTree& t) {
    std::vector<uint32_t> c;
    for (uint32_t n = 0; !t.nodes[n].children.empty() && c.size() < t.nodes.size();) {
      n = t.nodes[n].children.back();
      c.push_back(n);
    }
    return c;
  };
  auto gc = chain(s.g), mc = chain(s.m);
  for (uint32_t g : gc)
    for (uint32_t m : mc) s.add(m, Loc::kAllOutput, "", g, Loc::kAllOutput, "");
}

void policy_same_name(MatchSink& s) {
  std::map<std::string, uint32_t> golden;  // first node of each name, in pre-order
  for (uint32_t n : all_nodes(s.g)) golden.emplace(s.g.nodes[n].name, n);
  for (uint32_t n : all_nodes(s.m)) {
    const std::string& name = s.m.nodes[n].name;
    if (name == "root") continue;
    auto it = golden.find(name);
    if (it != golden.end()) s.add(n, Loc::kAllOutput, "", it->second, Loc::kAllOutput, "");
  }
}

void policy_type_bfs(MatchSink& s) {
  std::deque<std::pair<uint32_t, uint32_t>> queue{{0, 0}};  // (golden, my)
  size_t budget = s.g.nodes.size() + s.m.nodes.size();
  while (!queue.empty() && budget-- > 0) {
    auto [g, m] = queue.front();
    queue.pop_front();
    s.add(m, Loc::kAllOutput, "", g, Loc::kAllOutput, "");
    auto gg = by_type(s.g, g), mg = by_type(s.m, m);
    for (const auto& [type, gk] : gg) {
      auto it = std::find_if(mg.begin(), mg.end(), [&](const auto& p) { return p.first == type; });
      if (it == mg.end() || it->second.size() != gk.size()) continue;
      for (size_t i = 0; i < gk.size(); ++i) queue.emplace_back(gk[i], it->second[i]);
    }
  }
}

void policy_mapping_tables(MatchSink& s, const LayerPairs& layers, const std::vector<MappingEntry>& custom) {
  static const std::vector<std::pair<std::string, std::string>> kBuiltin = {{"LayerNormOperation", "LayerNorm"},
                                                                            {"LinearOperation", "Linear"}};
  for (auto [g, m] : layers) s.add(m, Loc::kAllOutput, "", g, Loc::kAllOutput, "");
  for (auto [g, m] : layers) {
    auto my_leaves = under(s.m, m, true), golden_leaves = under(s.g, g, true);
    for (const auto& [atb, torch] : kBuiltin) {
      auto mine = select(s.m, my_leaves, [&](const TopoNode& n) { return n.type == atb; });
      auto gold = select(s.g, golden_leaves, [&](const TopoNode& n) { return n.type == torch; });
      if (mine.size() != gold.size()) continue;
      for (auto& n : mine) n = linear_with_bias(s.m, n);
      s.zip(mine, gold, Loc::kFile, "outtensor0.bin", Loc::kFile, "output.pth");
    }
    auto my_all = under(s.m, m, false), golden_all = under(s.g, g, false);
    for (const auto& [key, values] : custom) {
      auto [my_type, my_file] = split_entry(key);
      auto mine = select(s.m, my_all, [&](const TopoNode& n) { return contains(n.type, my_type); });
      for (const auto& v : values) {
        auto [golden_type, golden_file] = split_entry(v);
        auto gold = select(s.g, golden_all, [&](const TopoNode& n) { return contains(n.type, golden_type); });
        if (mine.size() != gold.size()) continue;
        s.zip(mine, gold, my_file.empty() ? Loc::kAllOutput : Loc::kFile, my_file.empty() ? "" : my_file + ".bin",
              golden_file.empty() ? Loc::kAllOutput : Loc::kFile, golden_file.empty() ? "" : golden_file + ".pth");
      }
    }
  }
}

void policy_rope(MatchSink& s, const LayerPairs& layers) {
  for (auto [g, m] : layers) {
    auto gold = select(s.g, under(s.g, g, true), [](const TopoNode& n) { return contains(lower(n.name), "rotary"); });
    auto mine =
        select(s.m, under(s.m, m, true), [](const TopoNode& n) { return contains(lower(n.name), "ropeoperation"); });
    s.zip(mine, gold, Loc::kAllInput, "", Loc::kAllOutput, "");
  }
}

void policy_enhanced_names(MatchSink& s, const LayerPairs& layers) {
  struct Rule {
    std::vector<std::string> atb;
    std::string torch, my_file, golden_file;
  };
  static const std::vector<Rule> kRules = {{{"qkv", "linearoperation"}, "self_attn.w_pack", "", ""},
                                           {{"qkv", "splitoperation"}, "self_attn.v_proj", "", ""},
                                           {{"qkvlinear", "splitoperation"}, "self_attn.k_proj", "", ""},
                                           {{"qkvlinearsplit", "splitoperation"}, "self_attn.q_proj", "", ""},
                                           {{"attention", "linearoperation"}, "self_attn.o_proj", "", ""},
                                           {{"mlp", "rmsnormoperation"}, "mlp.post_attention_layernorm", "", ""},
                                           {{"mlp", "splitoperation"}, "mlp.gate_proj", "outtensor0.bin", ""},
                                           {{"mlp", "activationoperation"}, "mlp.act_fn", "", ""},
                                           {{"mlp", "elewiseoperation"}, "mlp.down_proj", "", "input_0.pth"},
                                           {{"mlp", "linearoperation"}, "mlp.down_proj", "", ""}};
  for (auto [g, m] : layers) {
    auto my_leaves = under(s.m, m, true), golden_leaves = under(s.g, g, true);
    for (const Rule& r : kRules) {
      bool o_proj = r.torch == "self_attn.o_proj";
      auto mine = select(s.m, my_leaves, [&](const TopoNode& n) {
        std::string p = lower(n.tensor_path);
        if (o_proj && contains(p, "qkv")) return false;
        return std::all_of(r.atb.begin(), r.atb.end(), [&](const std::string& a) { return contains(p, a); });
      });
      auto gold =
          select(s.g, golden_leaves, [&](const TopoNode& n) { return contains(lower(n.tensor_path), r.torch); });
      s.zip(mine, gold, r.my_file.empty() ? Loc::kAllOutput : Loc::kFile, r.my_file,
            r.golden_file.empty() ? Loc::kAllOutput : Loc::kFile, r.golden_file);
    }
  }
}

void policy_special_names(MatchSink& s) {
  struct Rule {
    bool (*my)(const std::string& name);
    bool (*golden)(const std::string& name);
  };
  static const Rule kRules[] = {{[](const std::string& n) { return contains(lower(n), "wordembedding"); },
                                 [](const std::string& n) {
                                   return (contains(n, "embed_tokens") || contains(n, "word_embeddings")) &&
                                          !contains(n, "word_embeddings_layernorm");
                                 }},
                                {[](const std::string& n) {
                                   constexpr std::string_view kPrefix = "RmsNormOperation_";
                                   return n.size() > kPrefix.size() && n.starts_with(kPrefix) &&
                                          std::all_of(n.begin() + kPrefix.size(), n.end(),
                                                      [](char c) { return c >= '0' && c <= '9'; });
                                 },
                                 [](const std::string& n) { return contains(n, "root.model.norm"); }},
                                {[](const std::string& n) { return contains(lower(n), "lmhead"); },
                                 [](const std::string& n) { return contains(n, "lm_head"); }},
                                {[](const std::string& n) { return contains(lower(n), "layernormoperation_35"); },
                                 [](const std::string& n) { return contains(n, "embeddings_layernorm"); }},
                                {[](const std::string& n) { return contains(lower(n), "layernormoperation_66"); },
                                 [](const std::string& n) { return contains(n, "ln_f"); }}};
  auto mine_all = all_nodes(s.m), golden_all = all_nodes(s.g);
  for (const Rule& r : kRules) {
    auto mine = select(s.m, mine_all, [&](const TopoNode& n) { return r.my(n.name); });
    auto gold = select(s.g, golden_all, [&](const TopoNode& n) { return r.golden(n.name); });
    s.zip(mine, gold);
  }
}

void policy_qwen(MatchSink& s, const LayerPairs& layers) {
  static const char* kProj[] = {"self_attn.v_proj", "self_attn.k_proj", "self_attn.q_proj"};
  auto grandchildren = [](const TopoTree& t, uint32_t n) {
    std::vector<uint32_t> v;
    for (uint32_t c : t.nodes[n].children) v.insert(v.end(), t.nodes[c].children.begin(), t.nodes[c].children.end());
    return v;
  };
  for (auto [g, m] : layers) {
    auto mine = select(s.m, grandchildren(s.m, m), [](const TopoNode& n) { return contains(n.tensor_path, "qkv"); });
    auto golden_gc = grandchildren(s.g, g);
    for (const char* proj : kProj) {
      auto gold = select(s.g, golden_gc, [&](const TopoNode& n) { return contains(n.tensor_path, proj); });
      for (uint32_t x : mine)
        for (uint32_t y : gold) s.add(x, Loc::kAllOutput, "", y, Loc::kAllOutput, "");
    }
  }
}

}  // namespace msit::atb
