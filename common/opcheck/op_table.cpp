// The op table and the GE type names of each op (docs/opcheck.md "Ops").
#include "common/opcheck/op_table.h"

#include <array>
#include <utility>

namespace msit::opcheck {
namespace {

using enum OpKind;
using enum OpClass;

// clang-format off
constexpr std::array kRows = {
  OpRow{kMatMul, "matmul", kAccumulation},        OpRow{kBatchMatMul, "batch_matmul", kAccumulation},
  OpRow{kLinear, "linear", kAccumulation},
  OpRow{kAdd, "add", kElementwise},               OpRow{kSub, "sub", kElementwise},
  OpRow{kMul, "mul", kElementwise},               OpRow{kDiv, "div", kElementwise},
  OpRow{kMuls, "muls", kElementwise},             OpRow{kAdds, "adds", kElementwise},
  OpRow{kCast, "cast", kMove},
  OpRow{kSoftmax, "softmax", kAccumulation},      OpRow{kRmsNorm, "rms_norm", kAccumulation},
  OpRow{kLayerNorm, "layer_norm", kAccumulation},
  OpRow{kGeluTanh, "gelu_tanh", kTranscendental}, OpRow{kGeluErf, "gelu_erf", kTranscendental},
  OpRow{kSilu, "silu", kTranscendental},          OpRow{kRelu, "relu", kElementwise},
  OpRow{kSigmoid, "sigmoid", kTranscendental},    OpRow{kTanh, "tanh", kTranscendental},
  OpRow{kExp, "exp", kTranscendental},            OpRow{kLog, "log", kTranscendental},
  OpRow{kSqrt, "sqrt", kTranscendental},          OpRow{kRsqrt, "rsqrt", kTranscendental},
  OpRow{kTranspose, "transpose", kMove},          OpRow{kReshape, "reshape", kMove},
  OpRow{kConcat, "concat", kMove},                OpRow{kSplit, "split", kMove},
  OpRow{kGather, "gather", kMove},
  OpRow{kReduceSum, "reduce_sum", kAccumulation}, OpRow{kReduceMean, "reduce_mean", kAccumulation},
};

// GE op types (the dump file name's OpType). Gelu on the NPU is the tanh form
// (docs/opcheck.md "Semantics"); Swish is SiLU with a `scale` attribute.
constexpr std::array<std::pair<std::string_view, OpKind>, 50> kGeTypes = {{
  {"MatMul", kMatMul}, {"MatMulV2", kMatMul}, {"MatMulV3", kMatMul},
  {"BatchMatMul", kBatchMatMul}, {"BatchMatMulV2", kBatchMatMul}, {"BatchMatMulV3", kBatchMatMul},
  {"Add", kAdd}, {"AddV2", kAdd}, {"Sub", kSub}, {"Mul", kMul}, {"RealDiv", kDiv}, {"Div", kDiv},
  {"Muls", kMuls}, {"Adds", kAdds}, {"Cast", kCast},
  {"Softmax", kSoftmax}, {"SoftmaxV2", kSoftmax}, {"RmsNorm", kRmsNorm}, {"LayerNorm", kLayerNorm},
  {"LayerNormV3", kLayerNorm},
  {"Gelu", kGeluTanh}, {"Swish", kSilu}, {"SiLU", kSilu}, {"Silu", kSilu}, {"Relu", kRelu},
  {"Sigmoid", kSigmoid}, {"Tanh", kTanh}, {"Exp", kExp}, {"Log", kLog}, {"Sqrt", kSqrt}, {"Rsqrt", kRsqrt},
  {"Transpose", kTranspose}, {"TransposeD", kTranspose},
  {"Reshape", kReshape}, {"Squeeze", kReshape}, {"Unsqueeze", kReshape}, {"ExpandDims", kReshape},
  {"Flatten", kReshape}, {"Identity", kReshape}, {"TransData", kReshape},
  {"ConcatV2", kConcat}, {"ConcatV2D", kConcat}, {"SplitV", kSplit}, {"SplitVD", kSplit},
  {"GatherV2", kGather}, {"GatherV2D", kGather},
  {"ReduceSum", kReduceSum}, {"ReduceSumD", kReduceSum}, {"ReduceMean", kReduceMean}, {"ReduceMeanD", kReduceMean},
}};
// clang-format on

}  // namespace

std::span<const OpRow> op_rows() { return kRows; }

const OpRow& op_row(OpKind k) {
  for (const auto& r : kRows) {
    if (r.kind == k) return r;
  }
  return kRows[0];  // unreachable: every OpKind has a row (op_table_test checks it)
}

std::string_view op_kind_name(OpKind k) { return op_row(k).name; }

std::string_view op_class_name(OpClass c) {
  switch (c) {
    case kMove: return "move";
    case kElementwise: return "elementwise";
    case kTranscendental: return "transcendental";
    case kAccumulation: return "accumulation";
  }
  return "?";
}

std::optional<OpKind> op_kind_of_ge_type(std::string_view ge_type) {
  for (const auto& [name, kind] : kGeTypes) {
    if (name == ge_type) return kind;
  }
  return std::nullopt;
}

namespace {

// clang-format off
constexpr std::array<std::pair<std::string_view, TorchApi>, 20> kTorchApis = {{
  {"linear", {kLinear, 2, {}}}, {"matmul", {kBatchMatMul, 2, {}}},
  {"add", {kAdd, 2, {}}}, {"sub", {kSub, 2, {}}}, {"mul", {kMul, 2, {}}}, {"div", {kDiv, 2, {}}},
  {"silu", {kSilu, 1, {}}}, {"relu", {kRelu, 1, {}}}, {"sigmoid", {kSigmoid, 1, {}}}, {"tanh", {kTanh, 1, {}}},
  {"exp", {kExp, 1, {}}}, {"log", {kLog, 1, {}}}, {"sqrt", {kSqrt, 1, {}}}, {"rsqrt", {kRsqrt, 1, {}}},
  {"embedding", {kGather, 2, {}}}, {"cat", {kConcat, 1, {}}},
  {"softmax", {std::nullopt, 1, "softmax's dim is an int argument, which a torch hook dump does not hold"}},
  {"gelu", {std::nullopt, 1, "gelu's approximate ('none' or 'tanh') is a keyword argument, which a torch hook dump does not hold"}},
  {"layer_norm", {std::nullopt, 1, "layer_norm's normalized_shape and eps are not tensors, which a torch hook dump does not hold"}},
  {"rms_norm", {std::nullopt, 1, "rms_norm's eps is not a tensor, which a torch hook dump does not hold"}},
}};
// clang-format on

}  // namespace

TorchApi torch_api(std::string_view name) {
  for (const auto& [n, api] : kTorchApis) {
    if (n == name) return api;
  }
  return {std::nullopt, 0, "this torch API is not in the recomputed set"};
}

bool torch_api_known(std::string_view name) {
  for (const auto& [n, api] : kTorchApis) {
    if (n == name) return true;
  }
  return false;
}

}  // namespace msit::opcheck
