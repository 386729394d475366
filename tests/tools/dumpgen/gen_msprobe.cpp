// The msProbe generator's model run (gen_msprobe.h): the chain of `msit-dumpgen model` as msProbe
// API calls on both sides, per step and rank; modules, backward entries, the scenario.
#include "tests/tools/dumpgen/gen_msprobe.h"

#include <array>
#include <cmath>
#include <map>
#include <optional>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "tests/tools/dumpgen/gen_files.h"
#include "tests/tools/dumpgen/gen_msprobe_rank.h"
#include "tests/tools/dumpgen/model_noise.h"
#include "tests/tools/dumpgen/model_ops.h"

namespace dumpgen {
namespace {

struct Run {
  const MsprobeGenOptions& o;
  std::vector<ModelOp> ops;
  std::vector<Mat> params;
  KernelNoise kn;
  int inject = -1;
  size_t block = 5;         // ops per module (level mix)
  size_t first_block = 0;   // ops before the first module (llama: the embedding)
  nlohmann::json manifest;  // "files", "json_files"
};

void round_dtype(std::vector<double>& v, const std::string& dtype) {
  if (dtype == "float32") {
    for (double& x : v) x = static_cast<float>(x);
  } else {
    round_values(v, dtype);
  }
}

std::string module_name(const Run& r, const std::string& fw, size_t i) {
  if (r.o.level != "mix" || i < r.first_block) return "";
  const size_t layer = (i - r.first_block) / r.block;
  return std::string(fw == "pytorch" ? "Module" : "Cell") + ".layers." + std::to_string(layer) + ".Block";
}

bool ends_block(const Run& r, size_t i) {
  return r.o.level == "mix" && i >= r.first_block && ((i - r.first_block + 1) % r.block == 0 || i + 1 == r.ops.size());
}

Json kwargs_of(const ModelOp& op, const MsprobeRankWriter& w, const std::string& dtype) {
  Json k = Json::object();
  if (op.ge_type == "SoftmaxV2") k.set("dim", MsprobeRankWriter::scalar("int", Json::integer(-1)));
  if (op.ge_type == "Cast") k.set("dtype", w.dtype_leaf(dtype));
  if (op.ge_type == "MatMul" && w.framework() == "pytorch") k.set("out", Json::null());
  return k;
}

// A forward entry: input_args (activation, parameter), input_kwargs, output (docs/formats/msprobe.md §5).
// `t` = {activation, parameter (empty: none), output}; GatherV2's parameter is int64 token ids.
Json forward_body(MsprobeRankWriter& w, const ModelOp& op, const std::array<Mat, 3>& t, const std::string& name,
                  const std::string& dtype) {
  const bool int_param = op.ge_type == "GatherV2";
  Json body = Json::object();
  Json args = Json::array();
  args.add(w.record(t[0].v, t[0].shape, dtype, name + ".input.0", true));
  if (!t[1].v.empty()) {
    args.add(w.record(t[1].v, t[1].shape, int_param ? "int64" : dtype, name + ".input.1", !int_param));
  }
  body.set("input_args", std::move(args));
  body.set("input_kwargs", kwargs_of(op, w, dtype));
  body.set("output", Json::array().add(w.record(t[2].v, t[2].shape, dtype, name + ".output.0", true)));
  if (w.generation() < 26) body.set("is_recompute", Json::boolean(false));
  return body;
}

// The backward entries, last op first: gradients are random (the same draws on both sides),
// the target's rounded to its dtype with kernel noise.
void write_backward(const Run& r, MsprobeRankWriter& w, bool target, const std::string& dtype, uint64_t seed,
                    const std::vector<std::string>& entries, const std::vector<Mat>& acts) {
  Rng grng(seed), nrng(seed ^ 0x9e3779b97f4a7c15ull), irng(seed + 13);
  auto grad = [&](const std::vector<uint64_t>& shape, size_t n, const std::string& stem, bool inject = false) {
    Mat g{shape, std::vector<double>(n)};
    for (double& x : g.v) x = grng.normal() * 0.01;
    if (target) add_relative_noise(g.v, r.o.noise, nrng);
    round_dtype(g.v, target ? dtype : "float32");
    if (inject) {
      inject_error(g, r.o.diverge_scale, irng);
      round_dtype(g.v, dtype);
    }
    return w.record(g.v, shape, target ? dtype : "float32", stem, false);
  };
  for (size_t k = r.ops.size(); k-- > 0;) {
    const std::string name = entries[k].substr(0, entries[k].size() - 7) + "backward";  // "forward" -> "backward"
    const Mat& in = acts[k];
    const Mat& out = acts[k + 1];
    Json body = Json::object();
    body.set("input", Json::array().add(grad(out.shape, out.v.size(), name + ".input.0")));
    Json outs = Json::array();
    outs.add(grad(in.shape, in.v.size(), name + ".output.0", target && static_cast<int>(k) == r.o.diverge_backward));
    if (!r.params[k].v.empty()) outs.add(Json::null());  // the parameter's gradient goes to parameters_grad
    body.set("output", std::move(outs));
    w.add_entry(name, std::move(body), "");
    if (r.o.level == "mix" && k >= r.first_block && (k - r.first_block) % r.block == 0) {
      std::string pg = module_name(r, w.framework(), k) + ".parameters_grad";
      if (r.o.generation >= 26) pg += ".0";
      const Mat& weight = r.params[k];  // the block's first op (MatMul) owns the block's weight
      Json body2 = Json::object();
      body2.set("weight", Json::array().add(grad(weight.shape, weight.v.size(), pg + ".weight")));
      w.add_entry(pg, std::move(body2), "");
    }
  }
}

void run_rank(Run& r, bool target, int step, int rank) {
  const MsprobeGenOptions& o = r.o;
  const std::string fw = target ? o.framework : (o.golden_framework.empty() ? o.framework : o.golden_framework);
  const std::string dtype = target ? o.dtype : "float32";
  const std::string rank_dir = o.proc_dirs ? "proc" + std::to_string(1000 + rank) : "rank" + std::to_string(rank);
  std::string rel = std::string(target ? "npu" : "bench") + (o.ms_split ? "/pynative" : "") + "/step" +
                    std::to_string(step) + "/" + rank_dir;
  MsprobeRankWriter w(o, fw, rel, r.manifest);
  // MindSpore PYNATIVE_GRAPH at level mix: the blocks are jit cells, dumped again in graph/ (a bare
  // `rank` folder on one card: msProbe's graph half renames rank0 when no RANK_ID is set).
  std::optional<MsprobeRankWriter> g;
  if (o.ms_split && o.level == "mix" && fw == "mindspore") {
    const std::string grank = o.ranks == 1 ? std::string("rank") : rank_dir;
    g.emplace(o, fw, std::string(target ? "npu" : "bench") + "/graph/step" + std::to_string(step) + "/" + grank,
              r.manifest);
    g->graph_half();
  }
  const uint64_t seed = o.seed * 1000003 + static_cast<uint64_t>(rank) * 7919 + static_cast<uint64_t>(step);
  Rng rng(seed), irng(seed + 11), nrng(seed * 2654435761ull + 17);
  Mat act = random_mat(rng, static_cast<uint64_t>(o.rows), static_cast<uint64_t>(o.hidden), 1.0, true);
  round_dtype(act.v, dtype);
  std::map<std::string, int> counters;
  std::vector<std::string> entries;
  std::vector<Mat> acts{act};
  Mat block_in = act;
  for (size_t i = 0; i < r.ops.size(); ++i) {
    const ModelOp& op = r.ops[i];
    std::vector<Mat> ins{act};
    Mat param = r.params[i];
    const bool int_param = op.ge_type == "GatherV2";  // token ids
    if (!param.v.empty() && !int_param) round_dtype(param.v, dtype);
    if (!param.v.empty()) ins.push_back(param);
    Mat y = target && (o.noise > 0 || !o.reduced.empty()) ? ge_kernel(op, ins, r.kn, nrng) : op_math(op, ins);
    round_dtype(y.v, dtype);
    Mat clean = y;
    if (target && static_cast<int>(i) == r.inject) {
      inject_error(y, o.diverge_scale, irng);
      round_dtype(y.v, dtype);
    }
    if (target && static_cast<int>(i) == o.nan_at && y.v.size() > 1) {
      y.v[0] = NAN;
      y.v[1] = INFINITY;
    }
    const std::string api = msprobe_api_name(op.ge_type, fw);
    const std::string name = api + "." + std::to_string(counters[api]++) + ".forward";
    Json body = forward_body(w, op, {act, param, y}, name, dtype);
    const std::string parent = module_name(r, fw, i);
    w.add_entry(name, std::move(body), parent.empty() ? "" : parent + ".forward.0");
    entries.push_back(name);
    act = target && o.diverge_local && static_cast<int>(i) == r.inject ? clean : y;
    acts.push_back(act);
    if (ends_block(r, i)) {  // the module's entry follows its children (docs/formats/msprobe.md §4)
      const std::string mod = module_name(r, fw, i) + ".forward.0";
      w.add_entry(mod, forward_body(w, ModelOp{}, {block_in, Mat{}, act}, mod, dtype), "");
      if (g) g->add_entry(mod, forward_body(*g, ModelOp{}, {block_in, Mat{}, act}, mod, dtype), "");
      block_in = act;
    }
  }
  if (o.backward) write_backward(r, w, target, dtype, seed + 101, entries, acts);
  w.finish();
  if (g) g->finish();
}

int injection_index(const MsprobeGenOptions& o, const std::vector<ModelOp>& ops) {
  if (o.diverge_type.empty()) return o.diverge_at;
  int seen = 0;
  for (size_t i = 0; i < ops.size(); ++i) {
    if (ops[i].ge_type == o.diverge_type && seen++ == o.diverge_nth) return static_cast<int>(i);
  }
  throw std::runtime_error("msprobe: no op number " + std::to_string(o.diverge_nth) + " of type " + o.diverge_type);
}

void check(const MsprobeGenOptions& o) {
  if (o.out.empty() || o.steps < 1 || o.ranks < 1 || o.ops < 1 || o.hidden < 4 || o.rows < 1)
    throw std::runtime_error("msprobe: --out, and --steps, --ranks, --ops, --rows >= 1, --hidden >= 4 are needed");
  if (o.proc_dirs && o.ranks != 1) throw std::runtime_error("msprobe: --proc needs --ranks 1");
  if (o.chain == "llama" && o.hidden % static_cast<int>(kHeads) != 0)
    throw std::runtime_error("msprobe: --chain llama needs --hidden divisible by 4");
}

}  // namespace

std::string msprobe_api_name(const std::string& ge_type, const std::string& framework) {
  struct Names {
    const char* ge;
    const char* pt;
    const char* ms;
  };
  static const Names kNames[] = {
      {"MatMul", "Torch.matmul", "Mint.matmul"},
      {"Add", "Tensor.__add__", "Tensor.__add__"},
      {"Cast", "Tensor.to", "Tensor.to"},
      {"SoftmaxV2", "Functional.softmax", "MintFunctional.softmax"},
      {"Mul", "Torch.mul", "Mint.mul"},
      {"GatherV2", "Functional.embedding", "MintFunctional.embedding"},
      {"RmsNorm", "NPU.npu_rms_norm", "Primitive.norm.RmsNorm"},
      {"Reshape", "Tensor.view", "Tensor.view"},
      {"Transpose", "Torch.transpose", "Mint.transpose"},
      {"BatchMatMul", "Torch.bmm", "Mint.bmm"},
  };
  for (const Names& n : kNames) {
    if (ge_type == n.ge) return framework == "pytorch" ? n.pt : n.ms;
  }
  throw std::runtime_error("msprobe: no API name for op type " + ge_type);
}

uint64_t write_msprobe_dump(const MsprobeGenOptions& o) {
  check(o);
  Run r{o, {}, {}, {}, -1, 5, 0, nlohmann::json::object()};
  for (ModelOp& op : o.chain == "llama" ? make_llama_chain(o.ops) : make_chain(o.ops, false)) {
    if (op.in_graph) r.ops.push_back(std::move(op));  // TransData is a GE-only op: no API call
  }
  if (o.chain == "llama") {
    r.block = 15;
    r.first_block = 1;
  }
  r.kn.level = o.noise;
  r.kn.reduced = parse_reduced(o.reduced);
  r.kn.out_dtype = "float32";
  r.inject = injection_index(o, r.ops);
  if (o.diverge_backward >= static_cast<int>(r.ops.size()) || (o.diverge_backward >= 0 && !o.backward))
    throw std::runtime_error("msprobe: --diverge-backward needs --backward and an op index below " +
                             std::to_string(r.ops.size()));
  Rng prng(o.seed);
  for (const ModelOp& op : r.ops) r.params.push_back(param_for(op, o.rows, o.hidden, prng));
  r.manifest["files"] = nlohmann::json::array();
  r.manifest["json_files"] = nlohmann::json::array();
  for (bool target : {true, false}) {
    for (int s = 0; s < o.steps; ++s) {
      for (int k = 0; k < o.ranks; ++k) run_rank(r, target, s, k);
    }
  }
  nlohmann::json ops = nlohmann::json::array();
  std::map<std::string, int> counters;
  for (size_t i = 0; i < r.ops.size(); ++i) {
    const std::string api = msprobe_api_name(r.ops[i].ge_type, o.framework);
    ops.push_back({{"index", i},
                   {"ge_type", r.ops[i].ge_type},
                   {"entry", api + "." + std::to_string(counters[api]++) + ".forward"},
                   {"injected", static_cast<int>(i) == r.inject}});
  }
  nlohmann::json scenario{{"framework", o.framework},
                          {"golden_framework", o.golden_framework.empty() ? o.framework : o.golden_framework},
                          {"task", o.task},
                          {"summary_mode", o.summary_mode},
                          {"generation", o.generation},
                          {"level", o.level},
                          {"steps", o.steps},
                          {"ranks", o.ranks},
                          {"target_dtype", o.dtype},
                          {"noise", o.noise},
                          {"diverge_scale", o.diverge_scale},
                          {"diverge_local", o.diverge_local},
                          {"npu_root", "npu"},
                          {"bench_root", "bench"},
                          {"first_divergence", r.inject >= 0 ? ops[static_cast<size_t>(r.inject)]["entry"] : nullptr},
                          {"ops", ops}};
  if (o.diverge_backward >= 0) {  // "X.n.forward" -> "X.n.backward"
    const std::string fw = ops[static_cast<size_t>(o.diverge_backward)]["entry"].get<std::string>();
    scenario["first_divergence_backward"] = fw.substr(0, fw.size() - 7) + "backward";
  }
  write_file(o.out + "/scenario.json", scenario.dump(1) + "\n");
  write_file(o.out + "/manifest.json", r.manifest.dump(1) + "\n");
  return r.manifest["files"].size();
}

}  // namespace dumpgen
