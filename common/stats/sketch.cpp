// countsketch-rot-v1 (docs/formats/summary.md §4): splitmix64 sign tables, block rotations, scalar reference.
#include "common/stats/sketch.h"

#include <map>
#include <memory>
#include <mutex>

namespace msit {
namespace {
constexpr uint64_t kGamma = 0x9e3779b97f4a7c15ull;
constexpr uint64_t kRotationSalt = 0x5bd1e9955bd1e995ull;
constexpr uint64_t kWordsPerTable = 1024;  // 65536 bits
}  // namespace

uint64_t splitmix_mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

uint64_t splitmix_nth(uint64_t state, uint64_t n) { return splitmix_mix(state + (n + 1) * kGamma); }

SketchTables::SketchTables(uint64_t s) : seed(s), words(4 * kWordsPerTable) {
  for (uint64_t w = 0; w < words.size(); ++w) words[w] = splitmix_nth(seed, w);
}

bool SketchTables::sign_bit(uint64_t i) const {
  uint64_t bit = 0;
  for (uint64_t k = 0; k < 4; ++k) {
    const uint64_t b = (i >> (16 * k)) & 0xffff;
    bit ^= words[k * kWordsPerTable + b / 64] >> (b % 64);
  }
  return (bit & 1) != 0;
}

const SketchTables& sketch_tables(uint64_t seed) {
  // Few distinct seeds exist in one process; entries live until exit so references stay valid.
  static std::mutex mu;
  static std::map<uint64_t, std::unique_ptr<SketchTables>> cache;
  std::lock_guard lock(mu);
  auto& slot = cache[seed];
  if (!slot) slot = std::make_unique<SketchTables>(seed);
  return *slot;
}

uint32_t sketch_rotation(uint64_t seed, uint64_t block, uint32_t width) {
  return static_cast<uint32_t>(splitmix_nth(seed ^ kRotationSalt, block) & (width - 1));
}

uint32_t sketch_bucket(uint64_t seed, uint64_t i, uint32_t width) {
  return static_cast<uint32_t>(((i % width) + sketch_rotation(seed, i / width, width)) % width);
}

void sketch_add_reference(std::vector<double>& buckets, const SketchTables& t, uint64_t i, double x) {
  const auto width = static_cast<uint32_t>(buckets.size());
  buckets[sketch_bucket(t.seed, i, width)] += t.sign_bit(i) ? -x : x;
}

}  // namespace msit
