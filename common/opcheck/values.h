// A dumped tensor's elements as float64 in logical order (device formats mapped by
// common/layout, fp16/bf16/fp8 widened exactly by common/dtype), read in bounded chunks.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "common/base/result.h"
#include "common/layout/logical_stream.h"
#include "common/opcheck/op_call.h"

namespace msit::opcheck {

class TensorValues {
 public:
  // Fails when the dtype has no float64 reading or the layout's logical order is unknown.
  static Result<std::unique_ptr<TensorValues>> open(const OpTensor& t);

  uint64_t count() const { return plan_.element_count; }
  const std::vector<uint64_t>& shape() const { return plan_.logical_shape; }
  DType dtype() const { return t_.kernel_dtype.value_or(t_.desc.dtype); }  // what bounds are of
  const std::string& path() const { return t_.path; }

  // Next out.size() elements of the logical stream (fails past the end).
  Status read(std::span<double> out);
  // Elements [first, first + out.size()): positional when the layout allows it, else the stream
  // is restarted (when first lies behind it) and skipped forward.
  Status read_range(uint64_t first, std::span<double> out);
  // The whole tensor (callers check count() against their memory budget first).
  Result<std::vector<double>> read_all();

 private:
  TensorValues(OpTensor t, LayoutPlan plan) : t_(std::move(t)), plan_(std::move(plan)) {}
  Status restart();
  Status skip(uint64_t n);
  void decode(const std::byte* raw, std::span<double> out) const;

  OpTensor t_;
  LayoutPlan plan_;
  std::unique_ptr<LogicalReader> reader_;
  uint64_t pos_ = 0;  // elements the stream has delivered
  std::vector<std::byte> raw_;
};

}  // namespace msit::opcheck
