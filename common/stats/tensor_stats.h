// Streaming statistics of one tensor: every field of a summary's tensor entry but the hash.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "common/dtype/decode.h"
#include "common/dtype/dtype.h"

namespace msit {

inline constexpr uint32_t kDefaultSketchWidth = 128;
inline constexpr uint64_t kDefaultSketchSeed = 0x6d7369742d636d70ull;

struct StatsOptions {
  uint32_t sketch_width = kDefaultSketchWidth;  // power of two
  uint64_t sketch_seed = kDefaultSketchSeed;
  HiFloat8Reading hifloat8_reading = HiFloat8Reading::kMsprobe;  // UNVERIFIED, see decode.h
};

struct Sketch {
  uint32_t width = 0;
  uint64_t seed = 0;
  std::vector<double> values;
};

struct TensorStats {
  uint64_t count = 0;  // logical elements seen
  uint64_t finite_count = 0;
  uint64_t nan_count = 0, posinf_count = 0, neginf_count = 0, zero_count = 0;
  std::optional<double> min, max, mean, std, abs_max;  // over finite elements
  // Exact extremes for 64-bit integer types, where double would round.
  std::optional<int64_t> min_i64, max_i64;
  std::optional<uint64_t> min_u64, max_u64;
  double sum = 0;
  double l2norm = 0;
  std::optional<std::vector<double>> values;  // count <= width: every element (non-finite kept)
  std::optional<Sketch> sketch;               // count > width and logical order known
};

// Consumes a tensor's logical elements in row-major order, in contiguous batches of raw
// element bytes (host little-endian), and produces TensorStats. Memory use is O(width).
class TensorReducer {
 public:
  // with_sketch=false when the logical order is unknown (padding included).
  // Returns nullptr when !reducer_supports(dtype).
  static std::unique_ptr<TensorReducer> create(DType dtype, uint64_t expected_count, const StatsOptions& opts,
                                               bool with_sketch = true);
  // The scalar reference implementation (same contract, one element at a time), for tests
  // and benchmarks.
  static std::unique_ptr<TensorReducer> create_reference(DType dtype, uint64_t expected_count, const StatsOptions& opts,
                                                         bool with_sketch = true);
  virtual ~TensorReducer() = default;
  // `bytes` holds a whole number of elements; they continue the logical index sequence.
  virtual void update(const std::byte* bytes, size_t n_elements) = 0;
  virtual TensorStats finish() = 0;
};

// True when TensorReducer supports this dtype (dtype_info(t).has_stats).
bool reducer_supports(DType t);

}  // namespace msit
