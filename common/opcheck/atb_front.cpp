// The ATB front end of opcheck: an ATB op directory ({opId}_{OpType}/ with before/intensor{k}.bin,
// after/outtensor{k}.bin and op_param.json, docs/formats/atb-torch.md §2.2, §2.6) makes an OpCall.
#include <cctype>
#include <filesystem>
#include <map>

#include <nlohmann/json.hpp>

#include "common/archive/archive_source.h"
#include "common/formats/atb_bin.h"
#include "common/io/file.h"
#include "common/io/tree_walk.h"
#include "common/opcheck/opcheck.h"

namespace msit::opcheck {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr size_t kMaxParamBytes = 1 << 20;

// k of `intensor{k}.bin` / `intensor{k}_{irName}.bin` (prefix "intensor"), or -1.
int64_t tensor_index(std::string_view name, std::string_view prefix) {
  if (name.substr(0, prefix.size()) != prefix || name.size() < prefix.size() + 5) return -1;
  if (name.substr(name.size() - 4) != ".bin") return -1;
  int64_t k = 0;
  size_t i = prefix.size();
  if (i >= name.size() || !std::isdigit(static_cast<unsigned char>(name[i]))) return -1;
  for (; i < name.size() && std::isdigit(static_cast<unsigned char>(name[i])); ++i) k = k * 10 + (name[i] - '0');
  return (name[i] == '.' || name[i] == '_') && k < 4096 ? k : -1;
}

// Every `{prefix}{k}*.bin` of dir, by k.
std::map<int64_t, std::string> tensor_files(const fs::path& dir, std::string_view prefix) {
  std::map<int64_t, std::string> out;
  (void)list_dir_path(dir.string(), [&](std::string_view n, EntryType t) {
    const int64_t k = t == EntryType::kFile ? tensor_index(n, prefix) : -1;
    if (k >= 0) out.emplace(k, (dir / std::string(n)).string());
  });
  return out;
}

Result<OpTensor> open_bin(const std::string& path, Role role, uint32_t index) {
  MSIT_ASSIGN_OR_RETURN(auto opened, archive::open_dump_source(path));
  MSIT_ASSIGN_OR_RETURN(RawDumpFile raw, read_atb_bin_header(*opened.src, opened.identity));
  if (raw.tensors.size() != 1 || raw.tensors[0].header_stats) {
    return make_error(path, Stage::kHeader, "not an ATB tensor file with data (a statistics or header-only file?)");
  }
  OpTensor t{opened.src, path, raw.tensors[0], std::nullopt};
  t.desc.role = role;
  t.desc.index = index;
  return t;
}

// A value of op_param.json: the member at a path of keys, or nullptr.
const json* member(const json& j, std::initializer_list<const char*> keys) {
  const json* cur = &j;
  for (const char* k : keys) {
    if (!cur->is_object() || !cur->contains(k)) return nullptr;
    cur = &(*cur)[k];
  }
  return cur;
}

struct AtbOp {
  OpCall call;
  json param;
  std::vector<OpTensor> inputs;
};

bool fail(AtbOp& op, OpCheckResult& res, SkipReason r, std::string detail) {
  res = not_recomputed(op.call, r, std::move(detail));
  return false;
}

// A required parameter of the given JSON kind.
const json* need(AtbOp& op, OpCheckResult& res, std::initializer_list<const char*> keys, json::value_t kind) {
  const json* v = member(op.param, keys);
  const bool number = kind == json::value_t::number_float;
  if (v && (v->type() == kind || (number && v->is_number()) ||
            (kind == json::value_t::number_integer && v->is_number_integer())))
    return v;
  std::string path;
  for (const char* k : keys) path += (path.empty() ? "" : ".") + std::string(k);
  fail(op, res, SkipReason::kMissingAttribute, "op_param.json of " + op.call.op_name + " has no usable '" + path + "'");
  return nullptr;
}

void take(AtbOp& op, size_t n) {
  op.call.inputs.assign(op.inputs.begin(), op.inputs.begin() + static_cast<ptrdiff_t>(std::min(n, op.inputs.size())));
}

constexpr auto kBool = json::value_t::boolean;
constexpr auto kInt = json::value_t::number_integer;
constexpr auto kFloat = json::value_t::number_float;
constexpr auto kArray = json::value_t::array;

bool linear_params(AtbOp& op, OpCheckResult& res) {
  const json* ta = need(op, res, {"transposeA"}, kBool);
  const json* tb = ta ? need(op, res, {"transposeB"}, kBool) : nullptr;
  const json* bias = tb ? need(op, res, {"hasBias"}, kBool) : nullptr;
  if (!bias) return false;
  const json* acc = member(op.param, {"enAccum"});
  if (acc && acc->is_boolean() && acc->get<bool>())
    return fail(op, res, SkipReason::kUnknownOp,
                "a Linear with enAccum (accumulating into its output) is not in the recomputed set");
  for (const char* k : {"matmulType", "quantMode"}) {
    const json* v = member(op.param, {k});
    if (v && v->is_number_integer() && v->get<int64_t>() != 0)
      return fail(op, res, SkipReason::kUnknownOp,
                  std::string("a Linear with ") + k + " != 0 is not in the recomputed set");
  }
  OpParams& p = op.call.params;
  p.transpose_b = tb->get<bool>();
  p.has_bias = bias->get<bool>();
  if (ta->get<bool>()) {
    p.transpose_a = true;
    op.call.kind = OpKind::kMatMul;  // a transposed x is 2-D: [K, M]
  }
  take(op, p.has_bias ? 3 : 2);
  return true;
}

bool elewise_params(AtbOp& op, OpCheckResult& res) {
  const json* t = need(op, res, {"elewiseType"}, kInt);
  if (!t) return false;
  // ATB's ElewiseParam::ElewiseType numbering (infer_op_params.h).
  switch (t->get<int64_t>()) {
    case 1:
      op.call.kind = OpKind::kCast;
      take(op, 1);
      return true;
    case 2: {
      const json* v = need(op, res, {"mulsParam", "varAttr"}, kFloat);
      if (!v) return false;
      op.call.kind = OpKind::kMuls;
      op.call.params.scalar = static_cast<float>(v->get<double>());
      take(op, 1);
      return true;
    }
    case 8: op.call.kind = OpKind::kAdd; break;
    case 9: op.call.kind = OpKind::kMul; break;
    case 10: op.call.kind = OpKind::kDiv; break;
    case 15: op.call.kind = OpKind::kSub; break;
    default:
      return fail(op, res, SkipReason::kUnknownOp,
                  "elewiseType " + std::to_string(t->get<int64_t>()) + " is not in the recomputed set");
  }
  take(op, 2);
  return true;
}

// RmsNorm / LayerNorm: only the plain norm (layerType 1) without quantisation.
bool norm_params(AtbOp& op, OpCheckResult& res) {
  const bool layer = op.call.kind == OpKind::kLayerNorm;
  const json* type = need(op, res, {"layerType"}, kInt);
  if (!type) return false;
  if (type->get<int64_t>() != 1)
    return fail(op, res, SkipReason::kUnknownOp,
                "layerType " + std::to_string(type->get<int64_t>()) + " (pre/post norm) is not in the recomputed set");
  const json* q = member(op.param, {"normParam", "quantType"});
  if (q && q->is_number_integer() && q->get<int64_t>() != 0)
    return fail(op, res, SkipReason::kUnknownOp, "a quantised norm is not in the recomputed set");
  const json* model = member(op.param, {"normParam", "modelType"});
  if (model && model->is_number_integer() && model->get<int64_t>() != 0)
    return fail(op, res, SkipReason::kUnknownOp,
                "an RmsNorm of modelType " + std::to_string(model->get<int64_t>()) +
                    " (gamma + 1) is not in the recomputed set");
  const json* eps = need(op, res, {"normParam", "epsilon"}, kFloat);
  if (!eps) return false;
  op.call.params.epsilon = static_cast<float>(eps->get<double>());
  if (layer) {
    const json* ax = need(op, res, {"normParam", "beginNormAxis"}, kInt);
    if (!ax) return false;
    op.call.params.begin_norm_axis = ax->get<int64_t>();
  }
  take(op, layer ? 3 : 2);
  op.call.outputs.resize(std::min<size_t>(op.call.outputs.size(), 1));
  return true;
}

bool activation_params(AtbOp& op, OpCheckResult& res) {
  const json* t = need(op, res, {"activationType"}, kInt);
  if (!t) return false;
  take(op, 1);
  // ATB's ActivationType numbering: 1 relu, 2 gelu, 3 fast gelu, 4 swish, 5 log, ...
  switch (t->get<int64_t>()) {
    case 1: op.call.kind = OpKind::kRelu; return true;
    case 2: {
      const json* mode = need(op, res, {"geluMode"}, kInt);
      if (!mode) return false;
      op.call.kind = mode->get<int64_t>() == 0 ? OpKind::kGeluTanh : OpKind::kGeluErf;
      return true;
    }
    case 4: {
      const json* s = need(op, res, {"scale"}, kFloat);
      if (!s) return false;
      op.call.kind = OpKind::kSilu;
      op.call.params.scale = static_cast<float>(s->get<double>());
      return true;
    }
    case 5: op.call.kind = OpKind::kLog; return true;
    default:
      return fail(op, res, SkipReason::kUnknownOp,
                  "activationType " + std::to_string(t->get<int64_t>()) + " is not in the recomputed set");
  }
}

std::vector<int64_t> ints(const json& a) {
  std::vector<int64_t> v;
  for (const auto& x : a) v.push_back(x.is_number_integer() ? x.get<int64_t>() : 0);
  return v;
}

bool shape_params(AtbOp& op, OpCheckResult& res) {
  OpParams& p = op.call.params;
  switch (op.call.kind) {
    case OpKind::kSoftmax: {
      const json* a = need(op, res, {"axes"}, kArray);
      if (a) p.axes = ints(*a), take(op, 1);
      return a != nullptr;
    }
    case OpKind::kTranspose: {
      const json* a = need(op, res, {"perm"}, kArray);
      if (a) p.perm = ints(*a), take(op, 1);
      return a != nullptr;
    }
    case OpKind::kConcat: {
      const json* d = need(op, res, {"concatDim"}, kInt);
      if (d) p.axis = d->get<int64_t>(), take(op, op.inputs.size());
      return d != nullptr;
    }
    case OpKind::kGather: {
      const json* ax = need(op, res, {"axis"}, kInt);
      const json* bd = ax ? need(op, res, {"batchDims"}, kInt) : nullptr;
      if (!bd) return false;
      if (bd->get<int64_t>() != 0)
        return fail(op, res, SkipReason::kUnknownOp, "a Gather with batchDims != 0 is not in the recomputed set");
      p.axis = ax->get<int64_t>();
      take(op, 2);
      return true;
    }
    default: break;
  }
  const json* dim = need(op, res, {"splitDim"}, kInt);  // kSplit
  const json* num = dim ? need(op, res, {"splitNum"}, kInt) : nullptr;
  if (!num) return false;
  p.axis = dim->get<int64_t>();
  take(op, 1);
  const json* sizes = member(op.param, {"splitSizes"});
  if (sizes && sizes->is_array() && !sizes->empty()) {
    p.split_sizes = ints(*sizes);
    return true;
  }
  // No sizes: splitNum equal parts of the split dim.
  const auto& dims = op.inputs.empty() ? std::vector<uint64_t>{} : op.inputs[0].desc.original_shape;
  const int64_t n = num->get<int64_t>(), r = static_cast<int64_t>(dims.size());
  const int64_t d = p.axis < 0 ? p.axis + r : p.axis;
  if (n <= 0 || d < 0 || d >= r || dims[static_cast<size_t>(d)] % static_cast<uint64_t>(n) != 0)
    return fail(op, res, SkipReason::kShapeMismatch, "splitNum does not divide the split dim");
  p.split_sizes.assign(static_cast<size_t>(n),
                       static_cast<int64_t>(dims[static_cast<size_t>(d)] / static_cast<uint64_t>(n)));
  return true;
}

std::optional<OpKind> kind_of_atb_type(std::string_view t) {
  static const std::map<std::string_view, OpKind> kTypes = {
      {"LinearOperation", OpKind::kLinear},       {"ElewiseOperation", OpKind::kAdd},
      {"RmsNormOperation", OpKind::kRmsNorm},     {"LayerNormOperation", OpKind::kLayerNorm},
      {"ActivationOperation", OpKind::kRelu},     {"SoftmaxOperation", OpKind::kSoftmax},
      {"TransposeOperation", OpKind::kTranspose}, {"ConcatOperation", OpKind::kConcat},
      {"SplitOperation", OpKind::kSplit},         {"GatherOperation", OpKind::kGather},
  };
  auto it = kTypes.find(t);
  if (it == kTypes.end()) return std::nullopt;
  return it->second;
}

bool atb_params(AtbOp& op, OpCheckResult& res) {
  switch (op.call.kind) {
    case OpKind::kLinear: return linear_params(op, res);
    case OpKind::kAdd: return elewise_params(op, res);
    case OpKind::kRmsNorm:
    case OpKind::kLayerNorm: return norm_params(op, res);
    case OpKind::kRelu: return activation_params(op, res);
    default: return shape_params(op, res);
  }
}

}  // namespace

bool is_atb_op_dir(const std::string& dir) {
  std::error_code ec;
  return fs::is_directory(fs::path(dir) / "after", ec) || fs::is_directory(fs::path(dir) / "before", ec);
}

FrontEnd atb_front_end(const std::string& dir) {
  AtbOp op;
  OpCall& c = op.call;
  const std::string base = fs::path(dir).lexically_normal().filename().string().empty()
                               ? fs::path(dir).lexically_normal().parent_path().filename().string()
                               : fs::path(dir).lexically_normal().filename().string();
  const size_t us = base.find('_');
  c.op_name = base;
  c.op_type = us == std::string::npos ? base : base.substr(us + 1);
  auto inputs = tensor_files(fs::path(dir) / "before", "intensor");
  for (auto& [k, f] : tensor_files(fs::path(dir) / "after", "intensor")) inputs.emplace(k, f);  // before/ wins
  const auto outputs = tensor_files(fs::path(dir) / "after", "outtensor");
  for (const auto& [k, f] : inputs) {
    if (k != static_cast<int64_t>(op.inputs.size())) break;  // a gap: the rest is not the op's order
    auto t = open_bin(f, Role::kInput, static_cast<uint32_t>(k));
    if (!t.ok()) return not_recomputed(c, SkipReason::kUnreadable, t.error().to_string());
    op.inputs.push_back(std::move(*t));
  }
  for (const auto& [k, f] : outputs) {
    if (k != static_cast<int64_t>(c.outputs.size())) break;
    auto t = open_bin(f, Role::kOutput, static_cast<uint32_t>(k));
    if (!t.ok()) return not_recomputed(c, SkipReason::kUnreadable, t.error().to_string());
    c.outputs.push_back(std::move(*t));
  }
  auto kind = kind_of_atb_type(c.op_type);
  if (!kind)
    return not_recomputed(c, SkipReason::kUnknownOp,
                          "ATB op type " + c.op_type + " is not in the recomputed set (docs/opcheck.md)");
  c.kind = *kind;
  const std::string param_path = (fs::path(dir) / "op_param.json").string();
  auto text = read_small_file(param_path, kMaxParamBytes);
  if (!text.ok())
    return not_recomputed(
        c, SkipReason::kMissingAttribute,
        "the op's parameters are in op_param.json, which the dump does not have (" + text.error().to_string() + ")");
  op.param = json::parse(*text, nullptr, false);
  if (op.param.is_discarded() || !op.param.is_object())
    return not_recomputed(c, SkipReason::kMissingAttribute, param_path + ": not a JSON object");
  OpCheckResult res;
  if (!atb_params(op, res)) return res;
  return c;
}

}  // namespace msit::opcheck
