// Writes a GraphDef in protobuf text format the way Python's str(message) prints it.
#include "tests/tools/dumpgen/graph_text.h"

#include <algorithm>
#include <cstdio>

namespace dumpgen {

std::string pbtxt_quote(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"') out += "\\\"";
    else if (c == '\\') out += "\\\\";
    else if (c == '\n') out += "\\n";
    else if (c < 0x20 || c >= 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\%03o", c);
      out += buf;
    } else {
      out.push_back(static_cast<char>(c));
    }
  }
  return out + "\"";
}

namespace {

void desc_text(std::string& o, const char* field, const GraphTensorDesc& d) {
  o += "  " + std::string(field) + " {\n";
  o += "    name: " + pbtxt_quote(d.name) + "\n";
  o += "    dtype: " + d.dtype + "\n";
  o += "    shape {\n";
  for (int64_t x : d.dims) o += "      dim: " + std::to_string(x) + "\n";
  o += "    }\n";
  o += "    layout: " + pbtxt_quote(d.layout) + "\n";
  if (d.fx_tensor_name) {
    o += "    attr {\n      key: \"_fx_tensor_name\"\n      value {\n";
    o += "        s: " + pbtxt_quote(*d.fx_tensor_name) + "\n      }\n    }\n";
  }
  o += "  }\n";
}

}  // namespace

std::string graph_text(const std::string& graph_name, const std::vector<GraphOp>& ops) {
  std::string o = "name: " + pbtxt_quote(graph_name) + "\n";
  for (const auto& op : ops) {
    o += "op {\n";
    o += "  name: " + pbtxt_quote(op.name) + "\n";
    o += "  type: " + pbtxt_quote(op.type) + "\n";
    for (const auto& in : op.inputs) o += "  input: " + pbtxt_quote(in) + "\n";
    auto attrs = op.attrs;
    std::sort(attrs.begin(), attrs.end());
    for (const auto& [key, body] : attrs)
      o += "  attr {\n    key: " + pbtxt_quote(key) + "\n    value {\n      " + body + "\n    }\n  }\n";
    for (const auto& d : op.input_desc) desc_text(o, "input_desc", d);
    for (const auto& d : op.output_desc) desc_text(o, "output_desc", d);
    o += "}\n";
  }
  return o;
}

}  // namespace dumpgen
