// msProbe's real-data metrics, streamed (docs/formats/msprobe-compare.md §5.1).
#include "common/compare_msprobe/tensor_metrics.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

namespace msit {
namespace {

bool read_as_float32(DType t) { return t == DType::kFloat16 || t == DType::kFloat32 || t == DType::kBFloat16; }

MsCell text(const char* t) { return MsCell::of_text(t); }

// |(n - b) / b| in msProbe's precision, with epsilon added to both where b is zero.
double relative_error(double x, double y, bool f32) {
  if (f32) {
    float fx = static_cast<float>(x), fy = static_cast<float>(y);
    if (fy == 0) {
      fx += std::numeric_limits<float>::epsilon();
      fy += std::numeric_limits<float>::epsilon();
    }
    return std::fabs((fx - fy) / fy);
  }
  if (y == 0) {
    x += std::numeric_limits<double>::epsilon();
    y += std::numeric_limits<double>::epsilon();
  }
  return std::fabs((x - y) / y);
}

}  // namespace

bool ms_relative_in_float32(DType npu, DType bench) { return read_as_float32(npu) && read_as_float32(bench); }

double ms_round12(double v) {
  char buf[400];
  std::snprintf(buf, sizeof buf, "%.12f", v);
  return std::strtod(buf, nullptr);
}

double ms_round6(double v) {
  char buf[400];
  std::snprintf(buf, sizeof buf, "%.6f", v);
  return std::strtod(buf, nullptr);
}

std::vector<uint64_t> ms_squeezed(const std::vector<uint64_t>& shape) {
  std::vector<uint64_t> out;
  for (uint64_t d : shape) {
    if (d != 1) out.push_back(d);
  }
  return out;
}

MsTensorMetrics::MsTensorMetrics(const std::vector<uint64_t>& npu_shape, const std::vector<uint64_t>& bench_shape,
                                 DType npu_dtype, DType bench_dtype) {
  auto n = ms_squeezed(npu_shape), b = ms_squeezed(bench_shape);
  uint64_t elements = 1;
  for (uint64_t d : npu_shape) elements *= d;
  empty_ = elements == 0;
  shape_mismatch_ = !empty_ && n != b;
  scalar_ = n.empty();
  f32_rel_ = ms_relative_in_float32(npu_dtype, bench_dtype);
  // bfloat16 and float32 are both read as float32: only other differences count.
  auto as_read = [](DType t) { return t == DType::kBFloat16 ? DType::kFloat32 : t; };
  dtype_mismatch_ = as_read(npu_dtype) != as_read(bench_dtype);
  wants_ = !empty_ && !shape_mismatch_;
}

void MsTensorMetrics::add(const double* npu, const double* bench, size_t n) {
  const float f_one = 0.001f, f_five = 0.005f;
  for (size_t i = 0; i < n; ++i) {
    double x = npu[i], y = bench[i];
    bool xi = std::isinf(x), yi = std::isinf(y), xn = std::isnan(x), yn = std::isnan(y);
    if (xi != yi || xn != yn) nan_inf_mismatch_ = true;
    // Matching NaN/Inf positions are zeroed on both sides before any metric.
    if (count_ == 0) first_n_ = x, first_b_ = y;  // a 0-d pair is compared as it is
    if (xi || xn) x = 0;
    if (yi || yn) y = 0;
    ++count_;
    dot_ += x * y;
    nn_ += x * x;
    bb_ += y * y;
    double d = x - y;
    d2_ += d * d;
    if (std::fabs(d) > max_abs_) max_abs_ = std::fabs(d);
    double r = relative_error(x, y, f32_rel_);
    if (std::isnan(r)) max_rel_nan_ = true;
    if (r > max_rel_) max_rel_ = r;
    // The thresholds in the relative errors' precision (numpy compares a float32 array with
    // float32(0.001)).
    lt_one_ += f32_rel_ ? r < static_cast<double>(f_one) : r < 0.001;
    lt_five_ += f32_rel_ ? r < static_cast<double>(f_five) : r < 0.005;
  }
}

std::array<MsCell, 6> MsTensorMetrics::finish(std::string& message) const {
  std::array<MsCell, 6> out;
  if (empty_) {
    out.fill(text("unsupported"));
    message = "This is empty data, can not compare.";
    return out;
  }
  if (shape_mismatch_) {
    out.fill(text("shape unmatched"));
    message = "Shape of NPU and bench tensor do not match. Skipped.";
    return out;
  }
  if (scalar_) {
    // A one-element tensor (0-d once squeezed): only the two maxima are computed.
    out.fill(text("unsupported"));
    double d = std::fabs(first_n_ - first_b_);
    double r = relative_error(first_n_, first_b_, f32_rel_);
    out[2] = std::isnan(d) ? text("Nan") : MsCell::of(ms_round12(d));
    out[3] = std::isnan(r) ? text("Nan") : MsCell::of(ms_round12(r));
    message =
        "This is type of 0-d tensor, can not calculate 'Cosine', 'EucDist', 'One Thousandth Err Ratio' and "
        "'Five Thousandths Err Ratio'. ";
    return out;
  }
  if (nan_inf_mismatch_) {
    out.fill(text("N/A"));
    message = "The position of inf or nan in NPU and bench Tensor do not match.";
    return out;
  }
  message.clear();
  const double eps = std::numeric_limits<double>::epsilon();
  double na = std::sqrt(nn_), nb = std::sqrt(bb_);
  if (na <= eps && nb <= eps) {
    out[0] = MsCell::of(1.0);
  } else if (na <= eps) {
    out[0] = text("Nan");
    message += "Cannot compare by Cosine Similarity, All the data is Zero in npu dump data.";
  } else if (nb <= eps) {
    out[0] = text("Nan");
    message += "Cannot compare by Cosine Similarity, All the data is Zero in Bench dump data.";
  } else {
    double cos = dot_ / (na * nb);
    if (std::isnan(cos)) {
      out[0] = text("Nan");
      message += "Cannot compare by Cosine Similarity, the dump data has NaN.";
    } else {
      cos = ms_round12(cos);
      out[0] = MsCell::of(cos > 0.9999 ? ms_round6(cos) : cos);
    }
  }
  out[1] = MsCell::of(std::sqrt(d2_));
  out[2] = MsCell::of(ms_round12(max_abs_));
  out[3] = max_rel_nan_ ? text("Nan") : MsCell::of(ms_round12(max_rel_));
  out[4] = MsCell::of(ms_round12(static_cast<double>(lt_one_) / static_cast<double>(count_)));
  out[5] = MsCell::of(ms_round12(static_cast<double>(lt_five_) / static_cast<double>(count_)));
  if (dtype_mismatch_) message += "Dtype of NPU and bench tensor do not match.";
  return out;
}

}  // namespace msit
