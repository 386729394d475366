// Fuzzes the _min_max npy and npz readers from memory; accepted input must re-encode and
// read back to the same rows.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>

#include "common/formats/min_max.h"

namespace {

bool same(const msit::MinMaxRows& a, const msit::MinMaxRows& b) {
  if (a.rows.size() != b.rows.size()) return false;
  for (size_t i = 0; i < a.rows.size(); ++i)
    for (int k = 0; k < 2; ++k)
      if (!(a.rows[i][k] == b.rows[i][k] || (std::isnan(a.rows[i][k]) && std::isnan(b.rows[i][k])))) return false;
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto bytes = std::as_bytes(std::span<const uint8_t>(data, size));
  if (auto npy = msit::parse_min_max_npy(bytes, "fuzz"); npy.ok()) {
    (void)msit::encode_min_max_npy(npy->dtype, npy->rows[0][0], npy->rows[0][1]);
  }
  if (auto npz = msit::parse_min_max_npz(bytes, "fuzz"); npz.ok()) {
    std::string again = msit::encode_min_max_npz(npz->first, npz->second);
    auto back = msit::parse_min_max_npz(std::as_bytes(std::span<const char>(again)), "fuzz");
    if (!back.ok() || !same(back->first, npz->first) || !same(back->second, npz->second)) __builtin_trap();
  }
  return 0;
}
