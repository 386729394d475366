// msit::Xxh3 (streaming, the library's run-time dispatched build on x86_64) must give exactly
// the library's one-shot XXH3-64 of the same bytes, whatever the sizes it is fed in: summaries
// written by earlier builds, by other hosts and by the dump generator compare by this hash.
#include <gtest/gtest.h>
#include <xxhash.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "common/io/xxh3.h"

namespace msit {
namespace {

std::vector<unsigned char> random_bytes(size_t n) {
  std::mt19937_64 rng(7);
  std::vector<unsigned char> v(n);
  for (auto& b : v) b = static_cast<unsigned char>(rng());
  return v;
}

uint64_t streamed(const std::vector<unsigned char>& v, size_t n, size_t chunk) {
  Xxh3 h;
  for (size_t off = 0; off < n; off += chunk) h.update(v.data() + off, std::min(chunk, n - off));
  return h.digest();
}

TEST(Xxh3, EmptyInputIsTheReferenceValue) {
  Xxh3 h;
  EXPECT_EQ(h.digest(), 0x2d06800538d394c2ULL);  // XXH3_64bits of no bytes, seed 0
  EXPECT_EQ(h.hex(), "2d06800538d394c2");
}

TEST(Xxh3, StreamingInAnyChunkSizeEqualsTheOneShotHash) {
  const auto bytes = random_bytes((1u << 20) + 13);
  // Lengths across XXH3's internal boundaries: short inputs, 240-byte mid-size, 64-byte
  // stripes, 1,024-byte blocks, the 256-byte internal buffer, and long inputs.
  for (size_t n : {0, 1, 3, 16, 17, 128, 129, 240, 241, 255, 256, 1024, 1025, 4096, 65543, (1 << 20) + 13}) {
    const uint64_t want = XXH3_64bits(bytes.data(), n);
    for (size_t chunk : {1, 7, 64, 255, 256, 1000, 4096, 262144, 1 << 21}) {
      if (chunk == 1 && n > 4096) continue;  // byte by byte over a MiB only costs test time
      EXPECT_EQ(streamed(bytes, n, chunk), want) << n << " bytes in chunks of " << chunk;
    }
  }
}

}  // namespace
}  // namespace msit
