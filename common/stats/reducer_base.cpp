// Shared reducer bookkeeping: first values, exact integer extremes, final TensorStats.
#include "common/stats/reducer_base.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

namespace msit::stats_detail {

bool valid_sketch_width(uint32_t w) { return w != 0 && (w & (w - 1)) == 0; }

ReducerBase::ReducerBase(DType dtype, const StatsOptions& opts, bool with_sketch)
    : dtype_(dtype), elem_bytes_(dtype_info(dtype).bits / 8), opts_(opts), kind_(dtype_info(dtype).kind) {
  if (with_sketch && valid_sketch_width(opts.sketch_width)) tables_ = &sketch_tables(opts.sketch_seed);
}

template <typename T>
void ReducerBase::track_ints(const std::byte* bytes, size_t n) {
  T lo = std::numeric_limits<T>::max(), hi = std::numeric_limits<T>::min();
  for (size_t k = 0; k < n; ++k) {
    T v;
    std::memcpy(&v, bytes + k * sizeof(T), sizeof(T));
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  if (n == 0) return;
  if constexpr (std::is_signed_v<T>) {
    min_i64_ = std::min<int64_t>(min_i64_, lo);
    max_i64_ = std::max<int64_t>(max_i64_, hi);
  } else {
    min_u64_ = std::min<uint64_t>(min_u64_, lo);
    max_u64_ = std::max<uint64_t>(max_u64_, hi);
  }
}

void ReducerBase::note_batch(const std::byte* bytes, size_t n) {
  const uint64_t width = opts_.sketch_width;
  for (size_t k = 0; k < n && count_ + k < width; ++k) { values_.push_back(decode(bytes + k * elem_bytes_)); }
  switch (dtype_) {
    case DType::kInt8: track_ints<int8_t>(bytes, n); break;
    case DType::kUInt8: track_ints<uint8_t>(bytes, n); break;
    case DType::kInt16: track_ints<int16_t>(bytes, n); break;
    case DType::kUInt16: track_ints<uint16_t>(bytes, n); break;
    case DType::kInt32: track_ints<int32_t>(bytes, n); break;
    case DType::kUInt32: track_ints<uint32_t>(bytes, n); break;
    case DType::kInt64: track_ints<int64_t>(bytes, n); break;
    case DType::kUInt64: track_ints<uint64_t>(bytes, n); break;
    default: break;
  }
  count_ += n;
}

TensorStats ReducerBase::assemble(const Moments& m, double l2norm, const std::vector<double>* buckets) {
  TensorStats s;
  s.count = count_;
  s.finite_count = m.n;
  s.nan_count = m.nan;
  s.posinf_count = m.posinf;
  s.neginf_count = m.neginf;
  s.zero_count = m.zero;
  s.sum = m.sum;
  s.l2norm = l2norm;
  if (m.n > 0) {
    // +0.0 folds -0.0 into +0.0: which zero a SIMD min/max keeps depends on lane order.
    s.min = m.min + 0.0;
    s.max = m.max + 0.0;
    s.abs_max = std::max(std::fabs(m.min), std::fabs(m.max));
    s.mean = m.sum / static_cast<double>(m.n);
    s.std = std::sqrt(std::max(0.0, m.m2) / static_cast<double>(m.n));
  }
  if (count_ > 0 && kind_ == DTypeKind::kSigned) {
    s.min_i64 = min_i64_;
    s.max_i64 = max_i64_;
  } else if (count_ > 0 && kind_ == DTypeKind::kUnsigned) {
    s.min_u64 = min_u64_;
    s.max_u64 = max_u64_;
  }
  if (count_ <= opts_.sketch_width) {
    s.values = std::move(values_);
  } else if (buckets != nullptr) {
    s.sketch = Sketch{opts_.sketch_width, opts_.sketch_seed, *buckets};
  }
  return s;
}

}  // namespace msit::stats_detail
