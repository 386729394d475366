// FNV-1a, 64 bits: a cheap, stable hash of bytes for keys that are not secret and not kept by
// a hash table an attacker fills (divergence ids in the events file, the live comparer's
// signatures and write-time cache). Stable across builds and platforms, unlike std::hash: the
// events file keeps its values.
#pragma once

#include <cstdint>
#include <string_view>

namespace msit {

inline constexpr uint64_t kFnv1aBasis = 0xcbf29ce484222325ull;

// The hash of `s`, continuing from `h` (the basis for a fresh hash; a previous result to hash
// several pieces as one).
constexpr uint64_t fnv1a(std::string_view s, uint64_t h = kFnv1aBasis) {
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

}  // namespace msit
