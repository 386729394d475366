// Parses a torchair GE graph dump (`dynamo_original_graph_*.txt`, protobuf text format of
// ge.proto.GraphDef, docs/formats/graph-text.md §2) into the few facts compare needs per op.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/base/result.h"

namespace msit {

struct GraphOutputDesc {
  // Values of every `attr { key: "_fx_tensor_name" value { s: ... } }` of this desc, in order.
  std::vector<std::string> fx_tensor_names;
};

// One op attribute (`attr { key: ... value { ... } }`, AttrDef in docs/formats/graph-text.md §2):
// the oneof member the text names; list values keep their element kind.
enum class AttrKind : uint8_t { kNone, kInt, kFloat, kBool, kString, kDtype, kIntList, kFloatList, kBoolList };

struct GraphAttr {
  std::string key;
  AttrKind kind = AttrKind::kNone;
  int64_t i = 0;
  double f = 0;
  bool b = false;
  std::string s;               // string value, or the dtype's name (`dt: DT_FLOAT`)
  std::vector<int64_t> ints;   // list { i: ... } (bools as 0/1 in kBoolList)
  std::vector<double> floats;  // list { f: ... }
};

struct GraphOp {
  std::string name;
  std::string type;
  std::vector<std::string> inputs;  // "{srcOp}:{idx}" as written (control edges too)
  std::vector<GraphOutputDesc> output_descs;
  std::vector<GraphAttr> attrs;  // the op's own attr map, in file order

  const GraphAttr* attr(std::string_view key) const;
};

struct GraphDef {
  std::string name;
  std::vector<GraphOp> ops;                          // in file order (= msit's graph index)
  std::unordered_map<std::string, size_t> index_of;  // op name -> first position in ops

  const GraphOp* find(std::string_view op_name) const;
  // msit's sort key: position of the op in the graph, -1 when absent.
  int64_t position(std::string_view op_name) const;
};

// Real text-format tokenizer: strings are unescaped (C escapes, octal, hex), repeated fields kept
// as lists, `<...>` message delimiters and `field: {` accepted, non-`op` top-level blocks ignored.
// Fails (with line number) on unbalanced braces, unterminated strings or nesting deeper than 64.
Result<GraphDef> parse_graph_text(std::string_view text, const std::string& path);
Result<GraphDef> read_graph_text_file(const std::string& path);

// msit's FX node key from a `_fx_tensor_name` value: drops the last two dot parts when the
// second-to-last one is `OUTPUT` ("add_1-aten.add.Tensor.OUTPUT.0" -> "add_1-aten.add.Tensor").
std::string fx_node_key_from_tensor_name(std::string_view fx_tensor_name);

// Graph files are sorted by the first run of digits in their name (the graph id), as msit does.
// Returns nullopt when the name has no digits.
std::optional<uint64_t> graph_file_sort_key(std::string_view file_name);
bool is_original_graph_file_name(std::string_view file_name);

}  // namespace msit
