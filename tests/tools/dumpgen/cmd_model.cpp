// `msit-dumpgen model`: a toy op chain dumped twice, FX golden (float32 npy) and GE (fp16 with
// rounding noise, graph text with `_fx_tensor_name`), with an optional injected divergence.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "tests/tools/dumpgen/commands.h"
#include "tests/tools/dumpgen/gen_files.h"
#include "tests/tools/dumpgen/gen_layout.h"
#include "tests/tools/dumpgen/graph_text.h"
#include "tests/tools/dumpgen/model_noise.h"
#include "tests/tools/dumpgen/model_ops.h"

namespace dumpgen {

namespace {

struct Ctx {
  const ModelOptions& o;
  std::vector<ModelOp> ops;
  std::vector<Mat> params;  // per op: weight / bias / scale (empty for unary ops)
  nlohmann::json metrics = nlohmann::json::array();
  KernelNoise kn;              // used in kernel mode only
  std::vector<int> out_fp32;   // kernel mode: per op, GE output dtype (for the graph text)
  std::vector<Mat> out_shape;  // kernel mode: per op, an empty Mat with the output shape
};

std::string ge_dir(const ModelOptions& o, int rank, int token) {
  std::string d = o.out + "/msit_ge_dump/";
  if (o.ge_layout == "rank") {
    d += "worldsize" + std::to_string(o.ranks) + "_global_rank" + std::to_string(rank) + "/";
  }
  return d + time14(0) + "/" + std::to_string(rank) + "/graph_1_0/1/" + std::to_string(token);
}

std::string fx_dir(const ModelOptions& o, int rank, int token, const std::string& gm) {
  if (o.fx_layout == "rank") {
    return o.out + "/msit_fx_dump/worldsize" + std::to_string(o.ranks) + "_global_rank" + std::to_string(rank) + "/" +
           gm + "/" + std::to_string(token);
  }
  return o.out + "/msit_fx_dump/data_dump/" + std::to_string(token + 1) + "/" + gm;  // off-by-one
}

GenTensor as_tensor(Rng& rng, const Mat& m, const char* dtype, int fmt, const char* role, int index) {
  TensorPlan p;
  p.dtype = find_dtype(dtype);
  p.original_shape = m.shape;
  p.format = fmt;
  GenTensor t = build_tensor(rng, p, m.v);
  t.role = role;
  t.index = index;
  return t;
}

// C++ default stream formatting (6 significant digits), as the host writes stats.
std::string stat_cell(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", static_cast<double>(static_cast<float>(v)));
  return buf;
}

// A statistics-mode line (docs/formats/ge-dump.md §8, default set: Count after Avg).
std::string stats_line(const char* role, size_t index, const Mat& m, const char* dtype) {
  double mx = -HUGE_VAL, mn = HUGE_VAL, sum = 0;
  for (double x : m.v) {
    mx = std::max(mx, x);
    mn = std::min(mn, x);
    sum += x;
  }
  std::string shape;
  for (uint64_t d : m.shape) shape += (shape.empty() ? "" : "x") + std::to_string(d);
  size_t esize = std::string(dtype) == "DT_FLOAT" ? 4 : 2;
  return std::string(role) + "," + std::to_string(index) + "," + std::to_string(m.v.size() * esize) + "," + dtype +
         ",ND," + (shape.empty() ? "-" : shape) + "," + stat_cell(mx) + "," + stat_cell(mn) + "," +
         stat_cell(sum / static_cast<double>(std::max<size_t>(1, m.v.size()))) + "," + std::to_string(m.v.size()) +
         ",0,0,0\n";
}

std::string stats_csv(const std::vector<Mat>& ins, const Mat& out) {
  std::string s =
      "Input/Output,Index,Data Size,Data Type,Format,Shape,Max Value,Min Value,Avg Value,Count,"
      "Nan Count,Negative Inf Count,Positive Inf Count\n";
  for (size_t k = 0; k < ins.size(); ++k) s += stats_line("Input", k, ins[k], ins[k].fp32 ? "DT_FLOAT" : "DT_FLOAT16");
  return s + stats_line("Output", 0, out, out.fp32 ? "DT_FLOAT" : "DT_FLOAT16");
}

// GE file for op i (or a fused file spanning ops i..j), inputs then outputs.
void write_ge(Ctx& c, Rng& rng, const std::string& dir, const std::string& type, const std::string& name,
              const std::vector<Mat>& ins, const std::vector<int>& in_fmt, const Mat& out, const char* out_dtype,
              int out_fmt, uint64_t ts, uint64_t task) {
  GeOp op;
  op.type = type;
  op.name = name;
  op.task_id = task;
  op.stream_id = 2;
  op.timestamp = std::to_string(ts);
  for (size_t k = 0; k < ins.size(); ++k) {
    const char* dt = ins[k].fp32 ? "float32" : "float16";
    op.inputs.push_back(as_tensor(rng, ins[k], dt, in_fmt[k], "input", static_cast<int>(k)));
  }
  op.outputs.push_back(as_tensor(rng, out, out_dtype, out_fmt, "output", 0));
  if (c.o.ge_stats) write_file(dir + "/" + ge_file_name(op) + ".csv", stats_csv(ins, out));
  else write_file(dir + "/" + ge_file_name(op), ge_file_bytes(op));
}

void write_fx(Rng& rng, const std::string& dir, const ModelOp& op, const std::vector<Mat>& ins, const Mat& out,
              const std::string& ts) {
  std::string base = op.fx_node + "-" + op.fx_target;
  for (size_t k = 0; k < ins.size(); ++k) {
    GenTensor t = as_tensor(rng, ins[k], "float32", kFmtND, "input", static_cast<int>(k));
    write_file(dir + "/" + base + ".INPUT." + std::to_string(k) + "." + ts + ".npy", npy_file_bytes(t));
  }
  GenTensor t = as_tensor(rng, out, "float32", kFmtND, "output", 0);
  write_file(dir + "/" + base + ".OUTPUT.0." + ts + ".npy", npy_file_bytes(t));
}

// One (rank, token) run of the chain on both sides.
void run_token(Ctx& c, int rank, int token, const std::string& gm) {
  const ModelOptions& o = c.o;
  const bool km = o.kernel_mode();
  Rng rng(o.seed * 1000003 + static_cast<uint64_t>(rank) * 7919 + static_cast<uint64_t>(token));
  // Kernel noise draws from its own stream, so the rest of the scenario does not depend on it.
  Rng nrng(o.seed * 2654435761ull + static_cast<uint64_t>(rank) * 104729 + static_cast<uint64_t>(token) + 17);
  const bool ge_in_fp32 = km && c.kn.out_dtype != "float16";
  Mat fx = random_mat(rng, o.rows, o.hidden, 1.0, true);
  Mat ge = round_to(fx, ge_in_fp32);
  std::string gdir = ge_dir(o, rank, token), fdir = fx_dir(o, rank, token, gm);
  make_dirs(gdir);
  make_dirs(fdir);
  uint64_t ts0 = 1748764800000000ull + static_cast<uint64_t>(token) * 1000000;
  std::vector<Mat> pending_ins;
  for (size_t i = 0; i < c.ops.size(); ++i) {
    const ModelOp& op = c.ops[i];
    std::vector<Mat> fx_ins = {fx}, ge_ins = {ge};
    if (!c.params[i].v.empty()) {
      fx_ins.push_back(c.params[i]);
      ge_ins.push_back(round_to(c.params[i], ge_in_fp32));
    }
    Mat fx_out = apply_op(op, fx_ins, true);
    Mat ge_out = km ? ge_kernel(op, ge_ins, c.kn, nrng) : apply_op(op, ge_ins, false);
    if (km && c.out_fp32[i] < 0) {
      c.out_fp32[i] = ge_out.fp32;
      c.out_shape[i].shape = ge_out.shape;
    }
    Mat ge_clean = ge_out;
    if (static_cast<int>(i) == o.diverge_at) inject_error(ge_out, o.diverge_scale, rng);
    uint64_t ts = ts0 + i * 100;
    if (!op.fx_node.empty())
      write_fx(rng, fdir, op, fx_ins, fx_out, ts20(static_cast<uint64_t>(token) * 1000000 + i * 100));
    std::vector<int> fmts(ge_ins.size(), kFmtND);
    if (op.ge_type == "MatMul" && o.nz_weights) fmts[1] = kFmtFractalNZ;
    int out_fmt = op.ge_type == "TransData" ? kFmtFractalNZ : kFmtND;
    const char* out_dt = ge_out.fp32 ? "float32" : "float16";
    if (op.fused_first) {
      pending_ins = ge_ins;
    } else if (op.fused_last) {
      const ModelOp& first = c.ops[i - 1];
      std::vector<int> f2(pending_ins.size(), kFmtND);
      write_ge(c, rng, gdir, "AutomaticBufferFusionOp", first.ge_name + op.ge_name, pending_ins, f2, ge_out, out_dt,
               out_fmt, ts, 10 + i);
    } else {
      write_ge(c, rng, gdir, op.ge_type, op.ge_name, ge_ins, fmts, ge_out, out_dt, out_fmt, ts, 10 + i);
    }
    c.metrics.push_back({{"rank", rank},
                         {"token", token},
                         {"op_index", i},
                         {"ge_op_name", op.ge_name},
                         {"cosine_similarity", cosine(fx_out, ge_out)},
                         {"relative_euclidean_distance", rel_euclid(fx_out, ge_out)}});
    fx = round_to(fx_out, true);
    ge = o.diverge_local ? ge_clean : ge_out;
  }
}

// The attributes opcheck reads for an op type (docs/formats/graph-text.md §2), as the model
// computes it (model_ops.cpp): no transposes, softmax over the last axis, RmsNorm's eps 1e-6.
std::vector<std::pair<std::string, std::string>> graph_attrs(const std::string& ge_type) {
  if (ge_type == "MatMul") return {{"transpose_x1", "b: false"}, {"transpose_x2", "b: false"}};
  if (ge_type == "BatchMatMul") return {{"adj_x1", "b: false"}, {"adj_x2", "b: false"}};
  if (ge_type == "SoftmaxV2") return {{"axes", "list {\n        i: -1\n      }"}};
  if (ge_type == "RmsNorm") return {{"epsilon", "f: 1e-06"}};
  return {};
}

void write_graphs(const Ctx& c) {
  const ModelOptions& o = c.o;
  std::vector<GraphOp> g;
  GraphOp data{"arg0_1", "Data", {}, {}, {}, {}};
  data.output_desc.push_back({"y", "DT_FLOAT16", {o.rows, o.hidden}, "ND", std::nullopt});
  g.push_back(data);
  std::string prev = "arg0_1";
  for (size_t i = 0; i < c.ops.size(); ++i) {
    const ModelOp& op = c.ops[i];
    if (!op.in_graph) continue;  // GE inserts TransData after the original graph is dumped
    GraphOp n{op.ge_name, op.ge_type, {prev + ":0"}, {}, {}, graph_attrs(op.ge_type)};
    if (!c.params[i].v.empty()) {
      std::string pname = "arg" + std::to_string(i + 1) + "_1";
      GraphOp p{pname, "Data", {}, {}, {}, {}};
      p.output_desc.push_back(
          {"y", "DT_FLOAT16", {c.params[i].shape.begin(), c.params[i].shape.end()}, "ND", std::nullopt});
      g.push_back(p);
      n.inputs.push_back(pname + ":0");
    }
    bool fp32 = c.out_fp32.empty() ? op.ge_type == "Cast" : c.out_fp32[i] == 1;
    std::vector<int64_t> shape = {o.rows, o.hidden};
    if (!c.out_shape.empty()) shape.assign(c.out_shape[i].shape.begin(), c.out_shape[i].shape.end());
    n.output_desc.push_back(
        {"y", fp32 ? "DT_FLOAT" : "DT_FLOAT16", shape, "ND", op.fx_node + "-" + op.fx_target + ".OUTPUT.0"});
    g.push_back(n);
    prev = op.ge_name;
  }
  std::string text = graph_text("graph_1", g);
  if (o.ge_layout == "rank") {
    for (int r = 0; r < o.ranks; ++r) {
      write_file(o.out + "/msit_ge_dump/dynamo_original_graph_1_rank_" + std::to_string(r) + "_pid_" +
                     std::to_string(1000 + r) + "_ts_" + ts20(static_cast<uint64_t>(r)) + ".txt",
                 text);
    }
  } else {
    write_file(o.out + "/msit_ge_dump/dynamo_original_graph_1_" + ts20(0) + ".txt", text);
  }
}

}  // namespace

int run_model(const ModelOptions& opts) {
  ModelOptions o = opts;
  if (o.ops < 1 || o.tokens < 1 || o.ranks < 1 || o.hidden < 1 || o.rows < 1) {
    throw std::runtime_error("model: --ops, --tokens, --ranks, --hidden, --rows must be >= 1");
  }
  if (o.fx_layout == "data-dump" && o.ranks != 1) {
    throw std::runtime_error("model: --fx-layout data-dump has no rank dirs; use --ranks 1");
  }
  if (o.chain == "llama" && o.fused) throw std::runtime_error("model: --fused needs --chain toy");
  if (o.chain == "llama" && o.hidden % static_cast<int>(kHeads) != 0) {
    throw std::runtime_error("model: --chain llama needs --hidden divisible by 4 (attention heads)");
  }
  if (o.noise < 0 || o.noise > 0.5) throw std::runtime_error("model: --noise must be in [0, 0.5]");
  Ctx c{o, o.chain == "llama" ? make_llama_chain(o.ops) : make_chain(o.ops, o.fused), {}, {}, {}, {}, {}};
  if (o.kernel_mode()) {
    c.kn.level = o.noise;
    c.kn.reduced = parse_reduced(o.reduced);
    c.kn.out_dtype = o.ge_dtype.empty() ? (o.chain == "llama" ? "float32" : "float16") : o.ge_dtype;
    c.out_fp32.assign(c.ops.size(), -1);
    c.out_shape.resize(c.ops.size());
  }
  if (!o.diverge_type.empty()) {
    int seen = 0;
    o.diverge_at = -1;
    for (size_t i = 0; i < c.ops.size() && o.diverge_at < 0; ++i) {
      if (c.ops[i].ge_type == o.diverge_type && seen++ == o.diverge_nth) o.diverge_at = static_cast<int>(i);
    }
    if (o.diverge_at < 0) {
      throw std::runtime_error("model: no op number " + std::to_string(o.diverge_nth) + " of type " + o.diverge_type +
                               " in the chain");
    }
  }
  Rng prng(o.seed);
  for (const auto& op : c.ops) c.params.push_back(param_for(op, o.rows, o.hidden, prng));
  std::string gm = "gm_" + ts20(42) + "_dump";
  for (int r = 0; r < o.ranks; ++r)
    for (int t = 0; t < o.tokens; ++t) run_token(c, r, t, gm);
  write_graphs(c);
  nlohmann::json ops = nlohmann::json::array();
  nlohmann::json first = nullptr;
  for (size_t i = 0; i < c.ops.size(); ++i) {
    const ModelOp& op = c.ops[i];
    nlohmann::json j = {
        {"index", i},
        {"ge_type", op.ge_type},
        {"ge_name", op.ge_name},
        {"ge_file_op_name", op.file_op_name},
        {"in_graph", op.in_graph},
        {"fx_node", op.fx_node.empty() ? nlohmann::json() : nlohmann::json(op.fx_node + "-" + op.fx_target)},
        {"diverged", o.diverge_at >= 0 && (o.diverge_local ? static_cast<int>(i) == o.diverge_at
                                                           : static_cast<int>(i) >= o.diverge_at)}};
    if (static_cast<int>(i) == o.diverge_at) first = j;
    ops.push_back(j);
  }
  nlohmann::json s = {{"tool", "msit-dumpgen"},
                      {"command", "model"},
                      {"ge_root", "msit_ge_dump"},
                      {"fx_root", "msit_fx_dump"},
                      {"ge_layout", o.ge_layout},
                      {"fx_layout", o.fx_layout},
                      {"ranks", o.ranks},
                      {"tokens", o.tokens},
                      {"fused", o.fused},
                      {"seed", o.seed},
                      {"diverge_at", o.diverge_at},
                      {"diverge_scale", o.diverge_scale},
                      {"diverge_local", o.diverge_local},
                      {"first_divergence", first},
                      {"ops", ops},
                      {"metrics", c.metrics}};
  if (o.kernel_mode()) {
    s["chain"] = o.chain;
    s["noise"] = o.noise;
    s["ge_dtype"] = c.kn.out_dtype;
    s["reduced"] = c.kn.reduced;
  }
  write_file(o.out + "/scenario.json", s.dump(1));
  std::printf("model: %d ops x %d tokens x %d ranks under %s (first divergence: %s)\n", o.ops, o.tokens, o.ranks,
              o.out.c_str(), first.is_null() ? "none" : first["ge_name"].get<std::string>().c_str());
  return 0;
}

}  // namespace dumpgen
