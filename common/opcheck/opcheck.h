// Recomputes one dumped op on the CPU from its own dumped inputs and says whether its kernel
// agrees with them (docs/opcheck.md). Front ends build the OpCall; check_op() is the one engine.
#pragma once

#include <string>
#include <variant>

#include "common/formats/graph_text.h"
#include "common/opcheck/op_call.h"

namespace msit::opcheck {

// What a front end made of a dump: the op to recompute, or why it cannot be (the result then
// carries verdict kNotRecomputed and the reason).
using FrontEnd = std::variant<OpCall, OpCheckResult>;

OpCheckResult not_recomputed(const OpCall& named, SkipReason r, std::string detail);

// Recomputes call's outputs in float64 and compares them with the dumped ones. Never fails:
// an unreadable tensor is a kNotRecomputed result with reason kUnreadable.
OpCheckResult check_op(const OpCall& call, const OpcheckOptions& opts);

// The GE front end (docs/opcheck.md "GE dumps"): the op type from the file name, attributes
// from `graph` (the graph text op of the same name; nullptr when there is none), constant
// inputs (axes, perm, concat_dim, size_splits) from the dump itself.
FrontEnd ge_front_end(const std::string& path, const GraphDef* graph);
// ge_front_end + check_op.
OpCheckResult check_ge_file(const std::string& path, const GraphDef* graph, const OpcheckOptions& opts);

}  // namespace msit::opcheck
