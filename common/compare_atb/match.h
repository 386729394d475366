// Node matching of an ATB/torch compare (docs/formats/atb-torch.md §3.2-§3.4): layer detection, the policy
// sets L / M / A and the built-in + user mapping tables. Pure functions of two trees.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/base/result.h"
#include "common/compare_atb/topology.h"

namespace msit::atb {

enum class Loc : uint8_t { kAllOutput, kAllInput, kFile };

struct Endpoint {
  uint32_t tree = 0, node = 0;
  Loc loc = Loc::kAllOutput;
  std::string file;  // kFile: exact file name in the node's dir (ATB: in after/)
  bool operator==(const Endpoint&) const = default;
};

struct Match {
  Endpoint my, golden;
  bool operator==(const Match&) const = default;
};

enum class PolicySet : uint8_t { kLayer, kModule, kApi };
std::string_view policy_set_name(PolicySet p);  // "layer", "module", "api"

// One mapping entry: key (ATB type[_file]) -> torch values (type[_file]).
using MappingEntry = std::pair<std::string, std::vector<std::string>>;

struct MatchOptions {
  std::vector<MappingEntry> custom;  // built-in custom entries with the user file merged in
};

// 3.2: the layer type of a tree, or empty; and its layer nodes in pre-order.
std::string layer_type(const TopoTree& t);
std::vector<uint32_t> layer_nodes(const TopoTree& t, const std::string& type);
// Why a tree has no layer type, for the user (empty when it has one): msit's rule and the tree's
// widest node, e.g. "root.model.layers has 4 children (4 LlamaDecoderLayer)".
std::string no_layer_type_reason(const TopoTree& t);

// Matches of one policy set over trees (golden[gi], my[mi]); tree indexes are written into the
// endpoints. Order: insertion order of the policies, duplicates removed (first one kept).
std::vector<Match> match_tree_pair(const TopoTree& golden, uint32_t gi, const TopoTree& my, uint32_t mi, PolicySet set,
                                   const MatchOptions& opts);

// The built-in custom table (3.3 A.4) merged with user entries (replacing equal keys).
std::vector<MappingEntry> custom_table(const std::vector<MappingEntry>& user);

// op_mapping_file.json (3.4). msit_compat: a string value becomes its letters (msit's loop over
// a str), else a one-element list. Invalid content is an error naming the file.
Result<std::vector<MappingEntry>> parse_op_mapping(std::string_view text, const std::string& path, bool msit_compat);

}  // namespace msit::atb
