// Policy sets L, M and A (3.3) over two pre-order trees. Where msit iterates a hash set, nodes
// are taken in pre-order so that the result never depends on hashing.
#include "common/compare_atb/match.h"

#include <algorithm>
#include <map>
#include <set>

#include "common/compare_atb/match_internal.h"

namespace msit::atb {
namespace {

// Counter.most_common(1): the highest count, first seen on ties.
std::optional<std::string> dominant_child_type(const TopoTree& t, uint32_t n) {
  std::vector<std::pair<std::string, size_t>> counts;
  for (uint32_t c : t.nodes[n].children) {
    const std::string& ty = t.nodes[c].type;
    auto it = std::find_if(counts.begin(), counts.end(), [&](const auto& p) { return p.first == ty; });
    if (it == counts.end()) counts.emplace_back(ty, 1);
    else ++it->second;
  }
  const std::pair<std::string, size_t>* best = nullptr;
  for (const auto& p : counts)
    if (!best || p.second > best->second) best = &p;
  if (best && best->second > 5) return best->first;
  return std::nullopt;
}

// Depth-first over nodes with <= 10 children; the first node with more decides or stops.
std::optional<std::string> find_layer_type(const TopoTree& t, uint32_t n) {
  const auto& kids = t.nodes[n].children;
  if (kids.size() > 10) return dominant_child_type(t, n);
  for (uint32_t c : kids) {
    auto r = find_layer_type(t, c);
    if (r) return r;
  }
  return std::nullopt;
}

void collect_layers(const TopoTree& t, uint32_t n, const std::string& type, std::vector<uint32_t>& out) {
  if (t.nodes[n].type == type && n != 0) {
    out.push_back(n);
    return;
  }
  for (uint32_t c : t.nodes[n].children) collect_layers(t, c, type, out);
}

}  // namespace

std::string_view policy_set_name(PolicySet p) {
  switch (p) {
    case PolicySet::kLayer: return "layer";
    case PolicySet::kModule: return "module";
    case PolicySet::kApi: return "api";
  }
  return "api";
}

std::string layer_type(const TopoTree& t) {
  if (t.nodes.empty()) return "";
  return find_layer_type(t, 0).value_or("");
}

std::string no_layer_type_reason(const TopoTree& t) {
  if (t.nodes.empty() || !layer_type(t).empty()) return "";
  // The node that comes closest: the most children of one type (first in pre-order on ties).
  uint32_t best = 0;
  std::pair<std::string, size_t> best_type;
  for (uint32_t i = 0; i < t.nodes.size(); ++i) {
    std::map<std::string, size_t> types;
    for (uint32_t c : t.nodes[i].children) ++types[t.nodes[c].type];
    for (const auto& ty : types)
      if (ty.second > best_type.second) best = i, best_type = ty;
  }
  std::string s = "msit's layers sit under a node of more than 10 children, more than 5 of one type; closest: " +
                  t.nodes[best].name + ", " + std::to_string(t.nodes[best].children.size()) + " children";
  if (best_type.second > 0) s += ", " + std::to_string(best_type.second) + " " + best_type.first;
  return s;
}

std::vector<uint32_t> layer_nodes(const TopoTree& t, const std::string& type) {
  std::vector<uint32_t> out;
  if (!type.empty() && !t.nodes.empty()) collect_layers(t, 0, type, out);
  return out;
}

void subtree(const TopoTree& t, uint32_t n, bool leaves_only, std::vector<uint32_t>& out) {
  // Iterative pre-order: trees are depth-capped, but a wide tree must not cost stack either way.
  std::vector<uint32_t> stack{n};
  while (!stack.empty()) {
    uint32_t x = stack.back();
    stack.pop_back();
    const auto& kids = t.nodes[x].children;
    if (!leaves_only || kids.empty()) out.push_back(x);
    for (auto it = kids.rbegin(); it != kids.rend(); ++it) stack.push_back(*it);
  }
}

void MatchSink::add(uint32_t my, Loc ml, std::string mf, uint32_t golden, Loc gl, std::string gf) {
  Match m{Endpoint{mi, my, ml, std::move(mf)}, Endpoint{gi, golden, gl, std::move(gf)}};
  if (seen.insert(key_of(m)).second) out.push_back(std::move(m));
}

std::string MatchSink::key_of(const Match& m) {
  auto ep = [](const Endpoint& e) {
    return std::to_string(e.tree) + ":" + std::to_string(e.node) + ":" + std::to_string(static_cast<int>(e.loc)) + ":" +
           e.file;
  };
  return ep(m.my) + "|" + ep(m.golden);
}

void MatchSink::zip(const std::vector<uint32_t>& my, const std::vector<uint32_t>& golden, Loc ml, const std::string& mf,
                    Loc gl, const std::string& gf) {
  for (size_t i = 0; i < std::min(my.size(), golden.size()); ++i) add(my[i], ml, mf, golden[i], gl, gf);
}

std::vector<std::pair<uint32_t, uint32_t>> layer_pairs(const TopoTree& g, const TopoTree& m) {
  auto gl = layer_nodes(g, layer_type(g));
  auto ml = layer_nodes(m, layer_type(m));
  std::vector<std::pair<uint32_t, uint32_t>> out;
  for (size_t i = 0; i < std::min(gl.size(), ml.size()); ++i) out.emplace_back(gl[i], ml[i]);
  return out;
}

std::vector<Match> match_tree_pair(const TopoTree& golden, uint32_t gi, const TopoTree& my, uint32_t mi, PolicySet set,
                                   const MatchOptions& opts) {
  MatchSink sink{golden, my, gi, mi, {}, {}};
  if (golden.nodes.empty() || my.nodes.empty()) return {};
  auto layers = layer_pairs(golden, my);
  switch (set) {
    case PolicySet::kLayer:
      for (auto [g, m] : layers) sink.add(m, Loc::kAllOutput, "", g, Loc::kAllOutput, "");
      policy_special_names(sink);
      break;
    case PolicySet::kModule: policy_modules(sink, layers); break;
    case PolicySet::kApi:
      policy_last_chain(sink);
      policy_same_name(sink);
      policy_type_bfs(sink);
      policy_mapping_tables(sink, layers, opts.custom);
      policy_rope(sink, layers);
      policy_enhanced_names(sink, layers);
      policy_special_names(sink);
      policy_qwen(sink, layers);
      break;
  }
  return std::move(sink.out);
}

}  // namespace msit::atb
