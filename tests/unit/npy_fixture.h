// Small float32 .npy files (v1 header) written in memory, for tests of compaction and safety.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace msit::test {

inline std::string npy_bytes(const std::vector<float>& v) {
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + std::to_string(v.size()) + ",), }";
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  uint16_t len = static_cast<uint16_t>(header.size());
  out.append(reinterpret_cast<const char*>(&len), 2);
  out += header;
  out.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(float));
  return out;
}

}  // namespace msit::test
