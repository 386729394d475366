// Reads a tensor's elements in logical order (row-major over original_shape, padding
// excluded), in bounded chunks. Device formats are mapped here; ND is a straight copy.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "common/base/result.h"
#include "common/formats/tensor_desc.h"
#include "common/io/byte_source.h"

namespace msit {

struct LayoutPlan {
  bool logical_order_known = true;      // false: elements come in stored order, padding included
  uint64_t element_count = 0;           // elements the reader will deliver
  uint64_t stored_count = 0;            // elements in the stored block
  std::vector<uint64_t> logical_shape;  // shape of what is delivered
  std::string note;                     // why the order is unknown, for inspect/compare
};

// Decides how a tensor will be read; fails when the payload is smaller than its shape needs.
Result<LayoutPlan> plan_layout(const TensorDesc& t, const std::string& path);

// Pull reader: compare reads two of these in lockstep; compact drains one into a reducer.
class LogicalReader {
 public:
  static Result<std::unique_ptr<LogicalReader>> open(SourcePtr src, const TensorDesc& t, const LayoutPlan& plan);
  // Plain-file convenience: fd must outlive the reader.
  static Result<std::unique_ptr<LogicalReader>> open(int fd, const std::string& path, const TensorDesc& t,
                                                     const LayoutPlan& plan);
  virtual ~LogicalReader() = default;
  // Copies up to max_elements host-endian elements into out (element size = dtype bytes).
  // Returns the number delivered; 0 once every element was delivered.
  virtual Result<size_t> read(std::byte* out, size_t max_elements) = 0;
  // True when read_elements_at() is offered: stored order is logical order, no byte swap, no
  // raw observer, and the source takes positional reads from several threads at once. Compare
  // then reads the units of one large tensor on each thread without serialising the copies
  // (docs/layout.md §3).
  virtual bool positional() const { return false; }
  // Copies elements [first, first + n) into out, on any thread; only when positional(). Does
  // not move the stream that read() walks.
  virtual Status read_elements_at(uint64_t first, std::byte* out, size_t n);
  // Called with every stored payload byte exactly once, in stored order (for XXH3), as
  // the reader consumes them. Must be set before the first read().
  void set_raw_observer(std::function<void(std::span<const std::byte>)> fn) { raw_observer_ = std::move(fn); }

 protected:
  std::function<void(std::span<const std::byte>)> raw_observer_;
};

}  // namespace msit
