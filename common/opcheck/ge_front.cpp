// The GE front end of opcheck: a GE dump file (its op type, inputs and outputs) and the graph
// text op of the same name (its attributes) make an OpCall (docs/opcheck.md "GE dumps").
#include <cmath>
#include <filesystem>

#include "common/archive/archive_source.h"
#include "common/formats/dump_name.h"
#include "common/formats/dump_reader.h"
#include "common/io/derived_names.h"
#include "common/opcheck/opcheck.h"
#include "common/opcheck/values.h"

namespace msit::opcheck {
namespace {

struct GeOp {
  OpCall call;
  const GraphOp* graph = nullptr;
  std::vector<OpTensor> inputs;  // every dumped input (data and constants)
};

// A required attribute; nullopt (with res filled) when the graph lacks it or it has another kind.
const GraphAttr* need_attr(const GeOp& op, std::string_view key, AttrKind kind, OpCheckResult& res) {
  if (op.graph == nullptr) {
    res = not_recomputed(op.call, SkipReason::kNoGraph,
                         "the values of " + op.call.op_type + " depend on its attribute '" + std::string(key) +
                             "', which is in the graph text; no graph text names op '" + op.call.op_name +
                             "' (give --graph)");
    return nullptr;
  }
  const GraphAttr* a = op.graph->attr(key);
  const bool fits = a && (a->kind == kind || (kind == AttrKind::kFloat && a->kind == AttrKind::kInt));
  if (!fits) {
    res = not_recomputed(op.call, SkipReason::kMissingAttribute,
                         "graph op '" + op.call.op_name + "' has no usable attribute '" + std::string(key) + "'");
    return nullptr;
  }
  return a;
}

double attr_float(const GraphAttr& a) { return a.kind == AttrKind::kInt ? static_cast<double>(a.i) : a.f; }

// Values of a small constant input (axes, perm, concat_dim, size_splits).
std::optional<std::vector<int64_t>> const_input(const GeOp& op, size_t i, std::string_view what, OpCheckResult& res) {
  if (i >= op.inputs.size()) {
    res = not_recomputed(op.call, SkipReason::kMissingInput,
                         "the dump has no input " + std::to_string(i) + " (" + std::string(what) + ")");
    return std::nullopt;
  }
  auto v = TensorValues::open(op.inputs[i]);
  std::vector<int64_t> out;
  if (v.ok() && (*v)->count() <= 4096) {
    auto all = (*v)->read_all();
    if (all.ok()) {
      for (double x : *all) out.push_back(static_cast<int64_t>(x));
      return out;
    }
  }
  res = not_recomputed(
      op.call, SkipReason::kMissingInput,
      "input " + std::to_string(i) + " (" + std::string(what) + ") could not be read as a small integer tensor");
  return std::nullopt;
}

// Each reader below sets call.params and call.inputs (the data inputs) for its ops; false
// (res filled) when it cannot.
void take_data(GeOp& op, size_t n) {
  op.call.inputs.assign(op.inputs.begin(), op.inputs.begin() + static_cast<ptrdiff_t>(std::min(n, op.inputs.size())));
}

bool fail(GeOp& op, OpCheckResult& res, SkipReason r, std::string detail) {
  res = not_recomputed(op.call, r, std::move(detail));
  return false;
}

// One integer from a scalar constant input (concat_dim, split_dim, axis).
std::optional<int64_t> const_scalar(GeOp& op, size_t i, std::string_view what, OpCheckResult& res) {
  auto v = const_input(op, i, what, res);
  if (!v) return std::nullopt;
  if (v->size() != 1) {
    fail(op, res, SkipReason::kMissingInput, std::string(what) + " is not a scalar");
    return std::nullopt;
  }
  return (*v)[0];
}

// A parameter GE's *D op types carry as an attribute and the others as a constant input (perm,
// axes; axis, concat_dim): read from where this op has it into `out`; false (res filled) when
// it cannot.
bool attr_or_input(GeOp& op, bool as_attr, std::string_view name, size_t input, std::vector<int64_t>& out,
                   OpCheckResult& res) {
  if (as_attr) {
    const GraphAttr* a = need_attr(op, name, AttrKind::kIntList, res);
    if (a) out = a->ints;
    return a != nullptr;
  }
  auto v = const_input(op, input, name, res);
  if (v) out = std::move(*v);
  return v.has_value();
}
bool attr_or_input(GeOp& op, bool as_attr, std::string_view name, size_t input, int64_t& out, OpCheckResult& res) {
  if (as_attr) {
    const GraphAttr* a = need_attr(op, name, AttrKind::kInt, res);
    if (a) out = a->i;
    return a != nullptr;
  }
  auto v = const_scalar(op, input, name, res);
  if (v) out = *v;
  return v.has_value();
}

bool matmul_params(GeOp& op, OpCheckResult& res) {
  const bool bmm = op.call.kind == OpKind::kBatchMatMul;
  const GraphAttr* a = need_attr(op, bmm ? "adj_x1" : "transpose_x1", AttrKind::kBool, res);
  const GraphAttr* b = a ? need_attr(op, bmm ? "adj_x2" : "transpose_x2", AttrKind::kBool, res) : nullptr;
  if (!b) return false;
  if (op.inputs.size() > 3)
    return fail(op, res, SkipReason::kUnknownOp, "a matmul with offset_w (quantised) is not in the recomputed set");
  op.call.params.transpose_a = a->b;
  op.call.params.transpose_b = b->b;
  op.call.params.has_bias = op.inputs.size() == 3;
  take_data(op, 3);
  return true;
}

// Muls/Adds `value`, Swish `scale`, Exp/Log `base`, `scale`, `shift`: float attributes, so the
// kernel gets float32 values.
bool scalar_params(GeOp& op, OpCheckResult& res) {
  OpParams& p = op.call.params;
  take_data(op, 1);
  if (op.call.kind == OpKind::kMuls || op.call.kind == OpKind::kAdds) {
    const GraphAttr* v = need_attr(op, "value", AttrKind::kFloat, res);
    if (v) p.scalar = static_cast<float>(attr_float(*v));
    return v != nullptr;
  }
  if (op.call.kind == OpKind::kSilu) {
    if (op.call.op_type != "Swish") return true;  // SiLU: scale 1
    const GraphAttr* s = need_attr(op, "scale", AttrKind::kFloat, res);
    if (s) p.scale = static_cast<float>(attr_float(*s));
    return s != nullptr;
  }
  const GraphAttr* b = need_attr(op, "base", AttrKind::kFloat, res);
  const GraphAttr* s = b ? need_attr(op, "scale", AttrKind::kFloat, res) : nullptr;
  const GraphAttr* t = s ? need_attr(op, "shift", AttrKind::kFloat, res) : nullptr;
  if (!t) return false;
  p.base = static_cast<float>(attr_float(*b));
  p.scale = static_cast<float>(attr_float(*s));
  p.shift = static_cast<float>(attr_float(*t));
  return true;
}

bool softmax_params(GeOp& op, OpCheckResult& res) {
  const GraphAttr* a = need_attr(op, "axes", AttrKind::kIntList, res);
  if (!a) return false;
  op.call.params.axes = a->ints;
  take_data(op, 1);
  return true;
}

// RmsNorm (x, gamma; epsilon) and LayerNorm (x, gamma, beta; begin_norm_axis, epsilon): output 0
// only (rstd, mean, variance are not compared, docs/opcheck.md).
bool norm_params(GeOp& op, OpCheckResult& res) {
  const bool layer = op.call.kind == OpKind::kLayerNorm;
  const GraphAttr* ax = layer ? need_attr(op, "begin_norm_axis", AttrKind::kInt, res) : nullptr;
  if (layer && !ax) return false;
  const GraphAttr* e = need_attr(op, "epsilon", AttrKind::kFloat, res);
  if (!e) return false;
  if (layer && op.inputs.size() < 3)
    return fail(op, res, SkipReason::kMissingInput, "LayerNorm needs x, gamma and beta in the dump");
  if (layer) op.call.params.begin_norm_axis = ax->i;
  op.call.params.epsilon = static_cast<float>(attr_float(*e));
  take_data(op, layer ? 3 : 2);
  op.call.outputs.resize(std::min<size_t>(op.call.outputs.size(), 1));
  return true;
}

bool transpose_params(GeOp& op, OpCheckResult& res) {
  take_data(op, 1);
  return attr_or_input(op, op.call.op_type == "TransposeD", "perm", 1, op.call.params.perm, res);
}

bool concat_params(GeOp& op, OpCheckResult& res) {
  const bool as_attr = op.call.op_type == "ConcatV2D";  // else concat_dim is the last input
  if (!as_attr && op.inputs.size() < 2)
    return fail(op, res, SkipReason::kMissingInput, "ConcatV2 needs its inputs and concat_dim");
  take_data(op, as_attr ? op.inputs.size() : op.inputs.size() - 1);
  return attr_or_input(op, as_attr, "concat_dim", op.inputs.size() - 1, op.call.params.axis, res);
}

bool split_params(GeOp& op, OpCheckResult& res) {
  take_data(op, 1);
  if (op.call.op_type == "SplitVD") {
    const GraphAttr* s = need_attr(op, "size_splits", AttrKind::kIntList, res);
    const GraphAttr* d = s ? need_attr(op, "split_dim", AttrKind::kInt, res) : nullptr;
    if (!d) return false;
    op.call.params.split_sizes = s->ints;
    op.call.params.axis = d->i;
    return true;
  }
  auto sizes = const_input(op, 1, "size_splits", res);
  auto dim = sizes ? const_scalar(op, 2, "split_dim", res) : std::nullopt;
  if (!dim) return false;
  op.call.params.split_sizes = *sizes;
  op.call.params.axis = *dim;
  return true;
}

bool gather_params(GeOp& op, OpCheckResult& res) {
  const GraphAttr* bd = op.graph ? op.graph->attr("batch_dims") : nullptr;
  if (bd && bd->kind == AttrKind::kInt && bd->i != 0)
    return fail(op, res, SkipReason::kUnknownOp, "GatherV2 with batch_dims != 0 is not in the recomputed set");
  take_data(op, 2);
  return attr_or_input(op, op.call.op_type == "GatherV2D", "axis", 2, op.call.params.axis, res);
}

// keep_dims changes the output's shape, not its values in logical order: not needed.
bool reduce_params(GeOp& op, OpCheckResult& res) {
  take_data(op, 1);
  const bool as_attr = op.call.op_type == "ReduceSumD" || op.call.op_type == "ReduceMeanD";
  return attr_or_input(op, as_attr, "axes", 1, op.call.params.axes, res);
}

bool ge_params(GeOp& op, OpCheckResult& res) {
  switch (op.call.kind) {
    case OpKind::kMatMul:
    case OpKind::kBatchMatMul: return matmul_params(op, res);
    case OpKind::kMuls:
    case OpKind::kAdds:
    case OpKind::kSilu:
    case OpKind::kExp:
    case OpKind::kLog: return scalar_params(op, res);
    case OpKind::kSoftmax: return softmax_params(op, res);
    case OpKind::kRmsNorm:
    case OpKind::kLayerNorm: return norm_params(op, res);
    case OpKind::kTranspose: return transpose_params(op, res);
    case OpKind::kConcat: return concat_params(op, res);
    case OpKind::kSplit: return split_params(op, res);
    case OpKind::kGather: return gather_params(op, res);
    case OpKind::kReduceSum:
    case OpKind::kReduceMean: return reduce_params(op, res);
    case OpKind::kAdd:
    case OpKind::kSub:
    case OpKind::kMul:
    case OpKind::kDiv: take_data(op, 2); return true;
    default: take_data(op, 1); return true;  // Cast (dtype from the dump), reshape-like, attribute-free activations
  }
}

}  // namespace

FrontEnd ge_front_end(const std::string& path, const GraphDef* graph) {
  GeOp op;
  OpCall& c = op.call;
  const std::string base = std::filesystem::path(path).filename().string();
  auto name = parse_ge_dump_name(without_archive_suffix(base));
  if (!name)
    return not_recomputed(c, SkipReason::kUnknownOp,
                          path + ": not a GE dump file name (OpType.OpName.TaskId.StreamId.Timestamp)");
  c.op_name = name->op_name;
  c.op_type = name->op_type;
  auto opened = archive::open_dump_source(path);
  if (!opened.ok()) return not_recomputed(c, SkipReason::kUnreadable, opened.error().to_string());
  auto raw = read_ge_dump_header(*opened->src, opened->identity);
  if (!raw.ok()) return not_recomputed(c, SkipReason::kUnreadable, raw.error().to_string());
  for (const auto& t : raw->tensors) {
    OpTensor ot{opened->src, path, t, std::nullopt};
    if (t.role == Role::kInput) op.inputs.push_back(ot);
    else if (t.role == Role::kOutput) c.outputs.push_back(ot);
  }
  auto kind = op_kind_of_ge_type(c.op_type);
  if (!kind)
    return not_recomputed(c, SkipReason::kUnknownOp,
                          "op type " + c.op_type + " is not in the recomputed set (docs/opcheck.md)");
  c.kind = *kind;
  op.graph = graph ? graph->find(c.op_name) : nullptr;
  OpCheckResult res;
  if (!ge_params(op, res)) return res;
  return c;
}

OpCheckResult check_ge_file(const std::string& path, const GraphDef* graph, const OpcheckOptions& opts) {
  return check_front_end(ge_front_end(path, graph), path, opts);
}

OpCheckResult check_front_end(FrontEnd fe, const std::string& path, const OpcheckOptions& opts) {
  if (auto* r = std::get_if<OpCheckResult>(&fe)) {
    if (r->path.empty()) r->path = path;
    return *r;
  }
  OpCheckResult res = check_op(std::get<OpCall>(fe), opts);
  res.path = path;
  return res;
}

}  // namespace msit::opcheck
