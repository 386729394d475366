// npy v1.0 header text exactly as numpy formats it: sorted keys, tuple shape, space padding.
#include "tests/tools/dumpgen/gen_npy.h"

namespace dumpgen {

std::string npy_header_raw(const std::string& descr, const std::string& shape_text, bool fortran_order) {
  std::string dict = "{'descr': '" + descr + "', 'fortran_order': " + (fortran_order ? "True" : "False") +
                     ", 'shape': " + shape_text + ", }";
  size_t total = 10 + dict.size() + 1;
  size_t padded = (total + 63) / 64 * 64;
  dict.append(padded - total, ' ');
  dict.push_back('\n');
  std::string h = "\x93NUMPY";
  h.push_back('\x01');
  h.push_back('\x00');
  h.push_back(static_cast<char>(dict.size() & 0xff));
  h.push_back(static_cast<char>(dict.size() >> 8));
  return h + dict;
}

std::string npy_header(const std::string& descr, const std::vector<uint64_t>& shape, bool fortran_order) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  if (shape.size() == 1) s += ",";
  s += ")";
  return npy_header_raw(descr, s, fortran_order);
}

}  // namespace dumpgen
