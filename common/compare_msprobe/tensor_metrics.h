// msProbe's real-data metrics of one tensor pair (docs/formats/msprobe-compare.md §5.1),
// streamed: Cosine, EucDist, MaxAbsErr, MaxRelativeErr and the one/five-thousandths ratios,
// with its rules for matching NaN/Inf positions, one-element tensors, empty and mismatched
// shapes. Values arrive as doubles in chunks of any size, both sides in lockstep.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/compare_msprobe/item.h"
#include "common/dtype/dtype.h"

namespace msit {

// The precision msProbe computes relative errors in: float32 when both sides are read as
// float16/float32 (bfloat16 is read as float32), else float64.
bool ms_relative_in_float32(DType npu, DType bench);

class MsTensorMetrics {
 public:
  // Shapes as msProbe sees them after squeezing dimensions of size 1.
  MsTensorMetrics(const std::vector<uint64_t>& npu_shape, const std::vector<uint64_t>& bench_shape, DType npu_dtype,
                  DType bench_dtype);
  // Whether values are needed at all (false: empty or shapes differ; finish() says why).
  bool wants_values() const { return wants_; }
  void add(const double* npu, const double* bench, size_t n);
  // The six cells and msProbe's message for the pair.
  std::array<MsCell, 6> finish(std::string& message) const;

 private:
  bool wants_ = true, scalar_ = false, f32_rel_ = true, empty_ = false, shape_mismatch_ = false;
  bool dtype_mismatch_ = false, nan_inf_mismatch_ = false;
  uint64_t count_ = 0, lt_one_ = 0, lt_five_ = 0;
  double dot_ = 0, nn_ = 0, bb_ = 0, d2_ = 0, max_abs_ = 0, max_rel_ = 0;
  bool max_rel_nan_ = false;
  double first_n_ = 0, first_b_ = 0;
};

// Python's float('{:.12f}'.format(v)): msProbe rounds most metrics to 12 decimals.
double ms_round12(double v);
// Python's round(v, 6).
double ms_round6(double v);

// msProbe's squeeze: the shape without its dimensions of size 1.
std::vector<uint64_t> ms_squeezed(const std::vector<uint64_t>& shape);

}  // namespace msit
