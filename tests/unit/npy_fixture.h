// Small float32 .npy files (v1 header) written in memory by msit_dumpgen_lib, for tests of
// compaction and safety.
#pragma once

#include <string>
#include <vector>

#include "tests/tools/dumpgen/gen_npy.h"

namespace msit::test {

inline std::string npy_bytes(const std::vector<float>& v) {
  return dumpgen::npy_header("<f4", {v.size()}) +
         std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(float));
}

}  // namespace msit::test
