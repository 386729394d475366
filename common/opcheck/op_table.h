// The ops opcheck recomputes: one row per op with its error class and its name in each front
// end (GE op type, ATB op, torch API), so a new dump family is one more column (docs/opcheck.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace msit::opcheck {

// clang-format off
enum class OpKind : uint8_t {
  kMatMul, kBatchMatMul, kLinear,
  kAdd, kSub, kMul, kDiv, kMuls, kAdds,
  kCast,
  kSoftmax, kRmsNorm, kLayerNorm,
  kGeluTanh, kGeluErf, kSilu, kRelu, kSigmoid, kTanh, kExp, kLog, kSqrt, kRsqrt,
  kTranspose, kReshape, kConcat, kSplit, kGather,
  kReduceSum, kReduceMean,
};
// clang-format on

// What error a correct kernel of the output's dtype makes (docs/opcheck.md "Bounds"):
// kMove copies values (none), kElementwise rounds once, kTranscendental adds the error of a
// math-library function in float32, kAccumulation adds the error of a sum of K terms.
enum class OpClass : uint8_t { kMove, kElementwise, kTranscendental, kAccumulation };

struct OpRow {
  OpKind kind;
  std::string_view name;  // ours, for reports ("matmul", "softmax", ...)
  OpClass op_class;
};

std::span<const OpRow> op_rows();
const OpRow& op_row(OpKind k);
std::string_view op_kind_name(OpKind k);
std::string_view op_class_name(OpClass c);

// Front end names. GE op types with their variants (MatMulV2, BatchMatMulV2, ReduceSumD, ...);
// the GE front end (ge_front.h) reads their attributes and constant inputs.
std::optional<OpKind> op_kind_of_ge_type(std::string_view ge_type);

// torch API names (a torch hook dump's `{module}.{func}` directories; msProbe's API names):
// the kind, how many tensor inputs it needs, or why it is not recomputed from tensors alone.
struct TorchApi {
  std::optional<OpKind> kind;  // nullopt: known, but its values need a non-tensor argument
  size_t min_inputs = 1;
  std::string_view why;  // when kind is nullopt
};
TorchApi torch_api(std::string_view name);
bool torch_api_known(std::string_view name);

}  // namespace msit::opcheck
