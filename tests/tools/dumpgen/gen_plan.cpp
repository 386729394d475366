// Realistic shapes, names and directory layouts of torchair GE/FX dumps for the tree command.
#include "tests/tools/dumpgen/gen_plan.h"

#include <stdexcept>

#include "tests/tools/dumpgen/gen_layout.h"

namespace dumpgen {

namespace {

std::vector<uint64_t> shape_with_numel(Rng& rng, uint64_t n) {
  int rank = 1 + static_cast<int>(rng.below(4));
  std::vector<uint64_t> s;
  uint64_t rest = n;
  for (int i = 0; i + 1 < rank; ++i) {
    std::vector<uint64_t> divs;
    for (uint64_t d = 1; d <= 16 && d <= rest; ++d) {
      if (rest % d == 0) divs.push_back(d);
    }
    uint64_t d = rng.pick(divs);
    s.push_back(d);
    rest /= d;
  }
  s.push_back(rest);
  return s;
}

uint64_t pick_numel(Rng& rng, uint64_t max_elements) {
  double u = rng.uniform();
  if (u < 0.35) {  // around the sketch width: values vs sketch boundary
    static const std::vector<uint64_t> edges = {1, 2, 3, 127, 128, 129};
    return rng.chance(0.5) ? rng.pick(edges) : 1 + rng.below(kSketchWidth + 1);
  }
  if (u < 0.80) return 1 + rng.below(std::min<uint64_t>(4096, max_elements));
  return 1 + rng.below(max_elements);
}

Values pick_values(Rng& rng, const DTypeSpec& dt) {
  bool f = dt.kind == Kind::kFloat;
  double u = rng.uniform();
  if (u < 0.45) return Values::kNormal;
  if (u < 0.62) return f ? Values::kNonFinite : Values::kWide;
  if (u < 0.72) return f ? Values::kLargeMean : Values::kNormal;
  if (u < 0.80) return Values::kAllZero;
  if (u < 0.92) return Values::kWide;
  return Values::kConstant;
}

// Logical shape for a device format, sized so the padded device tensor stays small.
std::vector<uint64_t> device_logical_shape(Rng& rng, int fmt) {
  auto r = [&](uint64_t lo, uint64_t hi) { return lo + rng.below(hi - lo + 1); };
  switch (fmt) {
    case kFmtFractalNZ: {
      std::vector<uint64_t> s;
      int batch = static_cast<int>(rng.below(3));
      for (int i = 0; i < batch; ++i) s.push_back(r(1, 3));
      if (rng.chance(0.15)) return {r(1, 200)};  // rank 1: n = 1
      s.push_back(r(1, 70));
      s.push_back(r(1, 150));
      return s;
    }
    case kFmtNC1HWC0: return {r(1, 3), r(1, 40), r(1, 7), r(1, 7)};
    case kFmtNDC1HWC0: return {r(1, 2), r(1, 40), r(1, 3), r(1, 5), r(1, 5)};
    case kFmtFractalZ: return {r(1, 40), r(1, 40), r(1, 3), r(1, 3)};
    default: return {r(1, 4), r(1, 8), r(1, 8), r(1, 8)};  // plain NCHW
  }
}

const DTypeSpec& fx_dtype(const DTypeSpec& dt) {
  // torchair stores bf16 (and we store fp8) as float32 npy (docs/formats/fx-npy.md §1).
  if (dt.npy_descr.empty()) return *find_dtype("float32");
  return dt;
}

}  // namespace

TensorPlan plan_tensor(Rng& rng, const PlanLimits& lim, bool ge) {
  TensorPlan p;
  p.dtype = rng.pick(lim.dtypes);
  if (lim.favour_floats && rng.chance(0.6)) {  // real dumps are mostly fp16/bf16/fp32
    static const std::vector<std::string> common = {"float16", "bfloat16", "float32"};
    p.dtype = find_dtype(rng.pick(common));
  }
  if (!ge) p.dtype = &fx_dtype(*p.dtype);
  p.values = pick_values(rng, *p.dtype);
  p.format = kFmtND;
  bool float_like = p.dtype->name == "float16" || p.dtype->name == "bfloat16" || p.dtype->name == "float32";
  double u = rng.uniform();
  if (ge && float_like && u < 0.3) {
    static const std::vector<int> fmts = {kFmtFractalNZ, kFmtFractalNZ, kFmtNC1HWC0,
                                          kFmtNDC1HWC0,  kFmtFractalZ,  kFmtNCHW};
    p.format = rng.pick(fmts);
    p.original_shape = device_logical_shape(rng, p.format);
    p.nan_padding = rng.chance(0.3);
  } else if (u < 0.30) {
    p.original_shape = {};  // scalar
  } else if (u < 0.35) {
    p.original_shape = shape_with_numel(rng, 1 + rng.below(8));
    p.original_shape[rng.below(p.original_shape.size())] = 0;  // empty tensor
  } else {
    p.original_shape = shape_with_numel(rng, pick_numel(rng, lim.max_elements));
  }
  if (ge && rng.chance(0.1)) p.surplus = 1 + rng.below(63);  // alignment surplus
  return p;
}

GenTensor make_tensor(Rng& rng, const TensorPlan& plan) {
  auto vals = generate_values(rng, *plan.dtype, plan.values, numel(plan.original_shape));
  return build_tensor(rng, plan, vals);
}

GeOp random_ge_op(Rng& rng, const PlanLimits& lim, uint64_t seq) {
  static const std::vector<std::string> types = {"Add",       "MatMul",   "Cast",      "TransData", "Mul",
                                                 "SoftmaxV2", "ConcatV2", "LayerNorm", "RealDiv"};
  GeOp op;
  double u = rng.uniform();
  if (u < 0.1) {  // fused: plain concatenation of component op names (docs/formats/ge-dump.md §1)
    op.type = "AutomaticBufferFusionOp";
    op.name = "Add_" + std::to_string(seq) + "Cast_" + std::to_string(seq + 1) + "ConcatV2";
  } else if (u < 0.2) {  // dotted op name, e.g. TransData_1.1
    op.type = "TransData";
    op.name = "TransData_" + std::to_string(seq) + "." + std::to_string(1 + rng.below(3));
  } else {
    op.type = rng.pick(types);
    op.name = op.type + "_" + std::to_string(seq);
  }
  op.task_id = 1 + rng.below(5000);
  op.stream_id = rng.below(16);
  op.timestamp = ts_us16(seq * 1000 + rng.below(1000));
  if (rng.chance(0.1)) op.timestamp = op.timestamp.substr(0, 14);  // msit's 14-digit test data
  op.inputs_first = rng.chance(0.1);
  op.packed_dims = !rng.chance(0.1);
  uint64_t n_in = 1 + rng.below(3), n_out = 1 + rng.below(2);
  for (uint64_t i = 0; i < n_in + n_out; ++i) {
    GenTensor t = make_tensor(rng, plan_tensor(rng, lim, true));
    t.wire_original_shape = is_device_format(t.format) || !rng.chance(0.2);
    bool in = i < n_in;
    t.role = in ? "input" : "output";
    t.index = static_cast<int>(in ? i : i - n_in);
    (in ? op.inputs : op.outputs).push_back(std::move(t));
  }
  return op;
}

std::vector<FxFile> random_fx_node(Rng& rng, const PlanLimits& lim, uint64_t seq) {
  static const std::vector<std::pair<std::string, std::string>> kinds = {{"mm", "aten.mm.default"},
                                                                         {"add", "aten.add.Tensor"},
                                                                         {"_to_copy", "aten._to_copy.default"},
                                                                         {"_softmax", "aten._softmax.default"},
                                                                         {"cat", "aten.cat.default"},
                                                                         {"mul", "aten.mul.Tensor"}};
  const auto& [node, target] = rng.pick(kinds);
  std::string base = node + "_" + std::to_string(seq) + "-" + target;
  std::string ts = ts20(seq * 1000 + rng.below(1000));
  std::vector<FxFile> files;
  auto add = [&](const std::string& mid, const char* role, int index, std::optional<int> sub) {
    FxFile f{base + mid + "." + ts + ".npy", make_tensor(rng, plan_tensor(rng, lim, false))};
    f.tensor.role = role;
    f.tensor.index = index;
    f.tensor.sub_index = sub;
    files.push_back(std::move(f));
  };
  if (node == "cat") {  // list argument: INPUT.0.j
    for (int j = 0, n = 2 + static_cast<int>(rng.below(2)); j < n; ++j) {
      add(".INPUT.0." + std::to_string(j), "input", 0, j);
    }
    add(".INPUT.1", "input", 1, std::nullopt);
  } else {
    int n_in = node == "_to_copy" || node == "_softmax" ? 1 : 2;
    for (int i = 0; i < n_in; ++i) add(".INPUT." + std::to_string(i), "input", i, std::nullopt);
  }
  add(".OUTPUT.0", "output", 0, std::nullopt);
  return files;
}

}  // namespace dumpgen
