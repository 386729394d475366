// Byte shuffling (the Blosc idea): byte j of every element goes to plane j, so the slowly
// varying sign/exponent bytes of floats sit together and zstd finds the redundancy.
#pragma once

#include <cstddef>

namespace msit::archive {

// out[j * n + i] = in[i * elem + j] for the n = len / elem whole elements; the len % elem
// tail bytes are copied unchanged. elem 1 (or any elem >= len) is a plain copy.
void shuffle_bytes(const std::byte* in, std::byte* out, size_t len, size_t elem);
// Exact inverse of shuffle_bytes for the same len and elem.
void unshuffle_bytes(const std::byte* in, std::byte* out, size_t len, size_t elem);

// Name of the SIMD target chosen at run time (benchmarks print it).
const char* shuffle_target_name();

}  // namespace msit::archive
