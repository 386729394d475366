// The torch APIs of an msProbe dump as opcheck's ops (docs/opcheck.md "msProbe dumps"): each
// API's signature (positional index and keyword of every argument it reads), its keyword
// arguments from dump.json, and torch's own default for an argument the call did not pass.
#include <array>
#include <cmath>

#include "common/opcheck/msprobe_args.h"

namespace msit::opcheck::detail {
namespace {

enum class Rule : uint8_t {
  kLinear,
  kMatmul,
  kBinary,
  kUnary,
  kGelu,
  kGeluPassed,  // MindSpore ops.gelu: approximate must be in dump.json (its default is the version's)
  kSoftmax,
  kSoftmaxAxis,  // MindSpore ops.softmax(input, axis=-1, *, dtype=None)
  kLayerNorm,
  kRmsNorm,
  kNpuRmsNorm,  // also MindSpore ops.rms_norm(x, gamma, epsilon=1e-6)
  kEmbedding,
  kCat,
  kCatAxis,         // MindSpore ops.cat / ops.concat(tensors, axis=0)
  kPrimitiveAttrs,  // a MindSpore primitive whose attributes (set at construction) are not dumped
};

struct ApiRow {
  std::string_view name;  // the entry name's op: Functional.linear.0.forward -> linear
  Rule rule;
  OpKind kind;
};

// clang-format off
constexpr std::array<ApiRow, 32> kApis = {{
  {"linear", Rule::kLinear, OpKind::kLinear},
  {"matmul", Rule::kMatmul, OpKind::kBatchMatMul}, {"bmm", Rule::kMatmul, OpKind::kBatchMatMul},
  {"mm", Rule::kMatmul, OpKind::kBatchMatMul}, {"__matmul__", Rule::kMatmul, OpKind::kBatchMatMul},
  {"add", Rule::kBinary, OpKind::kAdd}, {"__add__", Rule::kBinary, OpKind::kAdd},
  {"sub", Rule::kBinary, OpKind::kSub}, {"__sub__", Rule::kBinary, OpKind::kSub},
  {"mul", Rule::kBinary, OpKind::kMul}, {"__mul__", Rule::kBinary, OpKind::kMul},
  {"div", Rule::kBinary, OpKind::kDiv}, {"__truediv__", Rule::kBinary, OpKind::kDiv},
  {"true_divide", Rule::kBinary, OpKind::kDiv},
  {"silu", Rule::kUnary, OpKind::kSilu}, {"relu", Rule::kUnary, OpKind::kRelu},
  {"sigmoid", Rule::kUnary, OpKind::kSigmoid}, {"tanh", Rule::kUnary, OpKind::kTanh},
  {"exp", Rule::kUnary, OpKind::kExp}, {"log", Rule::kUnary, OpKind::kLog},
  {"sqrt", Rule::kUnary, OpKind::kSqrt}, {"rsqrt", Rule::kUnary, OpKind::kRsqrt},
  {"gelu", Rule::kGelu, OpKind::kGeluErf},
  {"softmax", Rule::kSoftmax, OpKind::kSoftmax},
  {"layer_norm", Rule::kLayerNorm, OpKind::kLayerNorm},
  {"rms_norm", Rule::kRmsNorm, OpKind::kRmsNorm}, {"npu_rms_norm", Rule::kNpuRmsNorm, OpKind::kRmsNorm},
  {"embedding", Rule::kEmbedding, OpKind::kGather},
  {"cat", Rule::kCat, OpKind::kConcat}, {"concat", Rule::kCat, OpKind::kConcat},
  {"concatenate", Rule::kCat, OpKind::kConcat},
  {"npu_silu", Rule::kUnary, OpKind::kSilu},
}};
// clang-format on

// MindSpore (docs/opcheck.md "msProbe dumps", MindSpore): the APIs whose semantics are the
// ones recomputed, by the entry's prefix. mindspore.mint mirrors torch's signatures (Mint,
// MintFunctional: torch's rows but the norms and NPU ops); mindspore.ops (Functional) names some
// arguments differently (axis), and a Primitive's attributes are set at its construction, so
// only primitives without attributes are recomputed.
// clang-format off
constexpr std::array<ApiRow, 22> kMsFunctional = {{
  {"matmul", Rule::kMatmul, OpKind::kBatchMatMul}, {"bmm", Rule::kMatmul, OpKind::kBatchMatMul},
  {"add", Rule::kBinary, OpKind::kAdd}, {"sub", Rule::kBinary, OpKind::kSub},
  {"mul", Rule::kBinary, OpKind::kMul}, {"div", Rule::kBinary, OpKind::kDiv},
  {"silu", Rule::kUnary, OpKind::kSilu}, {"relu", Rule::kUnary, OpKind::kRelu},
  {"sigmoid", Rule::kUnary, OpKind::kSigmoid}, {"tanh", Rule::kUnary, OpKind::kTanh},
  {"exp", Rule::kUnary, OpKind::kExp}, {"log", Rule::kUnary, OpKind::kLog},
  {"sqrt", Rule::kUnary, OpKind::kSqrt}, {"rsqrt", Rule::kUnary, OpKind::kRsqrt},
  {"dense", Rule::kLinear, OpKind::kLinear},
  {"softmax", Rule::kSoftmaxAxis, OpKind::kSoftmax},
  {"cat", Rule::kCatAxis, OpKind::kConcat}, {"concat", Rule::kCatAxis, OpKind::kConcat},
  {"rms_norm", Rule::kNpuRmsNorm, OpKind::kRmsNorm},
  {"layer_norm", Rule::kLayerNorm, OpKind::kLayerNorm},
  {"gelu", Rule::kGeluPassed, OpKind::kGeluErf},
  {"embedding", Rule::kEmbedding, OpKind::kGather},
}};
// MindSpore Tensor methods: the operators and the methods without arguments of their own.
constexpr std::array<ApiRow, 15> kMsTensor = {{
  {"__add__", Rule::kBinary, OpKind::kAdd}, {"__sub__", Rule::kBinary, OpKind::kSub},
  {"__mul__", Rule::kBinary, OpKind::kMul}, {"__truediv__", Rule::kBinary, OpKind::kDiv},
  {"__matmul__", Rule::kMatmul, OpKind::kBatchMatMul}, {"matmul", Rule::kMatmul, OpKind::kBatchMatMul},
  {"add", Rule::kBinary, OpKind::kAdd}, {"sub", Rule::kBinary, OpKind::kSub},
  {"mul", Rule::kBinary, OpKind::kMul}, {"div", Rule::kBinary, OpKind::kDiv},
  {"exp", Rule::kUnary, OpKind::kExp}, {"log", Rule::kUnary, OpKind::kLog},
  {"sqrt", Rule::kUnary, OpKind::kSqrt}, {"sigmoid", Rule::kUnary, OpKind::kSigmoid},
  {"tanh", Rule::kUnary, OpKind::kTanh},
}};
// Primitives, by class (the last part of `Primitive.{name}.{Class}`): inputs are positional.
constexpr std::array<ApiRow, 21> kMsPrimitive = {{
  {"Add", Rule::kBinary, OpKind::kAdd}, {"Sub", Rule::kBinary, OpKind::kSub},
  {"Mul", Rule::kBinary, OpKind::kMul}, {"RealDiv", Rule::kBinary, OpKind::kDiv},
  {"Div", Rule::kBinary, OpKind::kDiv},
  {"ReLU", Rule::kUnary, OpKind::kRelu}, {"Sigmoid", Rule::kUnary, OpKind::kSigmoid},
  {"Tanh", Rule::kUnary, OpKind::kTanh}, {"Exp", Rule::kUnary, OpKind::kExp},
  {"Log", Rule::kUnary, OpKind::kLog}, {"Sqrt", Rule::kUnary, OpKind::kSqrt},
  {"Rsqrt", Rule::kUnary, OpKind::kRsqrt}, {"SiLU", Rule::kUnary, OpKind::kSilu},
  {"MatMul", Rule::kPrimitiveAttrs, OpKind::kBatchMatMul},
  {"BatchMatMul", Rule::kPrimitiveAttrs, OpKind::kBatchMatMul},
  {"Softmax", Rule::kPrimitiveAttrs, OpKind::kSoftmax},
  {"RmsNorm", Rule::kPrimitiveAttrs, OpKind::kRmsNorm},
  {"LayerNorm", Rule::kPrimitiveAttrs, OpKind::kLayerNorm},
  {"GeLU", Rule::kPrimitiveAttrs, OpKind::kGeluTanh},
  {"Concat", Rule::kPrimitiveAttrs, OpKind::kConcat},
  {"Dense", Rule::kPrimitiveAttrs, OpKind::kLinear},
}};
// clang-format on

template <size_t N>
const ApiRow* find_row(const std::array<ApiRow, N>& table, std::string_view name) {
  for (const auto& r : table)
    if (r.name == name) return &r;
  return nullptr;
}

const ApiRow* api_row(std::string_view name) { return find_row(kApis, name); }

// mindspore.mint's signatures are torch's; its norms and NPU ops are not in it as torch has them.
bool mint_shares(std::string_view api) { return api != "rms_norm" && api != "npu_rms_norm" && api != "npu_silu"; }

// A MindSpore entry's row: by its prefix (the table of that API family), nullptr when outside it.
const ApiRow* ms_api_row(std::string_view prefix, std::string_view api) {
  if (prefix == "Mint" || prefix == "MintFunctional") return mint_shares(api) ? api_row(api) : nullptr;
  if (prefix == "Functional") return find_row(kMsFunctional, api);
  if (prefix == "Tensor") return find_row(kMsTensor, api);
  if (prefix == "Primitive") {
    const size_t dot = api.rfind('.');
    return find_row(kMsPrimitive, dot == std::string_view::npos ? api : api.substr(dot + 1));
  }
  return nullptr;
}

// Builds one call: tensors opened in order, parameters set, or the reason it cannot be.
struct Builder {
  const MsprobeArgs& a;
  OpCall c;
  std::optional<OpCheckResult> skip;

  void fail(SkipReason r, std::string why) {
    if (!skip) skip = not_recomputed(c, r, std::move(why));
  }
  // Argument i / `name` as an input tensor; false (and a reason) when it is not one.
  bool input(size_t i, std::string_view name, std::string_view what) {
    const MsprobeLeaf* l = a.arg(i, name);
    if (!l || l->kind != MsprobeLeafKind::kTensor) {
      fail(SkipReason::kMissingInput, c.op_type + ": its " + std::string(what) + " is not a tensor of the dump");
      return false;
    }
    return add(*l, Role::kInput, c.inputs);
  }
  // An optional tensor argument: opened when a tensor, absent when not passed or None.
  bool optional_input(size_t i, std::string_view name, bool& present) {
    const MsprobeLeaf* l = a.arg(i, name);
    present = l && l->kind == MsprobeLeafKind::kTensor;
    if (present) return add(*l, Role::kInput, c.inputs);
    if (a.passed(i, name) && !(l && l->kind == MsprobeLeafKind::kNull)) {
      fail(SkipReason::kMissingInput, c.op_type + ": its " + std::string(name) + " is neither a tensor nor None");
      return false;
    }
    return true;
  }
  bool add(const MsprobeLeaf& l, Role role, std::vector<OpTensor>& to) {
    auto t = a.open(l, role, static_cast<uint32_t>(to.size()));
    if (!t.ok()) {
      fail(SkipReason::kUnreadable, t.error().to_string());
      return false;
    }
    to.push_back(std::move(*t));
    return true;
  }
  // A keyword argument whose value must be None (or absent) for the op to be what we recompute.
  bool none_or_absent(size_t i, std::string_view name) {
    const MsprobeLeaf* l = a.arg(i, name);
    if (!a.passed(i, name) || (l && l->kind == MsprobeLeafKind::kNull)) return true;
    if (l && l->kind == MsprobeLeafKind::kScalar &&
        (l->scalar.value_text == "false" || l->scalar.value_text == "False"))
      return true;
    fail(SkipReason::kMissingAttribute, c.op_type + " with " + std::string(name) + " set is not recomputed");
    return false;
  }
  // A number argument: its value, torch's default `def` when not passed, else a reason.
  std::optional<double> number(size_t i, std::string_view name, std::optional<double> def) {
    const MsprobeLeaf* l = a.arg(i, name);
    if (auto v = leaf_number(l)) return v;
    if ((!a.passed(i, name) || (l && l->kind == MsprobeLeafKind::kNull)) && def) return def;
    fail(SkipReason::kMissingAttribute,
         c.op_type + ": its " + std::string(name) +
             (a.passed(i, name) ? " is not a number in dump.json" : " is not in dump.json"));
    return std::nullopt;
  }
};

// torch.finfo(dtype).eps: F.rms_norm's eps when None.
std::optional<double> finfo_eps(DType t) {
  switch (t) {
    case DType::kFloat16: return std::ldexp(1.0, -10);
    case DType::kBFloat16: return std::ldexp(1.0, -7);
    case DType::kFloat32: return std::ldexp(1.0, -23);
    case DType::kFloat64: return std::ldexp(1.0, -52);
    default: return std::nullopt;
  }
}

// add/sub/mul/div: a tensor and a tensor, or a tensor and a number (Adds/Muls); alpha must be 1.
void binary(Builder& b, OpKind kind) {
  if (!b.input(0, "input", "self")) return;
  if (kind == OpKind::kAdd || kind == OpKind::kSub) {
    auto alpha = b.number(2, "alpha", 1.0);
    if (!alpha) return;
    if (*alpha != 1) return b.fail(SkipReason::kMissingAttribute, b.c.op_type + " with alpha other than 1");
  }
  if (kind == OpKind::kDiv && !b.none_or_absent(2, "rounding_mode")) return;
  const MsprobeLeaf* other = b.a.arg(1, "other");
  if (other && other->kind == MsprobeLeafKind::kTensor) {
    b.c.kind = kind;
    b.add(*other, Role::kInput, b.c.inputs);
    return;
  }
  auto s = leaf_number(other);
  if (!s) return b.fail(SkipReason::kMissingInput, b.c.op_type + ": its other is neither a tensor nor a number");
  b.c.kind = kind == OpKind::kAdd || kind == OpKind::kSub ? OpKind::kAdds : OpKind::kMuls;
  b.c.params.scalar = kind == OpKind::kSub ? -*s : kind == OpKind::kDiv ? 1 / *s : *s;
}

void layer_norm(Builder& b) {
  if (!b.input(0, "input", "input")) return;
  auto shape = b.a.ints(1, "normalized_shape");
  if (!shape || shape->empty())
    return b.fail(SkipReason::kMissingAttribute, "layer_norm: its normalized_shape is not in dump.json");
  const auto& x = b.c.inputs[0].desc.original_shape;
  if (shape->size() > x.size()) return b.fail(SkipReason::kShapeMismatch, "layer_norm: normalized_shape too long");
  for (size_t k = 0; k < shape->size(); ++k) {
    if (static_cast<uint64_t>((*shape)[k]) != x[x.size() - shape->size() + k])
      return b.fail(SkipReason::kShapeMismatch, "layer_norm: normalized_shape is not the input's last dims");
  }
  b.c.params.begin_norm_axis = static_cast<int64_t>(x.size() - shape->size());
  bool has_w = false, has_b = false;
  if (!b.optional_input(2, "weight", has_w) || !b.optional_input(3, "bias", has_b)) return;
  if (has_b && !has_w)
    return b.fail(SkipReason::kMissingInput, "layer_norm with a bias and no weight is not recomputed");
  auto eps = b.number(4, "eps", 1e-5);
  if (eps) b.c.params.epsilon = static_cast<float>(*eps);
}

void rms_norm(Builder& b, bool npu) {
  if (!b.input(0, "input", "input")) return;
  if (npu) {
    if (!b.input(1, "gamma", "gamma")) return;
    if (auto eps = b.number(2, "epsilon", 1e-6)) b.c.params.epsilon = static_cast<float>(*eps);
    return;
  }
  bool has_w = false;
  if (!b.optional_input(2, "weight", has_w)) return;
  if (!has_w) return b.fail(SkipReason::kMissingInput, "rms_norm without a weight is not recomputed");
  auto eps = b.number(3, "eps", finfo_eps(b.c.inputs[0].desc.dtype));
  if (eps) b.c.params.epsilon = static_cast<float>(*eps);
}

// torch.cat(tensors, dim=0); MindSpore's ops.cat(tensors, axis=0): `dim_name` is the keyword.
void cat(Builder& b, std::string_view dim_name) {
  for (size_t k = 0;; ++k) {
    const MsprobeLeaf* l = b.a.at(MsprobeCategory::kInput, {"0", std::to_string(k)});
    if (!l) l = b.a.at(MsprobeCategory::kKwargs, {"tensors", std::to_string(k)});
    if (!l || l->kind != MsprobeLeafKind::kTensor) break;
    if (!b.add(*l, Role::kInput, b.c.inputs)) return;
  }
  if (b.c.inputs.empty()) return b.fail(SkipReason::kMissingInput, "cat: no tensor of its list is in the dump");
  if (auto dim = b.number(1, dim_name, 0.0)) b.c.params.axis = static_cast<int64_t>(*dim);
}

void build(Builder& b, const ApiRow& row) {
  OpParams& p = b.c.params;
  b.c.kind = row.kind;
  switch (row.rule) {
    case Rule::kLinear:
      if (!b.input(0, "input", "input") || !b.input(1, "weight", "weight")) return;
      p.transpose_b = true;  // weight [out_features, in_features]
      b.optional_input(2, "bias", p.has_bias);
      return;
    case Rule::kMatmul:
      if (b.input(0, "input", "input")) b.input(1, b.c.op_type == "mm" ? "mat2" : "other", "other");
      return;
    case Rule::kBinary: return binary(b, row.kind);
    case Rule::kUnary:
      if (b.input(0, "input", "input")) b.none_or_absent(1, "inplace");
      return;
    case Rule::kGelu: {
      if (!b.input(0, "input", "input")) return;
      const MsprobeLeaf* l = b.a.arg(1, "approximate");
      auto mode = b.a.passed(1, "approximate") ? leaf_text(l) : std::optional<std::string>("none");
      if (mode == "tanh") b.c.kind = OpKind::kGeluTanh;
      else if (mode != "none") b.fail(SkipReason::kMissingAttribute, "gelu: its approximate is not 'none' or 'tanh'");
      return;
    }
    case Rule::kGeluPassed:
      if (!b.a.passed(1, "approximate"))
        return b.fail(SkipReason::kMissingAttribute,
                      "gelu: its approximate is not in dump.json (MindSpore's default differs between versions)");
      return build(b, ApiRow{row.name, Rule::kGelu, row.kind});
    case Rule::kSoftmaxAxis: {
      if (!b.input(0, "input", "input") || !b.none_or_absent(2, "dtype")) return;
      auto axis = b.number(1, "axis", -1.0);  // ops.softmax's default: the last axis
      if (axis) p.axes = {static_cast<int64_t>(*axis)};
      return;
    }
    case Rule::kCatAxis: return cat(b, "axis");
    case Rule::kPrimitiveAttrs:
      return b.fail(SkipReason::kMissingAttribute, "the primitive " + b.c.op_type +
                                                       " has attributes set at its construction, which dump.json "
                                                       "does not record");
    case Rule::kSoftmax: {
      // F.softmax(input, dim, _stacklevel, dtype); Torch.softmax(input, dim, dtype); Tensor.softmax(dim, dtype).
      const size_t dtype_at = b.c.op_name.starts_with("Functional.") ? 3 : 2;
      if (!b.input(0, "input", "input") || !b.none_or_absent(dtype_at, "dtype")) return;
      auto dim = leaf_int(b.a.arg(1, "dim"));
      if (!dim) return b.fail(SkipReason::kMissingAttribute, "softmax: its dim is not in dump.json");
      p.axes = {*dim};
      return;
    }
    case Rule::kLayerNorm: return layer_norm(b);
    case Rule::kRmsNorm: return rms_norm(b, false);
    case Rule::kNpuRmsNorm: return rms_norm(b, true);
    case Rule::kEmbedding:
      if (!b.input(1, "weight", "weight") || !b.input(0, "input", "indices")) return;
      b.none_or_absent(3, "max_norm");
      p.axis = 0;
      return;
    case Rule::kCat: return cat(b, "dim");
  }
}

}  // namespace

FrontEnd msprobe_api_call(std::string_view prefix, std::string_view api, const MsprobeArgs& args, OpCall c) {
  const bool ms = args.mindspore();
  const ApiRow* row = ms ? ms_api_row(prefix, api) : api_row(api);
  if (!row)
    return not_recomputed(c, SkipReason::kUnknownOp,
                          std::string(ms ? "the MindSpore API '" : "the API '") + std::string(prefix) + "." +
                              std::string(api) + "' is not in the recomputed set");
  Builder b{args, std::move(c), std::nullopt};
  const MsprobeLeaf* out = args.at(MsprobeCategory::kOutput, {"0"});  // npu_rms_norm: y, not rstd
  if (!out || out->kind != MsprobeLeafKind::kTensor)
    return not_recomputed(b.c, SkipReason::kMissingInput, b.c.op_type + ": dump.json records no output tensor");
  if (!b.add(*out, Role::kOutput, b.c.outputs)) return *b.skip;
  build(b, *row);
  if (b.skip) return *b.skip;
  return std::move(b.c);
}

}  // namespace msit::opcheck::detail

namespace msit::opcheck {
bool msprobe_api_known(std::string_view api) { return detail::api_row(api) != nullptr; }
}  // namespace msit::opcheck
