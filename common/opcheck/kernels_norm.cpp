// Softmax, RmsNorm and LayerNorm recomputed row by row in float64 (one row of the normalised
// dims at a time), with the bounds of docs/opcheck.md "Bounds".
#include <cmath>

#include "common/opcheck/bounds.h"
#include "common/opcheck/kernels.h"
#include "common/opcheck/values.h"

namespace msit::opcheck::detail {
namespace {

// One softmax lane of length L: values x (stride 1), results and bounds.
void softmax_lane(const double* x, size_t len, double u, DType out, double* ref, double* bound) {
  // IEEE semantics as torch and numpy have them: a NaN, or an infinite maximum, makes the lane NaN.
  double m = -HUGE_VAL;
  for (size_t i = 0; i < len; ++i) m = std::isnan(x[i]) || std::isnan(m) ? std::nan("") : std::fmax(m, x[i]);
  double den = 0, err = 0;  // err: the denominator's error terms, sum of e^d (|d| + 4)
  for (size_t i = 0; i < len; ++i) {
    const double d = x[i] - m;
    const double e = std::exp(d);
    den += e;
    if (e > 0 && std::isfinite(d)) err += e * (std::fabs(d) + 4);
  }
  const double rel = den > 0 && std::isfinite(den) ? err / den : 0;
  for (size_t i = 0; i < len; ++i) {
    const double d = x[i] - m;
    ref[i] = std::exp(d) / den;
    const double dd = std::isfinite(d) ? std::fabs(d) : 0;
    const double acc = 2 * u * std::fabs(ref[i]) * (static_cast<double>(len) + rel + dd + 8);
    bound[i] = with_rounding(ref[i], acc, out);
  }
}

}  // namespace

Result<Skip> run_softmax(const Kernel& k) {
  const OpCall& c = k.call;
  if (c.inputs.empty()) return skip(SkipReason::kMissingInput, "softmax has no input in the dump");
  if (c.params.axes.size() != 1)
    return skip(SkipReason::kShapeMismatch,
                "softmax over " + std::to_string(c.params.axes.size()) + " axes (one is recomputed)");
  MSIT_ASSIGN_OR_RETURN(auto in, TensorValues::open(c.inputs[0]));
  OutputSink& out = *k.sinks[0];
  const auto dims = in->shape();
  size_t ax = 0;
  if (!normalize_axis(c.params.axes[0], dims.size(), ax))
    return skip(SkipReason::kShapeMismatch, "softmax axis out of range for " + dims_text(dims));
  if (in->count() != out.count()) return skip(SkipReason::kShapeMismatch, "input and output differ in size");
  const uint64_t len = dims[ax];
  uint64_t inner = 1;
  for (size_t d = ax + 1; d < dims.size(); ++d) inner *= dims[d];
  const double u = compute_unit(out.dtype());
  if (len == 0) return ran();
  if (inner == 1) {  // lanes are rows: stream them
    if (3 * len > k.budget_elements()) return skip(SkipReason::kOverBudget, "a softmax row exceeds the memory budget");
    std::vector<double> x(len), ref(len), bound(len);
    for (uint64_t r = 0; r < in->count() / len; ++r) {
      MSIT_TRY(in->read(x));
      softmax_lane(x.data(), len, u, out.dtype(), ref.data(), bound.data());
      MSIT_TRY(out.feed(ref, bound));
    }
    return ran();
  }
  if (3 * in->count() > k.budget_elements())
    return skip(SkipReason::kOverBudget,
                "a softmax over a non-last axis holds the tensor whole; it exceeds the memory budget");
  MSIT_ASSIGN_OR_RETURN(std::vector<double> all, in->read_all());
  std::vector<double> ref(all.size()), bound(all.size()), lx(len), lr(len), lb(len);
  for (uint64_t o = 0; o < in->count() / (len * inner); ++o) {
    for (uint64_t i = 0; i < inner; ++i) {
      const uint64_t base = o * len * inner + i;
      for (uint64_t j = 0; j < len; ++j) lx[j] = all[base + j * inner];
      softmax_lane(lx.data(), len, u, out.dtype(), lr.data(), lb.data());
      for (uint64_t j = 0; j < len; ++j) ref[base + j * inner] = lr[j], bound[base + j * inner] = lb[j];
    }
  }
  MSIT_TRY(out.feed(ref, bound));
  return ran();
}

namespace {

// y = x / sqrt(mean(x^2) + eps) * gamma, one row.
void rms_row(const std::vector<double>& x, const std::vector<double>& g, double eps, double u, DType out,
             std::vector<double>& ref, std::vector<double>& bound) {
  const auto len = static_cast<double>(x.size());
  double ss = 0;
  for (double v : x) ss += v * v;
  const double r = 1 / std::sqrt(ss / len + eps);
  for (size_t i = 0; i < x.size(); ++i) {
    ref[i] = x[i] * r * g[i];
    bound[i] = with_rounding(ref[i], u * std::fabs(ref[i]) * (len + 20), out);
  }
}

// y = (x - mean) / sqrt(var + eps) * gamma + beta, one row (biased variance).
void layer_row(const std::vector<double>& x, const std::vector<double>& g, const std::vector<double>& b, double eps,
               double u, DType out, std::vector<double>& ref, std::vector<double>& bound) {
  const auto len = static_cast<double>(x.size());
  double sum = 0, sum_abs = 0;
  for (double v : x) sum += v, sum_abs += std::fabs(v);
  const double mean = sum / len;
  double var = 0;
  for (double v : x) var += (v - mean) * (v - mean);
  var /= len;
  const double r = 1 / std::sqrt(var + eps);
  const double mean_err = gamma_k(x.size() + 1, u) * sum_abs / len;
  for (size_t i = 0; i < x.size(); ++i) {
    const double gi = g.empty() ? 1 : g[i], bi = b.empty() ? 0 : b[i];
    const double centred = (x[i] - mean) * r * gi;
    ref[i] = centred + bi;
    const double acc = 2 * (std::fabs(r * gi) * (u * std::fabs(x[i] - mean) + mean_err) +
                            std::fabs(centred) * (len / 2 + 7) * u + u * std::fabs(ref[i]));
    bound[i] = with_rounding(ref[i], acc, out);
  }
}

}  // namespace

Result<Skip> run_norm(const Kernel& k) {
  const OpCall& c = k.call;
  const bool layer = c.kind == OpKind::kLayerNorm;
  if (c.inputs.size() < (layer ? 1u : 2u))
    return skip(SkipReason::kMissingInput, layer ? "layer_norm has no input" : "rms_norm needs x and gamma");
  MSIT_ASSIGN_OR_RETURN(auto in, TensorValues::open(c.inputs[0]));
  OutputSink& out = *k.sinks[0];
  const auto dims = in->shape();
  std::vector<double> g, b;
  uint64_t len = 0;
  if (layer) {
    size_t ax = 0;
    if (!normalize_axis(c.params.begin_norm_axis, dims.size(), ax))
      return skip(SkipReason::kShapeMismatch, "begin_norm_axis out of range for " + dims_text(dims));
    len = 1;
    for (size_t d = ax; d < dims.size(); ++d) len *= dims[d];
  }
  for (size_t i = 1; i < c.inputs.size() && i < 3; ++i) {
    MSIT_ASSIGN_OR_RETURN(Skip s, load_whole(k, c.inputs[i], i == 1 ? g : b));
    if (s.reason != SkipReason::kNone) return s;
  }
  if (!layer) len = g.size();
  if (len == 0 || (!g.empty() && g.size() != len) || (!b.empty() && b.size() != len) || in->count() % len != 0)
    return skip(SkipReason::kShapeMismatch, "the normalised size does not fit x " + dims_text(dims));
  if (in->count() != out.count()) return skip(SkipReason::kShapeMismatch, "input and output differ in size");
  if (3 * len > k.budget_elements()) return skip(SkipReason::kOverBudget, "a normalised row exceeds the memory budget");
  const double u = compute_unit(out.dtype());
  std::vector<double> x(len), ref(len), bound(len);
  for (uint64_t r = 0; r < in->count() / len; ++r) {
    MSIT_TRY(in->read(x));
    if (layer) layer_row(x, g, b, c.params.epsilon, u, out.dtype(), ref, bound);
    else rms_row(x, g, c.params.epsilon, u, out.dtype(), ref, bound);
    MSIT_TRY(out.feed(ref, bound));
  }
  return ran();
}

}  // namespace msit::opcheck::detail
