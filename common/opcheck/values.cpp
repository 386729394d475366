// Reading a dumped tensor as float64 for opcheck: decode, positional reads, restart and skip.
#include "common/opcheck/values.h"

#include <algorithm>

#include "common/dtype/decode.h"

namespace msit::opcheck {
namespace {
constexpr size_t kChunk = size_t{1} << 16;  // elements per read: 512 KiB of doubles
}

Result<std::unique_ptr<TensorValues>> TensorValues::open(const OpTensor& t) {
  if (!decodable_as_double(t.desc.dtype) || dtype_info(t.desc.dtype).kind == DTypeKind::kComplex) {
    return make_error(t.path, Stage::kPayload,
                      std::string(role_name(t.desc.role)) + " " + std::to_string(t.desc.index) + " has dtype " +
                          std::string(dtype_name(t.desc.dtype)) + ", which has no float64 reading");
  }
  MSIT_ASSIGN_OR_RETURN(LayoutPlan plan, plan_layout(t.desc, t.path));
  if (!plan.logical_order_known) {
    return make_error(t.path, Stage::kLayout, "the logical order of this tensor is unknown: " + plan.note);
  }
  std::unique_ptr<TensorValues> v(new TensorValues(t, std::move(plan)));
  MSIT_TRY(v->restart());
  return v;
}

Status TensorValues::restart() {
  MSIT_ASSIGN_OR_RETURN(reader_, LogicalReader::open(t_.src, t_.desc, plan_));
  pos_ = 0;
  return ok_status();
}

void TensorValues::decode(const std::byte* raw, std::span<double> out) const {
  const size_t width = dtype_info(t_.desc.dtype).bits / 8;
  for (size_t i = 0; i < out.size(); ++i) out[i] = decode_element(t_.desc.dtype, raw + i * width);
}

Status TensorValues::read(std::span<double> out) {
  const size_t width = dtype_info(t_.desc.dtype).bits / 8;
  size_t done = 0;
  while (done < out.size()) {
    const size_t want = std::min(kChunk, out.size() - done);
    raw_.resize(want * width);
    MSIT_ASSIGN_OR_RETURN(size_t got, reader_->read(raw_.data(), want));
    if (got == 0)
      return make_error(t_.path, Stage::kPayload,
                        "the tensor ended before " + std::to_string(pos_ + out.size() - done) + " elements");
    decode(raw_.data(), out.subspan(done, got));
    done += got;
    pos_ += got;
  }
  return ok_status();
}

Status TensorValues::skip(uint64_t n) {
  std::vector<double> scratch(std::min<uint64_t>(n, kChunk));
  while (n > 0) {
    const size_t step = static_cast<size_t>(std::min<uint64_t>(n, scratch.size()));
    MSIT_TRY(read(std::span<double>(scratch.data(), step)));
    n -= step;
  }
  return ok_status();
}

Status TensorValues::read_range(uint64_t first, std::span<double> out) {
  if (first > count() || out.size() > count() - first) {
    return make_error(t_.path, Stage::kPayload, "elements past the end of the tensor requested");
  }
  if (reader_->positional()) {
    const size_t width = dtype_info(t_.desc.dtype).bits / 8;
    for (size_t done = 0; done < out.size();) {
      const size_t step = std::min(kChunk, out.size() - done);
      raw_.resize(step * width);
      MSIT_TRY(reader_->read_elements_at(first + done, raw_.data(), step));
      decode(raw_.data(), out.subspan(done, step));
      done += step;
    }
    return ok_status();
  }
  if (first < pos_) MSIT_TRY(restart());
  MSIT_TRY(skip(first - pos_));
  return read(out);
}

Result<std::vector<double>> TensorValues::read_all() {
  std::vector<double> all(count());
  MSIT_TRY(read_range(0, all));
  return all;
}

}  // namespace msit::opcheck
