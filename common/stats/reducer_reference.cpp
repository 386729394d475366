// The scalar reference reducer: one element at a time, Welford for the variance, moments in
// long double (80-bit on x86_64, 128-bit on aarch64) so that it is a better oracle than any
// double implementation it is tested against. Deliberately simple and slow.
#include <cmath>
#include <memory>

#include "common/stats/reducer_base.h"

namespace msit::stats_detail {
namespace {

class ReferenceReducer final : public ReducerBase {
 public:
  ReferenceReducer(DType dtype, const StatsOptions& opts, bool with_sketch) : ReducerBase(dtype, opts, with_sketch) {
    if (sketch_on()) buckets_.assign(opts.sketch_width, 0.0);
  }

  void update(const std::byte* bytes, size_t n) override {
    const uint64_t first = count_;
    note_batch(bytes, n);
    for (size_t k = 0; k < n; ++k) add(first + k, decode(bytes + k * elem_bytes_));
  }

  TensorStats finish() override {
    m_.sum = static_cast<double>(sum_);
    m_.mean = static_cast<double>(mean_);
    m_.m2 = static_cast<double>(m2_);
    return assemble(m_, static_cast<double>(std::sqrt(sum_sq_)), sketch_on() ? &buckets_ : nullptr);
  }

 private:
  void add(uint64_t i, double x) {
    if (std::isnan(x)) {
      ++m_.nan;
      return;
    }
    if (std::isinf(x)) {
      ++(x > 0 ? m_.posinf : m_.neginf);
      return;
    }
    if (x == 0) ++m_.zero;
    ++m_.n;
    const long double xl = x;
    sum_ += xl;
    sum_sq_ += xl * xl;
    const long double delta = xl - mean_;
    mean_ += delta / static_cast<long double>(m_.n);
    m2_ += delta * (xl - mean_);
    if (x < m_.min) m_.min = x;
    if (x > m_.max) m_.max = x;
    if (sketch_on()) sketch_add_reference(buckets_, *tables_, i, x);
  }

  Moments m_;  // counts and extremes; the moments below are copied in at finish()
  long double sum_ = 0, sum_sq_ = 0, mean_ = 0, m2_ = 0;
  std::vector<double> buckets_;
};

}  // namespace

std::unique_ptr<TensorReducer> make_reference_reducer(DType dtype, const StatsOptions& opts, bool with_sketch) {
  return std::make_unique<ReferenceReducer>(dtype, opts, with_sketch);
}

}  // namespace msit::stats_detail
