// Compares one output's dumped elements with their recomputation and bound, streaming: the
// metrics (cosine, RED, max abs, ulps) and the count of elements beyond a correct kernel.
#pragma once

#include <cstdint>
#include <memory>
#include <span>

#include "common/base/result.h"
#include "common/opcheck/op_call.h"
#include "common/opcheck/values.h"

namespace msit::opcheck {

class OutputChecker {
 public:
  OutputChecker(uint32_t index, DType dtype, std::vector<uint64_t> shape);
  // One element: its logical index, the float64 recomputation, its bound, the dumped value.
  void add(uint64_t index, double ref, double bound, double got);
  OutputCheck result() const;

 private:
  OutputCheck c_;
  double dot_ = 0, ref2_ = 0, got2_ = 0, diff2_ = 0, sum_ulps_ = 0;
  uint64_t finite_ = 0;
};

// An output being checked: its dumped values (read as the kernel produces its recomputation)
// and its checker.
class OutputSink {
 public:
  static Result<std::unique_ptr<OutputSink>> open(const OpTensor& out, uint32_t index);
  // The next ref.size() elements in logical order.
  Status feed(std::span<const double> ref, std::span<const double> bound);
  // Elements [first, first + ref.size()).
  Status feed_at(uint64_t first, std::span<const double> ref, std::span<const double> bound);
  // Elements at the given logical indexes (a block of a matmul's output).
  void add(uint64_t index, double ref, double bound, double got) { checker_.add(index, ref, bound, got); }
  TensorValues& values() { return *values_; }
  DType dtype() const { return values_->dtype(); }
  uint64_t count() const { return values_->count(); }
  OutputCheck result() const { return checker_.result(); }

 private:
  OutputSink(std::unique_ptr<TensorValues> v, uint32_t index)
      : values_(std::move(v)), checker_(index, values_->dtype(), values_->shape()) {}
  std::unique_ptr<TensorValues> values_;
  OutputChecker checker_;
  uint64_t next_ = 0;
  std::vector<double> got_;
};

}  // namespace msit::opcheck
