// countsketch-rot-v1 (docs/formats/summary.md §4): sign tables, block rotations and a scalar reference update.
#pragma once

#include <cstdint>
#include <vector>

namespace msit {

uint64_t splitmix_mix(uint64_t z);
uint64_t splitmix_nth(uint64_t state, uint64_t n);  // sm(s, n)

// The four 65536-bit sign tables for one seed, as 4 x 1024 words.
struct SketchTables {
  explicit SketchTables(uint64_t seed);
  uint64_t seed;
  std::vector<uint64_t> words;      // table k, word w at words[k * 1024 + w]
  bool sign_bit(uint64_t i) const;  // 1 means -1
};

// Shared, cached per seed (building tables costs ~4K splitmix calls).
const SketchTables& sketch_tables(uint64_t seed);

uint32_t sketch_rotation(uint64_t seed, uint64_t block, uint32_t width);
uint32_t sketch_bucket(uint64_t seed, uint64_t i, uint32_t width);

// Scalar reference: adds x (finite) at logical index i.
void sketch_add_reference(std::vector<double>& buckets, const SketchTables& t, uint64_t i, double x);

}  // namespace msit
