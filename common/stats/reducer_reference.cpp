// The scalar reference reducer: one element at a time, in double, Welford for the variance.
// Deliberately simple: it is the oracle the SIMD reducer is tested against.
#include <cmath>
#include <memory>

#include "common/stats/reducer_base.h"

namespace msit::stats_detail {
namespace {

class ReferenceReducer final : public ReducerBase {
 public:
  ReferenceReducer(DType dtype, const StatsOptions& opts, bool with_sketch)
      : ReducerBase(dtype, opts, with_sketch) {
    if (sketch_on()) buckets_.assign(opts.sketch_width, 0.0);
  }

  void update(const std::byte* bytes, size_t n) override {
    const uint64_t first = count_;
    note_batch(bytes, n);
    for (size_t k = 0; k < n; ++k) add(first + k, decode(bytes + k * elem_bytes_));
  }

  TensorStats finish() override {
    return assemble(m_, std::sqrt(sum_sq_), sketch_on() ? &buckets_ : nullptr);
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
    m_.sum += x;
    sum_sq_ += x * x;
    const double delta = x - m_.mean;
    m_.mean += delta / static_cast<double>(m_.n);
    m_.m2 += delta * (x - m_.mean);
    if (x < m_.min) m_.min = x;
    if (x > m_.max) m_.max = x;
    if (sketch_on()) sketch_add_reference(buckets_, *tables_, i, x);
  }

  Moments m_;
  double sum_sq_ = 0;
  std::vector<double> buckets_;
};

}  // namespace

std::unique_ptr<TensorReducer> make_reference_reducer(DType dtype, const StatsOptions& opts,
                                                      bool with_sketch) {
  return std::make_unique<ReferenceReducer>(dtype, opts, with_sketch);
}

}  // namespace msit::stats_detail
