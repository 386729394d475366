// Tensor values for the generator: realistic value classes, device packing, and the expected
// statistics computed independently with plain double (long double) loops.
#pragma once

#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "tests/tools/dumpgen/gen_dtype.h"

namespace dumpgen {

class Rng {
 public:
  explicit Rng(uint64_t seed) : s_(seed) {}
  uint64_t next();
  double uniform();  // [0, 1)
  uint64_t below(uint64_t n) { return n ? next() % n : 0; }
  bool chance(double p) { return uniform() < p; }
  double normal();
  template <class T>
  const T& pick(const std::vector<T>& v) {
    return v[below(v.size())];
  }

 private:
  uint64_t s_;
};

enum class Values : uint8_t {
  kNormal,     // N(0, 1) activations
  kLargeMean,  // mean 1000, std 0.01: catches naive variance formulas
  kNonFinite,  // normal with NaN / +Inf / -Inf sprinkled in
  kAllZero,    // every element 0 (some -0.0)
  kWide,       // wide range incl. the dtype's extremes
  kConstant,   // all elements equal (std exactly 0)
};

struct TensorPlan {
  const DTypeSpec* dtype = nullptr;
  std::vector<uint64_t> original_shape;
  int format = 2;  // GE format number; ND for npy
  Values values = Values::kNormal;
  uint64_t surplus = 0;      // extra payload bytes after the elements (GE alignment)
  bool nan_padding = false;  // padding garbage: NaN instead of 1e4
};

struct GenTensor {
  std::string role;  // "input" | "output"
  int index = 0;
  std::optional<int> sub_index;
  const DTypeSpec* dtype = nullptr;
  int format = 2;
  std::vector<uint64_t> shape, original_shape;
  bool wire_original_shape = true;  // GE: original_shape field present in the header
  std::vector<double> logical;      // decoded stored values, logical row-major order
  std::vector<uint8_t> payload;     // stored bytes (device layout, padding, surplus)
};

std::vector<double> generate_values(Rng& rng, const DTypeSpec& dt, Values cls, uint64_t n);
// Quantises `values` to `plan.dtype`, packs them into the device layout and fills padding.
GenTensor build_tensor(Rng& rng, const TensorPlan& plan, const std::vector<double>& values);

struct Expected {
  uint64_t count = 0, nan = 0, posinf = 0, neginf = 0, zero = 0, finite = 0;
  double min = 0, max = 0, mean = 0, std = 0, l2norm = 0, abs_max = 0;
};
Expected expected_stats(const std::vector<double>& v);

// countsketch-rot-v1 of docs/formats/summary.md §4, written from the spec text.
std::vector<double> sketch_of(const std::vector<double>& v, uint32_t width, uint64_t seed);
inline constexpr uint32_t kSketchWidth = 128;
inline constexpr uint64_t kSketchSeed = 0x6d7369742d636d70ull;

// Manifest entry of one tensor (role, index, dtype, shapes, format, count, stats, hash, values).
nlohmann::json tensor_manifest(const GenTensor& t);
std::string xxh3_hex(const void* data, size_t n);
nlohmann::json value_json(double v);  // number, or "nan"/"inf"/"-inf"

}  // namespace dumpgen
