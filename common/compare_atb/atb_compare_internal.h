// Steps of the ATB/torch compare shared by the tensor compare and the statistics compare.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "common/compare_atb/atb_compare.h"
#include "common/compare_atb/side.h"

namespace msit::atb {

std::string real_path(const std::string& p);  // realpath, or p when it does not resolve
bool is_digits(const std::string& s);
// 3.6: (golden, my) token dirs with equal keys, in my token order; all pairs when none match
// and both paths named a token.
std::vector<std::pair<const TokenDir*, const TokenDir*>> token_pairs(const DumpSide& g, const DumpSide& m);
// Sibling process dirs when the side sits in tensors/ or torch_tensors/ (3.7), else none.
std::vector<std::string> rank_siblings(const DumpSide& s);
bool tree_allowed(const DumpSide& s, const TokenDir& t, uint32_t tree);
std::vector<MappingEntry> load_mapping(const AtbCompareOptions& o, std::vector<std::string>& warnings);
// One sheet's matches over every tree pair (the shorter tree list repeated), by my show_order.
std::vector<Match> sheet_matches(const DumpSide& g, const DumpSide& m, PolicySet set, const MatchOptions& mo);

}  // namespace msit::atb
