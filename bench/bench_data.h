// Shared by the benchmark kernels: turning synthetic float activations into stored dtypes.
#pragma once

#include <cstdint>
#include <cstring>

namespace msit::bench {

// float -> IEEE half by truncation (rounding is irrelevant for throughput and ratio figures).
inline uint16_t to_half(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  const uint32_t sign = (b >> 16) & 0x8000u;
  const int exp = static_cast<int>((b >> 23) & 0xff) - 127 + 15;
  if (exp <= 0) return static_cast<uint16_t>(sign);
  if (exp >= 31) return static_cast<uint16_t>(sign | 0x7c00u);
  return static_cast<uint16_t>(sign | (exp << 10) | ((b >> 13) & 0x3ffu));
}

}  // namespace msit::bench
