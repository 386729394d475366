// ReduceSum and ReduceMean recomputed in float64: the input streamed once, the sums (and the
// sums of magnitudes the bound needs) held per output element (docs/opcheck.md "Ops").
#include <algorithm>
#include <cmath>

#include "common/opcheck/bounds.h"
#include "common/opcheck/kernels.h"
#include "common/opcheck/values.h"

namespace msit::opcheck::detail {

Result<Skip> run_reduce(const Kernel& k) {
  const OpCall& c = k.call;
  if (c.inputs.empty()) return skip(SkipReason::kMissingInput, "the reduction has no input in the dump");
  MSIT_ASSIGN_OR_RETURN(auto in, TensorValues::open(c.inputs[0]));
  OutputSink& out = *k.sinks[0];
  const auto dims = in->shape();
  if (c.params.axes.empty()) {
    return skip(SkipReason::kMissingAttribute, "empty axes: reduce-all or no-op depends on the framework; not guessed");
  }
  std::vector<bool> reduced(dims.size(), false);
  for (int64_t a : c.params.axes) {
    size_t ax = 0;
    if (!normalize_axis(a, dims.size(), ax))
      return skip(SkipReason::kShapeMismatch, "axis " + std::to_string(a) + " out of range for " + dims_text(dims));
    reduced[ax] = true;
  }
  std::vector<uint64_t> kept;  // output dims without the kept 1s (same element count either way)
  uint64_t k_terms = 1;
  for (size_t d = 0; d < dims.size(); ++d) {
    if (reduced[d]) k_terms *= dims[d];
    else kept.push_back(dims[d]);
  }
  const uint64_t n_out = numel(kept);
  if (out.count() != n_out)
    return skip(SkipReason::kShapeMismatch, "output has " + std::to_string(out.count()) + " elements, reducing " +
                                                dims_text(dims) + " gives " + std::to_string(n_out));
  if (2 * n_out > k.budget_elements())
    return skip(SkipReason::kOverBudget, "the reduction's output exceeds the memory budget");
  // Output strides over the input's dims (0 on reduced dims).
  std::vector<uint64_t> ostride(dims.size(), 0);
  for (uint64_t s = 1, d = dims.size(); d-- > 0;) {
    if (!reduced[d]) ostride[d] = s, s *= dims[d];
  }
  std::vector<double> sum(n_out, 0), mag(n_out, 0), chunk(size_t{1} << 15);
  std::vector<uint64_t> idx(dims.size(), 0);
  uint64_t off = 0;
  for (uint64_t done = 0; done < in->count();) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(chunk.size(), in->count() - done));
    MSIT_TRY(in->read(std::span<double>(chunk.data(), n)));
    for (size_t i = 0; i < n; ++i) {
      sum[off] += chunk[i];
      mag[off] += std::fabs(chunk[i]);
      for (size_t d = dims.size(); d-- > 0;) {
        off += ostride[d];
        if (++idx[d] < dims[d]) break;
        off -= ostride[d] * dims[d];
        idx[d] = 0;
      }
    }
    done += n;
  }
  const bool mean = c.kind == OpKind::kReduceMean;
  const double kd = static_cast<double>(k_terms);
  const double gam = gamma_k(k_terms + (mean ? 1 : 0), compute_unit(out.dtype()));
  for (uint64_t i = 0; i < n_out; ++i) {
    if (mean) sum[i] /= kd, mag[i] /= kd;
    mag[i] = with_rounding(sum[i], gam * mag[i], out.dtype());
  }
  MSIT_TRY(out.feed(sum, mag));
  return ran();
}

}  // namespace msit::opcheck::detail
