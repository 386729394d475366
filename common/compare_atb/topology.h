// Topologies of an ATB/torch compare (docs/formats/atb-torch.md §1.4, §2.3-§2.4): torch model_tree.json and ATB
// model JSONs parsed into flat pre-order node arrays, with caps against hostile files.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/base/result.h"

namespace msit::atb {

inline constexpr uint64_t kMaxTopologyBytes = 64ull << 20;  // a 100-layer MindIE model JSON is a few MB
inline constexpr uint32_t kMaxJsonDepth = 128;  // JSON nesting (a node level is 2: object + "children"/"nodes")
inline constexpr uint32_t kMaxTopologyNodes = 2'000'000;

// What compare needs of an ATB leaf's param (3.3 A.4 hasBias / elewiseType rule).
struct OpParam {
  bool present = false;    // key "param" exists
  bool is_object = false;  // and is an object (graph ops have "", a missing param is null)
  bool has_bias_key = false, has_bias_true = false;
  std::optional<int64_t> elewise_type;
};

struct TopoNode {
  std::string name;         // torch module name / ATB opName
  std::string type;         // torch class name / ATB opType
  std::string tensor_path;  // torch: the module dir name; ATB: "3_Op/0_Child" below the token dir
  uint32_t show_order = 0;  // ATB: global pre-order counter from 1; torch: 0
  int32_t parent = -1;
  uint32_t depth = 0;  // root 0
  std::vector<uint32_t> children;
  OpParam param;
};

struct TopoTree {
  std::string source;           // file it came from
  std::vector<TopoNode> nodes;  // pre-order; nodes[0] is the root
  int64_t start = 0;            // ATB: opId of the first level-1 node (2.4.1)
  bool atb = false;
  bool leaf(uint32_t i) const { return nodes[i].children.empty(); }
};

// Rejects nesting deeper than max_depth before any parse (nlohmann's own recursion and ours
// stay bounded). Brackets inside strings are skipped.
Status check_json_depth(std::string_view text, uint32_t max_depth, const std::string& path);

Result<TopoTree> parse_torch_model_tree(std::string_view text, const std::string& path);
// transdata: layer/{pid}/TransdataOperation_0.json exists (start + 1). show_counter is the
// global pre-order counter shared by all trees of one side; legacy_start0: ait's start = 0.
Result<TopoTree> parse_atb_model(std::string_view text, const std::string& path, bool transdata, uint32_t& show_counter,
                                 bool legacy_start0 = false);

// Reads a whole topology file, refusing anything above kMaxTopologyBytes.
Result<std::string> read_topology_file(const std::string& path);

// Integer suffix after the last '_' of `name`, 0 when not digits (2.4.1).
int64_t trailing_number(std::string_view name);

}  // namespace msit::atb
