// GE graph text (`dynamo_original_graph_*.txt`, docs/formats/graph-text.md §2): protobuf text of a GraphDef.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace dumpgen {

struct GraphTensorDesc {
  std::string name = "y";
  std::string dtype = "DT_FLOAT16";
  std::vector<int64_t> dims;
  std::string layout = "ND";
  std::optional<std::string> fx_tensor_name;  // `_fx_tensor_name` attr
};

struct GraphOp {
  std::string name, type;
  std::vector<std::string> inputs;  // "{srcOp}:{outIdx}"
  std::vector<GraphTensorDesc> input_desc, output_desc;
  // The op's attr map: key -> the AttrDef body lines, e.g. {"transpose_x1", "b: false"} or
  // {"axes", "list {\n i: -1\n}"}; written sorted by key, as Python's str() does.
  std::vector<std::pair<std::string, std::string>> attrs;
};

std::string graph_text(const std::string& graph_name, const std::vector<GraphOp>& ops);
// Text-format string quoting: C escapes, non-ASCII bytes as 3-digit octal.
std::string pbtxt_quote(const std::string& s);

}  // namespace dumpgen
