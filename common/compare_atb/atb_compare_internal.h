// Steps of the ATB/torch compare shared by the tensor compare and the statistics compare.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "common/compare_atb/atb_compare.h"
#include "common/compare_atb/side.h"
#include "common/report/tensor_label.h"

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

// The tensor a dump file is (docs/formats/atb-torch.md §1-§2), from its name: ATB intensor{k} /
// outtensor{k} (an irName may follow), torch input_{k} / output / output_{k}. Sets role and index.
void file_role(std::string_view name, TensorLabel& l);

// Execution order of every node of a tree (docs/compare.md "Op labels"): a node's inputs are
// read when it starts (pre-order) and its outputs written when all its children have run
// (post-order), so a layer's output comes after its last op's.
struct TreeOrder {
  std::vector<uint64_t> start, end;
};

// The op label of a matched node's file (docs/compare.md "Op labels"): ATB: the node's path below
// the token dir (9_DecoderLayer/3_LinearOperation); torch: the module name. The type: ATB opType,
// torch class. The order: the tree's execution order. One per side; orders built on first use.
class Labeler {
 public:
  explicit Labeler(const DumpSide& s) : s_(s) {}
  TensorLabel label(const Endpoint& e, const SourceFile& f);  // the file names the tensor
  TensorLabel node_label(const Endpoint& e, TensorRole role, uint32_t index);

 private:
  const DumpSide& s_;
  std::vector<TreeOrder> orders_;
};

}  // namespace msit::atb
