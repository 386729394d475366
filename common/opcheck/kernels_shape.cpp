// Moves recomputed exactly: Transpose (input held whole), ConcatV2 and SplitV (streamed along
// the outer dims), GatherV2 (rows fetched by index). A move's bound is 0: any difference fails.
#include <algorithm>
#include <cmath>

#include "common/opcheck/kernels.h"
#include "common/opcheck/values.h"

namespace msit::opcheck::detail {
namespace {

Status feed_exact(OutputSink& out, std::span<const double> v) {
  std::vector<double> zero(v.size(), 0.0);
  return out.feed(v, zero);
}

}  // namespace

Result<Skip> run_transpose(const Kernel& k) {
  const OpCall& c = k.call;
  if (c.inputs.empty()) return skip(SkipReason::kMissingInput, "transpose has no input in the dump");
  MSIT_ASSIGN_OR_RETURN(auto in, TensorValues::open(c.inputs[0]));
  const auto dims = in->shape();
  const auto& perm = c.params.perm;
  if (perm.size() != dims.size())
    return skip(SkipReason::kShapeMismatch,
                "perm has " + std::to_string(perm.size()) + " entries for " + dims_text(dims));
  std::vector<size_t> p(perm.size());
  std::vector<bool> seen(perm.size(), false);
  for (size_t i = 0; i < perm.size(); ++i) {
    if (!normalize_axis(perm[i], dims.size(), p[i]) || seen[p[i]])
      return skip(SkipReason::kShapeMismatch, "perm is not a permutation");
    seen[p[i]] = true;
  }
  OutputSink& out = *k.sinks[0];
  if (out.count() != in->count()) return skip(SkipReason::kShapeMismatch, "input and output differ in size");
  std::vector<double> all;
  MSIT_ASSIGN_OR_RETURN(Skip s, load_whole(k, c.inputs[0], all));
  if (s.reason != SkipReason::kNone) return s;
  const auto st = strides_of(dims);
  std::vector<uint64_t> odims(dims.size()), ostr(dims.size());  // output dim d walks input dim p[d]
  for (size_t d = 0; d < dims.size(); ++d) odims[d] = dims[p[d]], ostr[d] = st[p[d]];
  std::vector<double> buf;
  buf.reserve(size_t{1} << 15);
  std::vector<uint64_t> idx(dims.size(), 0);
  uint64_t off = 0;
  for (uint64_t i = 0; i < all.size(); ++i) {
    buf.push_back(all[off]);
    if (buf.size() == buf.capacity() || i + 1 == all.size()) {
      MSIT_TRY(feed_exact(out, buf));
      buf.clear();
    }
    for (size_t d = odims.size(); d-- > 0;) {
      off += ostr[d];
      if (++idx[d] < odims[d]) break;
      off -= ostr[d] * odims[d];
      idx[d] = 0;
    }
  }
  return ran();
}

Result<Skip> run_concat(const Kernel& k) {
  const OpCall& c = k.call;
  if (c.inputs.empty()) return skip(SkipReason::kMissingInput, "concat has no data input in the dump");
  std::vector<std::unique_ptr<TensorValues>> ins;
  for (const auto& t : c.inputs) {
    MSIT_ASSIGN_OR_RETURN(auto v, TensorValues::open(t));
    ins.push_back(std::move(v));
  }
  const auto d0 = ins[0]->shape();
  size_t ax = 0;
  if (!normalize_axis(c.params.axis, d0.size(), ax))
    return skip(SkipReason::kShapeMismatch, "concat axis out of range for " + dims_text(d0));
  uint64_t outer = 1, total = 0;
  for (size_t d = 0; d < ax; ++d) outer *= d0[d];
  std::vector<uint64_t> piece;  // elements of input i per outer index
  for (const auto& v : ins) {
    if (v->shape().size() != d0.size()) return skip(SkipReason::kShapeMismatch, "concat inputs differ in rank");
    piece.push_back(outer ? v->count() / outer : 0);
    total += v->count();
  }
  OutputSink& out = *k.sinks[0];
  if (out.count() != total)
    return skip(SkipReason::kShapeMismatch,
                "output has " + std::to_string(out.count()) + " elements, the inputs " + std::to_string(total));
  std::vector<double> buf;
  for (uint64_t o = 0; o < outer; ++o) {
    for (size_t i = 0; i < ins.size(); ++i) {
      for (uint64_t done = 0; done < piece[i];) {
        const uint64_t n = std::min<uint64_t>(piece[i] - done, uint64_t{1} << 15);
        buf.resize(n);
        MSIT_TRY(ins[i]->read(buf));
        MSIT_TRY(feed_exact(out, buf));
        done += n;
      }
    }
  }
  return ran();
}

Result<Skip> run_split(const Kernel& k) {
  const OpCall& c = k.call;
  if (c.inputs.empty()) return skip(SkipReason::kMissingInput, "split has no input in the dump");
  MSIT_ASSIGN_OR_RETURN(auto in, TensorValues::open(c.inputs[0]));
  const auto dims = in->shape();
  size_t ax = 0;
  if (!normalize_axis(c.params.axis, dims.size(), ax))
    return skip(SkipReason::kShapeMismatch, "split axis out of range for " + dims_text(dims));
  uint64_t outer = 1, inner = 1;
  for (size_t d = 0; d < ax; ++d) outer *= dims[d];
  for (size_t d = ax + 1; d < dims.size(); ++d) inner *= dims[d];
  std::vector<uint64_t> sizes(c.params.split_sizes.begin(), c.params.split_sizes.end());
  uint64_t known = 0;
  int unknown = -1;
  for (size_t i = 0; i < c.params.split_sizes.size(); ++i) {
    if (c.params.split_sizes[i] < 0) unknown = static_cast<int>(i);  // one -1: the rest of the axis
    else known += sizes[i];
  }
  if (unknown >= 0) sizes[static_cast<size_t>(unknown)] = dims[ax] - std::min(known, dims[ax]);
  uint64_t sum = 0;
  for (uint64_t s : sizes) sum += s;
  if (sizes.size() != k.sinks.size() || sum != dims[ax])
    return skip(SkipReason::kShapeMismatch, "size_splits do not cover axis " + std::to_string(ax) + " of " +
                                                dims_text(dims) + " with " + std::to_string(k.sinks.size()) +
                                                " outputs");
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (k.sinks[i]->count() != outer * sizes[i] * inner)
      return skip(SkipReason::kShapeMismatch, "output " + std::to_string(i) + " has the wrong size");
  }
  std::vector<double> buf;
  for (uint64_t o = 0; o < outer; ++o) {
    for (size_t i = 0; i < sizes.size(); ++i) {
      for (uint64_t done = 0, piece = sizes[i] * inner; done < piece;) {
        const uint64_t n = std::min<uint64_t>(piece - done, uint64_t{1} << 15);
        buf.resize(n);
        MSIT_TRY(in->read(buf));
        MSIT_TRY(feed_exact(*k.sinks[i], buf));
        done += n;
      }
    }
  }
  return ran();
}

Result<Skip> run_gather(const Kernel& k) {
  const OpCall& c = k.call;
  if (c.inputs.size() < 2) return skip(SkipReason::kMissingInput, "gather needs params and indices");
  MSIT_ASSIGN_OR_RETURN(auto x, TensorValues::open(c.inputs[0]));
  const auto dims = x->shape();
  size_t ax = 0;
  if (!normalize_axis(c.params.axis, dims.size(), ax))
    return skip(SkipReason::kShapeMismatch, "gather axis out of range for " + dims_text(dims));
  std::vector<double> idx;
  MSIT_ASSIGN_OR_RETURN(Skip s, load_whole(k, c.inputs[1], idx));
  if (s.reason != SkipReason::kNone) return s;
  uint64_t outer = 1, inner = 1;
  for (size_t d = 0; d < ax; ++d) outer *= dims[d];
  for (size_t d = ax + 1; d < dims.size(); ++d) inner *= dims[d];
  OutputSink& out = *k.sinks[0];
  if (out.count() != outer * idx.size() * inner)
    return skip(SkipReason::kShapeMismatch, "output size does not match params " + dims_text(dims) + " and " +
                                                std::to_string(idx.size()) + " indices");
  if (inner > k.budget_elements() / 2)
    return skip(SkipReason::kOverBudget, "one gathered slice exceeds the memory budget");
  std::vector<double> row(inner), nan_row(inner, std::nan(""));
  for (uint64_t o = 0; o < outer; ++o) {
    for (double fi : idx) {
      // An index outside [-dim, dim) has no defined value: recomputed as NaN, so the dumped
      // value (whatever the kernel wrote) shows as a mismatch.
      const double lim = static_cast<double>(dims[ax]);
      if (!(fi >= -lim && fi < lim)) {
        MSIT_TRY(feed_exact(out, nan_row));
        continue;
      }
      const auto i = static_cast<uint64_t>(fi < 0 ? fi + lim : fi);
      MSIT_TRY(x->read_range((o * dims[ax] + i) * inner, row));
      MSIT_TRY(feed_exact(out, row));
    }
  }
  return ran();
}

}  // namespace msit::opcheck::detail
