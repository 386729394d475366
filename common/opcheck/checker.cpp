// One output's comparison with its recomputation: NaN/Inf rules, error, ulps, bound ratio.
#include "common/opcheck/checker.h"

#include <cmath>

#include "common/opcheck/bounds.h"

namespace msit::opcheck {

OutputChecker::OutputChecker(uint32_t index, DType dtype, std::vector<uint64_t> shape) {
  c_.index = index;
  c_.dtype = dtype;
  c_.shape = std::move(shape);
}

void OutputChecker::add(uint64_t index, double ref, double bound, double got) {
  ++c_.count;
  double ratio = 0;
  bool special = false;
  if (std::isnan(ref) || std::isnan(got)) {
    special = std::isnan(ref) != std::isnan(got);
  } else if (std::isinf(ref) || std::isinf(got)) {
    // An infinite recomputation must be dumped as the same infinity; a dumped infinity is right
    // when the recomputation, moved by its bound, reaches the dtype's overflow threshold.
    const bool same_sign = std::signbit(ref) == std::signbit(got);
    if (std::isinf(ref)) special = !(std::isinf(got) && same_sign);
    else special = !(same_sign && std::fabs(ref) + bound >= overflow_threshold(c_.dtype));
  } else {
    const double err = std::fabs(got - ref);
    const double ulps = err / ulp_of(ref, c_.dtype);
    ratio = bound > 0 ? err / bound : (err > 0 ? HUGE_VAL : 0);
    if (err > bound) ++c_.beyond_bound;
    if (err > c_.max_abs) c_.max_abs = err;
    if (ulps > c_.max_ulps) c_.max_ulps = ulps;
    dot_ += ref * got;
    ref2_ += ref * ref;
    got2_ += got * got;
    diff2_ += (got - ref) * (got - ref);
    sum_ulps_ += ulps;
    ++finite_;
  }
  if (special) {
    ++c_.beyond_bound;
    ++c_.special_mismatch;
    ratio = HUGE_VAL;
  }
  if (ratio > c_.max_bound_ratio || c_.count == 1) {
    c_.max_bound_ratio = ratio;
    c_.worst_index = index;
    c_.worst_recomputed = ref;
    c_.worst_dumped = got;
    c_.worst_bound = bound;
  }
}

OutputCheck OutputChecker::result() const {
  OutputCheck c = c_;
  if (ref2_ > 0 && got2_ > 0) c.cosine = dot_ / std::sqrt(ref2_ * got2_);
  else c.cosine = (ref2_ == 0 && got2_ == 0) ? 1 : 0;
  c.red = ref2_ > 0 ? std::sqrt(diff2_ / ref2_) : (diff2_ > 0 ? HUGE_VAL : 0);
  c.mean_ulps = finite_ ? sum_ulps_ / static_cast<double>(finite_) : 0;
  return c;
}

Result<std::unique_ptr<OutputSink>> OutputSink::open(const OpTensor& out, uint32_t index) {
  MSIT_ASSIGN_OR_RETURN(auto v, TensorValues::open(out));
  return std::unique_ptr<OutputSink>(new OutputSink(std::move(v), index));
}

Status OutputSink::feed(std::span<const double> ref, std::span<const double> bound) {
  MSIT_TRY(feed_at(next_, ref, bound));
  return ok_status();
}

Status OutputSink::feed_at(uint64_t first, std::span<const double> ref, std::span<const double> bound) {
  got_.resize(ref.size());
  MSIT_TRY(values_->read_range(first, got_));
  for (size_t i = 0; i < ref.size(); ++i) checker_.add(first + i, ref[i], bound[i], got_[i]);
  next_ = first + ref.size();
  return ok_status();
}

}  // namespace msit::opcheck
