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

}  // namespace msit::opcheck
