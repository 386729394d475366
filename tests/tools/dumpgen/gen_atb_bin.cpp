// Byte layout of ATB tensor .bin files as msit-dumpgen writes them.
#include "tests/tools/dumpgen/gen_atb_bin.h"

#include <stdexcept>
#include <utility>

namespace dumpgen {

int acl_dtype_of(const DTypeSpec& dt) {
  static const std::pair<std::string_view, int> kAcl[] = {
      {"float32", 0}, {"float16", 1}, {"int8", 2},    {"int32", 3},    {"uint8", 4}, {"int16", 6},    {"uint16", 7},
      {"uint32", 8},  {"int64", 9},   {"uint64", 10}, {"float64", 11}, {"bool", 12}, {"bfloat16", 27}};
  for (auto [n, v] : kAcl) {
    if (n == dt.name) return v;
  }
  throw std::runtime_error("no aclDataType for " + std::string(dt.name));
}

std::string atb_bin_header(int acl_dtype, int format, const std::vector<uint64_t>& dims, uint64_t data_bytes) {
  std::string d;
  for (size_t i = 0; i < dims.size(); ++i) d += (i ? "," : "") + std::to_string(dims[i]);
  return "$Version=1.0\n$Object.Count=1\n$Object.Length=" + std::to_string(data_bytes) +
         "\nformat=" + std::to_string(format) + "\ndtype=" + std::to_string(acl_dtype) + "\ndims=" + d +
         "\n$Object.data=0," + std::to_string(data_bytes) + "\n$End=1\n";
}

}  // namespace dumpgen
