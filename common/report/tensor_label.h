// Which tensor of which op a report row compares, as the dump's own structure names it
// (docs/compare.md "Op labels"): GE op name and type, FX node and target, ATB node path and op
// type, torch module name and class. Set by the pair builders; text only in the writers; the
// first-divergence rule reads it. Nothing parses a path cell back into one of these.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace msit {

enum class TensorRole : uint8_t { kUnknown, kInput, kOutput };

struct TensorLabel {
  // GE: op name (Add_3); FX: node name; ATB: node path (9_DecoderLayer/3_LinearOperation);
  // torch: module name (model.layers.9.self_attn.v_proj). Empty: not known.
  std::string op;
  // GE: op type (MatMulV2); FX: target (aten.mm.default); ATB: op type (LinearOperation);
  // torch: module class (Linear).
  std::string op_type;
  TensorRole role = TensorRole::kUnknown;
  uint32_t index = 0;  // which input / output of the op
  // Execution order of the op within its token and rank (smaller ran earlier); the
  // first-divergence rule walks rows in this order. kNoOrder: report order.
  static constexpr uint64_t kNoOrder = ~uint64_t{0};
  uint64_t order = kNoOrder;

  bool known() const { return !op.empty(); }
};

}  // namespace msit
