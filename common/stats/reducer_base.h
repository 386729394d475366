// What the reference and the SIMD reducers share: the first `width` values, exact integer
// extremes, and turning mergeable moments into a TensorStats.
#pragma once

#include <cstring>
#include <vector>

#include "common/stats/sketch.h"
#include "common/stats/stats_internal.h"
#include "common/stats/tensor_stats.h"

namespace msit::stats_detail {

class ReducerBase : public TensorReducer {
 protected:
  ReducerBase(DType dtype, const StatsOptions& opts, bool with_sketch);

  // Bookkeeping every implementation does on each batch before reducing it.
  void note_batch(const std::byte* bytes, size_t n);
  // l2norm is passed in because the two implementations derive it differently.
  TensorStats assemble(const Moments& m, double l2norm, const std::vector<double>* buckets);

  bool sketch_on() const { return tables_ != nullptr; }
  double decode(const std::byte* p) const { return decode_element(dtype_, p, opts_.hifloat8_reading); }

  DType dtype_;
  size_t elem_bytes_;
  StatsOptions opts_;
  const SketchTables* tables_ = nullptr;  // null: no sketch (not wanted, or width unusable)
  uint64_t count_ = 0;                    // elements received

 private:
  template <typename T>
  void track_ints(const std::byte* bytes, size_t n);

  std::vector<double> values_;
  DTypeKind kind_;
  int64_t min_i64_ = INT64_MAX, max_i64_ = INT64_MIN;
  uint64_t min_u64_ = UINT64_MAX, max_u64_ = 0;
};

bool valid_sketch_width(uint32_t w);

}  // namespace msit::stats_detail
