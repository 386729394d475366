// Recomputes one dumped op on the CPU from its own dumped inputs and says whether its kernel
// agrees with them (docs/opcheck.md). Front ends build the OpCall; check_op() is the one engine.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <variant>

#include "common/formats/graph_text.h"
#include "common/formats/msprobe_dump_json.h"
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
// The ATB front end (docs/opcheck.md "ATB dumps"): an op directory `{opId}_{OpType}/` with
// before/intensor{k}.bin, after/outtensor{k}.bin and op_param.json (the op's parameters).
bool is_atb_op_dir(const std::string& dir);
FrontEnd atb_front_end(const std::string& dir);

// The torch front end (docs/opcheck.md "torch dumps"): a hook dump's API directory
// `{module}.{func}/` with input_{i}.pth (input_0_{j}.pth for a list) and output.pth.
std::optional<std::string> torch_api_of_dir(const std::string& dir);  // func when dir is one
FrontEnd torch_front_end(const std::string& dir);

// The msProbe front end (docs/opcheck.md "msProbe dumps"): a forward API entry of a rank
// folder's dump.json, its tensors from dump_tensor_data/ by their data_name, its keyword
// arguments from the entry. A tensor file of the entry names it too.
struct MsprobeOpRef {
  std::string rank_dir;  // the folder holding dump.json
  std::string entry;     // Functional.linear.0.forward
};
bool is_msprobe_rank_dir(const std::string& dir);  // holds a dump.json
std::optional<MsprobeOpRef> msprobe_op_of_tensor_file(const std::string& path);
FrontEnd msprobe_front_end(const MsprobeOpRef& ref);
FrontEnd msprobe_entry_front_end(const MsprobeEntry& e, const std::string& rank_dir);  // an entry in hand
// Whether an msProbe entry's API (the entry name's op: "linear") is in the recomputed set.
bool msprobe_api_known(std::string_view api);
// Every entry of rank_dir/dump.json in file order, read as a stream, until fn returns false.
Status for_each_msprobe_entry(const std::string& rank_dir, const std::function<bool(MsprobeEntry&&)>& fn);

// ge_front_end + check_op.
OpCheckResult check_ge_file(const std::string& path, const GraphDef* graph, const OpcheckOptions& opts);
// A front end's outcome checked: check_op on an OpCall, the result as it is otherwise.
OpCheckResult check_front_end(FrontEnd fe, const std::string& path, const OpcheckOptions& opts);

// Which front end reads a path: an ATB op directory, a torch API directory, a GE dump file
// (by its name), a tensor file of an msProbe API entry (by its data name in a tensor
// directory), or none (kNone: a directory or file that holds no op's inputs).
enum class DumpKind : uint8_t { kNone, kGeFile, kAtbOpDir, kTorchApiDir, kMsprobeTensor };
DumpKind dump_kind_of(const std::string& path);
// The graph text that names GE op `op`: the first dynamo_original_graph_*.txt (in graph id
// order) that has it, in the dump file's directory or up to 8 directories above it.
std::optional<GraphDef> find_graph_text(const std::string& dump_file, const std::string& op);
// The one dispatch of every caller (opcheck, compare --recompute): the path's front end, then
// check_op. `graph`: a GE op's attributes (nullptr: none; unused for ATB and torch).
OpCheckResult check_dump_path(const std::string& path, const GraphDef* graph, const OpcheckOptions& opts);

}  // namespace msit::opcheck
