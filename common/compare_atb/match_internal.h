// Shared by the policy files: the de-duplicating match sink and the individual policies.
#pragma once

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "common/compare_atb/match.h"

namespace msit::atb {

using LayerPairs = std::vector<std::pair<uint32_t, uint32_t>>;  // (golden, my)

struct MatchSink {
  const TopoTree& g;
  const TopoTree& m;
  uint32_t gi, mi;
  std::vector<Match> out;
  std::set<std::string> seen;

  void add(uint32_t my, Loc ml, std::string mf, uint32_t golden, Loc gl, std::string gf);
  // Pairs my[i] with golden[i] up to the shorter list.
  void zip(const std::vector<uint32_t>& my, const std::vector<uint32_t>& golden, Loc ml = Loc::kAllOutput,
           const std::string& mf = "", Loc gl = Loc::kAllOutput, const std::string& gf = "");
  static std::string key_of(const Match& m);
};

// Pre-order nodes of the subtree at n (n included), or only its leaves.
void subtree(const TopoTree& t, uint32_t n, bool leaves_only, std::vector<uint32_t>& out);
LayerPairs layer_pairs(const TopoTree& g, const TopoTree& m);

void policy_modules(MatchSink& s, const LayerPairs& layers);
void policy_last_chain(MatchSink& s);
void policy_same_name(MatchSink& s);
void policy_type_bfs(MatchSink& s);
void policy_mapping_tables(MatchSink& s, const LayerPairs& layers, const std::vector<MappingEntry>& custom);
void policy_rope(MatchSink& s, const LayerPairs& layers);
void policy_enhanced_names(MatchSink& s, const LayerPairs& layers);
void policy_special_names(MatchSink& s);
void policy_qwen(MatchSink& s, const LayerPairs& layers);

// A LinearOperation without bias stands for the ElewiseOperation (type 8: add) after it.
uint32_t linear_with_bias(const TopoTree& t, uint32_t n);

std::string lower(std::string s);
bool contains(std::string_view hay, std::string_view needle);

}  // namespace msit::atb
