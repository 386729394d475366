// Elementwise recomputation (docs/opcheck.md "Ops"): activations and math functions, Muls/Adds,
// Cast and reshape-like moves streamed; Add/Sub/Mul/Div with numpy broadcasting.
#include <cmath>
#include <numbers>

#include "common/opcheck/bounds.h"
#include "common/opcheck/kernels.h"
#include "common/opcheck/values.h"

namespace msit::opcheck::detail {
namespace {

constexpr size_t kChunk = size_t{1} << 15;

double sigmoid(double x) { return 1 / (1 + std::exp(-x)); }

double unary_value(OpKind kind, const OpParams& p, double x) {
  switch (kind) {
    case OpKind::kGeluTanh: {
      const double c = std::sqrt(2 / std::numbers::pi);
      return 0.5 * x * (1 + std::tanh(c * (x + 0.044715 * x * x * x)));
    }
    case OpKind::kGeluErf: return 0.5 * x * (1 + std::erf(x / std::numbers::sqrt2));
    case OpKind::kSilu: return x * sigmoid(p.scale * x);
    case OpKind::kRelu: return std::isnan(x) ? x : (x > 0 ? x : 0.0);
    case OpKind::kSigmoid: return sigmoid(x);
    case OpKind::kTanh: return std::tanh(x);
    case OpKind::kExp: {
      const double a = p.scale * x + p.shift;
      return p.base == -1 ? std::exp(a) : std::pow(p.base, a);
    }
    case OpKind::kLog: {
      const double a = p.scale * x + p.shift;
      return p.base == -1 ? std::log(a) : std::log(a) / std::log(p.base);
    }
    case OpKind::kSqrt: return std::sqrt(x);
    case OpKind::kRsqrt: return 1 / std::sqrt(x);
    case OpKind::kMuls: return x * p.scalar;
    case OpKind::kAdds: return x + p.scalar;
    default: return x;  // Cast and moves: the value itself
  }
}

// |x f'(x)|, the condition term of a math function (how much an argument error of relative
// size u moves the result), by a central difference in float64.
double condition_term(OpKind kind, const OpParams& p, double x) {
  const double h = std::ldexp(std::fmax(std::fabs(x), 1.0), -20);
  const double d = (unary_value(kind, p, x + h) - unary_value(kind, p, x - h)) / (2 * h);
  const double t = std::fabs(x * d);
  return std::isfinite(t) ? t : 0.0;
}

// Bound of one element of a unary op (docs/opcheck.md "Bounds").
double unary_bound(OpKind kind, const OpParams& p, double x, double ref, DType in, DType out) {
  const double u = compute_unit(out);
  switch (op_row(kind).op_class) {
    case OpClass::kMove: return 0;
    case OpClass::kElementwise: {
      double acc = 2 * u * std::fabs(ref);
      // The scalar of Muls/Adds may be rounded to the input dtype before use.
      const double ds = std::fabs(p.scalar - round_to(p.scalar, in));
      if (kind == OpKind::kMuls) acc += std::fabs(x) * ds;
      if (kind == OpKind::kAdds) acc += ds;
      return with_rounding(ref, acc, out);
    }
    case OpClass::kTranscendental: {
      double acc = 8 * u * (std::fabs(ref) + condition_term(kind, p, x));
      if (kind == OpKind::kGeluTanh || kind == OpKind::kGeluErf) acc += 8 * u * std::fabs(x);  // 1 + tanh cancels
      return with_rounding(ref, acc, out);
    }
    case OpClass::kAccumulation: break;
  }
  return 0;
}

}  // namespace

Result<Skip> run_unary(const Kernel& k) {
  const OpCall& c = k.call;
  if (c.inputs.empty()) return skip(SkipReason::kMissingInput, "the op has no input in the dump");
  MSIT_ASSIGN_OR_RETURN(auto in, TensorValues::open(c.inputs[0]));
  OutputSink& out = *k.sinks[0];
  if (in->count() != out.count()) {
    return skip(SkipReason::kShapeMismatch,
                "input 0 has " + std::to_string(in->count()) + " elements, output 0 " + std::to_string(out.count()));
  }
  const OpClass cls = op_row(c.kind).op_class;
  if (c.kind != OpKind::kCast && cls == OpClass::kMove && in->dtype() != out.dtype()) {
    return skip(SkipReason::kShapeMismatch, "a reshape-like op that changes the dtype (" +
                                                std::string(dtype_name(in->dtype())) + " -> " +
                                                std::string(dtype_name(out.dtype())) + ")");
  }
  std::vector<double> x(kChunk), ref(kChunk), bound(kChunk);
  for (uint64_t done = 0; done < in->count();) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(kChunk, in->count() - done));
    MSIT_TRY(in->read(std::span<double>(x.data(), n)));
    for (size_t i = 0; i < n; ++i) {
      if (c.kind == OpKind::kCast) {
        ref[i] = round_to(x[i], out.dtype());  // a cast is exact: the nearest value of the new dtype
        bound[i] = 0;
      } else {
        ref[i] = unary_value(c.kind, c.params, x[i]);
        bound[i] = unary_bound(c.kind, c.params, x[i], ref[i], in->dtype(), out.dtype());
      }
    }
    MSIT_TRY(out.feed(std::span<const double>(ref.data(), n), std::span<const double>(bound.data(), n)));
    done += n;
  }
  return ran();
}

namespace {

// One operand of a broadcasting op: streamed when its shape is the output's, else held whole
// and indexed through strides that are 0 on broadcast dims.
struct Operand {
  std::unique_ptr<TensorValues> stream;
  std::vector<double> whole;
  std::vector<uint64_t> strides;  // over the output's dims
};

Result<Skip> open_operand(const Kernel& k, const OpTensor& t, const std::vector<uint64_t>& out_dims, Operand& o) {
  MSIT_ASSIGN_OR_RETURN(o.stream, TensorValues::open(t));
  const auto& in = o.stream->shape();
  if (in.size() > out_dims.size()) return skip(SkipReason::kShapeMismatch, "an input has more dims than the output");
  const size_t lead = out_dims.size() - in.size();
  std::vector<uint64_t> padded(lead, 1);
  padded.insert(padded.end(), in.begin(), in.end());
  if (padded == out_dims) return ran();
  const auto st = strides_of(padded);
  o.strides.assign(out_dims.size(), 0);
  for (size_t d = 0; d < out_dims.size(); ++d) {
    if (padded[d] == out_dims[d]) o.strides[d] = st[d];
    else if (padded[d] != 1)
      return skip(SkipReason::kShapeMismatch,
                  "input shape " + dims_text(in) + " does not broadcast to the output's " + dims_text(out_dims));
  }
  MSIT_ASSIGN_OR_RETURN(Skip s, load_whole(k, t, o.whole));
  o.stream.reset();
  return s;
}

// Values of elements [first, first + n) of the broadcast operand.
Status operand_values(Operand& o, const std::vector<uint64_t>& out_dims, uint64_t first, std::span<double> v) {
  if (o.stream) return o.stream->read(v);
  std::vector<uint64_t> idx(out_dims.size());
  uint64_t rest = first;
  for (size_t d = out_dims.size(); d-- > 0;) {
    idx[d] = rest % out_dims[d];
    rest /= out_dims[d];
  }
  uint64_t off = 0;
  for (size_t d = 0; d < idx.size(); ++d) off += idx[d] * o.strides[d];
  for (double& x : v) {
    x = o.whole[off];
    for (size_t d = idx.size(); d-- > 0;) {  // odometer over the output's dims
      off += o.strides[d];
      if (++idx[d] < out_dims[d]) break;
      off -= o.strides[d] * out_dims[d];
      idx[d] = 0;
    }
  }
  return ok_status();
}

double binary_value(OpKind kind, double a, double b) {
  switch (kind) {
    case OpKind::kAdd: return a + b;
    case OpKind::kSub: return a - b;
    case OpKind::kMul: return a * b;
    default: return a / b;
  }
}

}  // namespace

Result<Skip> run_binary(const Kernel& k) {
  const OpCall& c = k.call;
  if (c.inputs.size() < 2)
    return skip(SkipReason::kMissingInput, "the op needs two inputs, the dump has " + std::to_string(c.inputs.size()));
  OutputSink& out = *k.sinks[0];
  const auto out_dims = out.values().shape();
  if (out_dims.empty() && out.count() != 1) return skip(SkipReason::kShapeMismatch, "output without a shape");
  Operand a, b;
  MSIT_ASSIGN_OR_RETURN(Skip sa, open_operand(k, c.inputs[0], out_dims, a));
  if (sa.reason != SkipReason::kNone) return sa;
  MSIT_ASSIGN_OR_RETURN(Skip sb, open_operand(k, c.inputs[1], out_dims, b));
  if (sb.reason != SkipReason::kNone) return sb;
  const double u = compute_unit(out.dtype());
  std::vector<double> va(kChunk), vb(kChunk), ref(kChunk), bound(kChunk);
  for (uint64_t done = 0; done < out.count();) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(kChunk, out.count() - done));
    MSIT_TRY(operand_values(a, out_dims, done, std::span<double>(va.data(), n)));
    MSIT_TRY(operand_values(b, out_dims, done, std::span<double>(vb.data(), n)));
    for (size_t i = 0; i < n; ++i) {
      ref[i] = binary_value(c.kind, va[i], vb[i]);
      bound[i] = with_rounding(ref[i], 2 * u * std::fabs(ref[i]), out.dtype());
    }
    MSIT_TRY(out.feed(std::span<const double>(ref.data(), n), std::span<const double>(bound.data(), n)));
    done += n;
  }
  return ran();
}

}  // namespace msit::opcheck::detail
