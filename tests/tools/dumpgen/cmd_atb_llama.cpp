// `msit-dumpgen atb --model llama` (docs/dumpgen.md "atb --model llama"): a Llama-like decoder
// dumped as msit's torch hooks write it (float32 .pth, HF module names, model_tree.json) and as
// ATB + msit's probe write it (.bin, model and layer topology JSONs), the ATB side through the
// kernel-noise model shared with `msit-dumpgen model` (model_noise.h), with an optional error
// injected into the n-th op of one ATB op type.
#include <cmath>
#include <cstdio>
#include <map>
#include <stdexcept>

#include "tests/tools/dumpgen/commands.h"
#include "tests/tools/dumpgen/gen_atb_bin.h"
#include "tests/tools/dumpgen/gen_files.h"
#include "tests/tools/dumpgen/gen_pth.h"
#include "tests/tools/dumpgen/gen_tensor.h"
#include "tests/tools/dumpgen/model_noise.h"

namespace dumpgen {
namespace {

using Vec = std::vector<double>;
using Json = nlohmann::ordered_json;

// One leaf op of a decoder layer: ATB type, torch module (below model.layers.{i}) and class.
struct Leaf {
  std::string atb_type, torch_name, torch_class;
  std::string noise_type;  // the GE type whose noise level the ATB kernel has (model_noise.cpp)
};

// Execution order inside one layer; the ATB directory of leaf k is `{k}_{atb_type}`.
const std::vector<Leaf>& leaves() {
  static const std::vector<Leaf> v = {
      {"RmsNormOperation", "input_layernorm", "LlamaRMSNorm", "RmsNorm"},
      {"LinearOperation", "self_attn.q_proj", "Linear", "MatMul"},
      {"LinearOperation", "self_attn.k_proj", "Linear", "MatMul"},
      {"LinearOperation", "self_attn.v_proj", "Linear", "MatMul"},
      {"SelfAttentionOperation", "self_attn.attn", "LlamaSdpa", "BatchMatMul"},
      {"LinearOperation", "self_attn.o_proj", "Linear", "MatMul"},
      {"ElewiseOperation", "", "", "Add"},  // residual add: no module of its own
      {"RmsNormOperation", "post_attention_layernorm", "LlamaRMSNorm", "RmsNorm"},
      {"LinearOperation", "mlp.gate_proj", "Linear", "MatMul"},
      {"LinearOperation", "mlp.up_proj", "Linear", "MatMul"},
      {"ActivationOperation", "mlp.act_fn", "SiLU", "Mul"},
      {"ElewiseOperation", "", "", "Mul"},  // act(gate) * up
      {"LinearOperation", "mlp.down_proj", "Linear", "MatMul"},
      {"ElewiseOperation", "", "", "Add"},  // residual add
  };
  return v;
}

struct Weights {
  std::vector<Vec> lin;  // q k v o gate up down: in x out, row-major
  Vec norm1, norm2;
};

struct Model {
  explicit Model(const AtbOptions& opts) : o(opts), H(opts.hidden), I(2 * opts.hidden), R(opts.rows) {}
  const AtbOptions& o;
  int H, I, R;  // hidden, intermediate, rows
  std::vector<Weights> layers;
  Vec final_norm;
  KernelNoise kn;
  const DTypeSpec* f32 = find_dtype("float32");
  const DTypeSpec* out_dt = nullptr;  // ATB output dtype
  std::string atb_root, torch_root;
  std::string torch_mine_root;              // --torch-mine: the NPU side's values under torch's names
  int inject_layer = -1, inject_leaf = -1;  // from --diverge-type / --diverge-nth
};

Vec rounded(Vec v, const DTypeSpec& dt) {
  for (double& x : v) x = decode_value(dt, encode_value(dt, x));
  return v;
}

std::string encode(const Vec& v, const DTypeSpec& dt) {
  std::string s(v.size() * dt.bytes, '\0');
  for (size_t i = 0; i < v.size(); ++i)
    store_code(dt, encode_value(dt, v[i]), reinterpret_cast<uint8_t*>(s.data() + i * dt.bytes));
  return s;
}

Vec linear(const Vec& x, const Vec& w, int rows, int in, int out) {
  Vec y(static_cast<size_t>(rows * out));
  for (int r = 0; r < rows; ++r)
    for (int k = 0; k < in; ++k) {
      double a = x[r * in + k];
      for (int o = 0; o < out; ++o) y[r * out + o] += a * w[k * out + o];
    }
  return y;
}

Vec rms_norm(const Vec& x, const Vec& w, int rows, int h) {
  Vec y(x.size());
  for (int r = 0; r < rows; ++r) {
    double ss = 0;
    for (int c = 0; c < h; ++c) ss += x[r * h + c] * x[r * h + c];
    double inv = 1.0 / std::sqrt(ss / h + 1e-6);
    for (int c = 0; c < h; ++c) y[r * h + c] = x[r * h + c] * inv * w[c];
  }
  return y;
}

// One head over all rows: softmax(q k^T / sqrt(H)) v.
Vec attention(const Vec& q, const Vec& k, const Vec& v, int rows, int h) {
  Vec y(q.size());
  for (int i = 0; i < rows; ++i) {
    Vec s(static_cast<size_t>(rows));
    double mx = -1e300;
    for (int j = 0; j < rows; ++j) {
      double d = 0;
      for (int c = 0; c < h; ++c) d += q[i * h + c] * k[j * h + c];
      s[j] = d / std::sqrt(static_cast<double>(h));
      mx = std::max(mx, s[j]);
    }
    double sum = 0;
    for (double& x : s) sum += (x = std::exp(x - mx));
    for (int j = 0; j < rows; ++j)
      for (int c = 0; c < h; ++c) y[i * h + c] += s[j] / sum * v[j * h + c];
  }
  return y;
}

Vec silu(Vec x) {
  for (double& v : x) v = v / (1.0 + std::exp(-v));
  return x;
}

Vec elementwise(const Vec& a, const Vec& b, bool mul) {
  Vec y(a.size());
  for (size_t i = 0; i < a.size(); ++i) y[i] = mul ? a[i] * b[i] : a[i] + b[i];
  return y;
}

// What one side computes for leaf k of a layer given its inputs.
Vec leaf_math(const Model& m, const Weights& w, size_t k, const std::vector<Vec>& in) {
  const int H = m.H, I = m.I, R = m.R;
  switch (k) {
    case 0: return rms_norm(in[0], w.norm1, R, H);
    case 1:
    case 2:
    case 3: return linear(in[0], w.lin[k - 1], R, H, H);
    case 4: return attention(in[0], in[1], in[2], R, H);
    case 5: return linear(in[0], w.lin[3], R, H, H);
    case 6: return elementwise(in[0], in[1], false);
    case 7: return rms_norm(in[0], w.norm2, R, H);
    case 8: return linear(in[0], w.lin[4], R, H, I);
    case 9: return linear(in[0], w.lin[5], R, H, I);
    case 10: return silu(in[0]);
    case 11: return elementwise(in[0], in[1], true);
    case 12: return linear(in[0], w.lin[6], R, I, H);
    default: return elementwise(in[0], in[1], false);
  }
}

// Which earlier values leaf k reads: indexes into [layer input, leaf 0 out, leaf 1 out, ...].
const std::vector<std::vector<int>>& leaf_inputs() {
  static const std::vector<std::vector<int>> v = {{0}, {1}, {1}, {1}, {2, 3, 4}, {5},  {0, 6},
                                                  {7}, {8}, {8}, {9}, {11, 10},  {12}, {7, 13}};
  return v;
}

void torch_file(const Model& m, const std::string& dir, const std::string& name, const Vec& v, int cols) {
  std::vector<uint64_t> shape = {static_cast<uint64_t>(m.R), static_cast<uint64_t>(cols)};
  write_file(dir + "/" + name, pth_bytes(name.substr(0, name.size() - 4), pth_pickle("FloatStorage", shape),
                                         encode(rounded(v, *m.f32), *m.f32)));
}

void atb_file(const Model& m, const std::string& dir, const std::string& name, const Vec& v, int cols) {
  std::string data = encode(v, *m.out_dt);
  std::vector<uint64_t> dims = {static_cast<uint64_t>(m.R), static_cast<uint64_t>(cols)};
  write_file(dir + "/" + name, atb_bin_header(acl_dtype_of(*m.out_dt), 2, dims, data.size()) + data);
}

int cols_of(const Model& m, size_t k) { return k >= 8 && k <= 11 ? m.I : m.H; }

// --op-params: ATB's OpParamToJson of leaf k as the model computes it (docs/formats/atb-torch.md
// §2.2; the names opcheck's ATB front end reads): Linear without bias, x [R, K] against a
// weight [N, K] (transposeB); plain RmsNorm with eps 1e-6; residual add (8) and gate mul (9);
// SiLU as swish with scale 1. SelfAttention's parameters are not written (not recomputed).
Json op_param(size_t k) {
  const std::string& type = leaves()[k].atb_type;
  if (type == "LinearOperation")
    return {{"transposeA", false}, {"transposeB", true}, {"hasBias", false},
            {"enAccum", false},    {"matmulType", 0},    {"quantMode", 0}};
  if (type == "RmsNormOperation")
    return {{"layerType", 1}, {"normParam", {{"epsilon", 1e-6}, {"quantType", 0}, {"modelType", 0}}}};
  if (type == "ElewiseOperation") return {{"elewiseType", k == 11 ? 9 : 8}};
  if (type == "ActivationOperation") return {{"activationType", 4}, {"scale", 1.0}};
  return nullptr;
}

// --op-params: the weight tensor leaf k reads besides its activations (float32, as the kernel
// reads it): a Linear's weight [N, K] (the model keeps it [K, N]), a RmsNorm's gamma [H]
// (k = leaves().size(): the final norm's).
void write_weight(const Model& m, const Weights& w, size_t k, const std::string& dir) {
  const DTypeSpec& f32 = *m.f32;
  auto put = [&](const Vec& v, const std::vector<uint64_t>& dims) {
    std::string data = encode(v, f32);
    write_file(dir + "/before/intensor1.bin",
               atb_bin_header(acl_dtype_of(f32), 2, dims, data.size()) + data);  // format 2: ND
  };
  if (k == 0 || k == 7) return put(k == 0 ? w.norm1 : w.norm2, {static_cast<uint64_t>(m.H)});
  if (k == leaves().size()) return put(m.final_norm, {static_cast<uint64_t>(m.H)});  // the model's final norm
  static const std::map<size_t, size_t> lin = {{1, 0}, {2, 1}, {3, 2}, {5, 3}, {8, 4}, {9, 5}, {12, 6}};
  auto it = lin.find(k);
  if (it == lin.end()) return;
  const Vec& kn = w.lin[it->second];  // [K, N] row-major
  const size_t K = static_cast<size_t>(k == 12 ? m.I : m.H), N = kn.size() / K;
  Vec nk(kn.size());
  for (size_t r = 0; r < K; ++r)
    for (size_t c = 0; c < N; ++c) nk[c * K + r] = kn[r * N + c];
  put(nk, {N, K});
}

// --op-params: op_param.json and the weight of leaf k (k = leaves().size(): the final norm).
void write_op_params(const Model& m, const Weights& w, size_t k, const std::string& dir) {
  Json p = op_param(k == leaves().size() ? 0 : k);  // the final norm is a plain RmsNorm
  if (!p.is_null()) write_file(dir + "/op_param.json", p.dump());
  write_weight(m, w, k, dir);
}

// The ATB kernel: reduced-precision inputs and math where --reduced says so, relative noise at
// the type's level, the output dtype.
Vec atb_kernel(const Model& m, const Weights& w, size_t k, std::vector<Vec> in, Rng& noise) {
  const Leaf& leaf = leaves()[k];
  auto red = m.kn.reduced.find(leaf.atb_type);
  std::string reduced = red == m.kn.reduced.end() ? "" : red->second;
  for (auto& v : in) round_values(v, reduced);
  Vec y = leaf_math(m, w, k, in);
  add_relative_noise(y, m.kn.level * type_noise_factor(leaf.noise_type), noise);
  round_values(y, reduced);
  return rounded(std::move(y), *m.out_dt);
}

// An error of relative Euclidean size `red`: y + red * rms(y) * z.
void inject(Vec& y, double red, Rng& rng) {
  double sq = 0;
  for (double x : y) sq += x * x;
  double rms = std::sqrt(sq / static_cast<double>(std::max<size_t>(1, y.size())));
  for (double& x : y) x += red * rms * rng.normal();
}

void run_token(Model& m, int token) {
  const AtbOptions& o = m.o;
  Rng rng(o.seed * 7919 + static_cast<uint64_t>(token));
  Rng noise(o.seed * 104729 + static_cast<uint64_t>(token) * 31 + 7);
  Rng inj(o.seed * 15485863 + static_cast<uint64_t>(token));
  Vec x(static_cast<size_t>(m.R * m.H));
  for (double& v : x) v = rng.normal();
  const std::string tdir = m.torch_root + "/" + std::to_string(token);
  const std::string adir = m.atb_root + "/" + std::to_string(token);
  const std::string mdir = m.torch_mine_root + "/" + std::to_string(token);
  // A torch module's file on the golden side (exact values) and, with --torch-mine, on the NPU
  // side (the ATB side's values: its kernel noise and any injection).
  auto torch_both = [&](const std::string& rel, const std::string& name, const Vec& t, const Vec& a, int cols) {
    torch_file(m, tdir + "/" + rel, name, t, cols);
    if (!m.torch_mine_root.empty()) torch_file(m, mdir + "/" + rel, name, a, cols);
  };
  Vec tx = rounded(x, *m.f32), ax = rounded(x, *m.out_dt);
  torch_both("root", "input_0.pth", tx, ax, m.H);
  for (int i = 0; i < o.layers; ++i) {
    const Weights& w = m.layers[static_cast<size_t>(i)];
    const std::string mod = "root.model.layers." + std::to_string(i);
    const std::string lay = adir + "/" + std::to_string(i) + "_DecoderLayer";
    std::vector<Vec> tv = {tx}, av = {ax};  // layer input, then each leaf's output
    for (size_t k = 0; k < leaves().size(); ++k) {
      std::vector<Vec> tin, ain;
      for (int j : leaf_inputs()[k]) {
        tin.push_back(tv[static_cast<size_t>(j)]);
        ain.push_back(av[static_cast<size_t>(j)]);
      }
      Vec ty = rounded(leaf_math(m, w, k, tin), *m.f32);
      Vec ay = atb_kernel(m, w, k, ain, noise);
      Vec dumped = ay;
      if (i == m.inject_layer && static_cast<int>(k) == m.inject_leaf) {
        inject(dumped, o.diverge_scale, inj);
        dumped = rounded(std::move(dumped), *m.out_dt);
        if (!o.diverge_local) ay = dumped;  // propagated: later ops read the injected value
      }
      const Leaf& leaf = leaves()[k];
      const std::string adir_k = lay + "/" + std::to_string(k) + "_" + leaf.atb_type;
      for (size_t j = 0; j < ain.size(); ++j)
        atb_file(m, adir_k + "/before", "intensor" + std::to_string(j) + ".bin", ain[j],
                 leaf_inputs()[k][j] == 0 ? m.H : cols_of(m, static_cast<size_t>(leaf_inputs()[k][j] - 1)));
      atb_file(m, adir_k + "/after", "outtensor0.bin", dumped, cols_of(m, k));
      if (o.op_params) write_op_params(m, w, k, adir_k);
      if (!leaf.torch_name.empty()) {
        const std::string td = mod + "." + leaf.torch_name;
        for (size_t j = 0; j < tin.size(); ++j)  // msit's hooks dump every positional input
          torch_both(td, "input_" + std::to_string(j) + ".pth", tin[j], ain[j],
                     leaf_inputs()[k][j] == 0 ? m.H : cols_of(m, static_cast<size_t>(leaf_inputs()[k][j] - 1)));
        torch_both(td, "output.pth", ty, dumped, cols_of(m, k));
      }
      tv.push_back(std::move(ty));
      av.push_back(std::move(ay));
    }
    // Module outputs: self_attn = o_proj's, mlp = down_proj's, the layer = the last add's.
    torch_both(mod + ".self_attn", "input_0.pth", tv[1], av[1], m.H);
    torch_both(mod + ".self_attn", "output.pth", tv[6], av[6], m.H);
    torch_both(mod + ".mlp", "input_0.pth", tv[8], av[8], m.H);
    torch_both(mod + ".mlp", "output.pth", tv[13], av[13], m.H);
    torch_both(mod, "input_0.pth", tx, ax, m.H);
    torch_both(mod, "output.pth", tv.back(), av.back(), m.H);
    atb_file(m, lay + "/before", "intensor0.bin", ax, m.H);
    atb_file(m, lay + "/after", "outtensor0.bin", av.back(), m.H);
    tx = tv.back();
    ax = av.back();
  }
  // The final norm: model.norm, the ATB model's last level-1 op; it is the model's output too.
  Vec ty = rounded(rms_norm(tx, m.final_norm, m.R, m.H), *m.f32);
  Vec ay = rounded(rms_norm(ax, m.final_norm, m.R, m.H), *m.out_dt);
  add_relative_noise(ay, m.kn.level * type_noise_factor("RmsNorm"), noise);
  ay = rounded(std::move(ay), *m.out_dt);
  const std::string nd = adir + "/" + std::to_string(o.layers) + "_RmsNormOperation";
  atb_file(m, nd + "/before", "intensor0.bin", ax, m.H);
  atb_file(m, nd + "/after", "outtensor0.bin", ay, m.H);
  if (o.op_params) write_op_params(m, {}, leaves().size(), nd);
  for (const std::string d : {"root.model.norm", "root.model", "root"}) {
    torch_both(d, "input_0.pth", tx, ax, m.H);
    torch_both(d, "output.pth", ty, ay, m.H);
  }
}

std::string tree_node(const std::string& name, const std::string& type, const std::vector<std::string>& children) {
  std::string s = "{\"name\": \"" + name + "\", \"type\": \"" + type + "\", \"children\": [";
  for (size_t i = 0; i < children.size(); ++i) s += (i ? ", " : "") + children[i];
  return s + "]}";
}

// HF Llama's module tree (registration order: self_attn, mlp, then the norms).
std::string model_tree(int layers) {
  std::vector<std::string> blocks;
  for (int i = 0; i < layers; ++i) {
    const std::string m = "root.model.layers." + std::to_string(i);
    auto leaf = [&](const std::string& n, const std::string& t) { return tree_node(m + "." + n, t, {}); };
    std::string attn = tree_node(
        m + ".self_attn", "LlamaAttention",
        {leaf("self_attn.q_proj", "Linear"), leaf("self_attn.k_proj", "Linear"), leaf("self_attn.v_proj", "Linear"),
         leaf("self_attn.attn", "LlamaSdpa"), leaf("self_attn.o_proj", "Linear")});
    std::string mlp = tree_node(m + ".mlp", "LlamaMLP",
                                {leaf("mlp.gate_proj", "Linear"), leaf("mlp.up_proj", "Linear"),
                                 leaf("mlp.down_proj", "Linear"), leaf("mlp.act_fn", "SiLU")});
    blocks.push_back(tree_node(
        m, "LlamaDecoderLayer",
        {attn, mlp, leaf("input_layernorm", "LlamaRMSNorm"), leaf("post_attention_layernorm", "LlamaRMSNorm")}));
  }
  std::string model = tree_node(
      "root.model", "LlamaModel",
      {tree_node("root.model.layers", "ModuleList", blocks), tree_node("root.model.norm", "LlamaRMSNorm", {})});
  return tree_node("root", "LlamaForCausalLM", {model});
}

// Layer JSON of DecoderLayer_i (docs/formats/atb-torch.md §2.3).
Json layer_json(int i) {
  const std::string n = "DecoderLayer_" + std::to_string(i);
  auto t = [&](int k) { return k == 0 ? n + "_input_0" : n + "_internal_" + std::to_string(k - 1); };
  Json nodes = Json::array(), internals = Json::array();
  for (size_t k = 0; k < leaves().size(); ++k) {
    Json ins = Json::array();
    for (int j : leaf_inputs()[k]) ins.push_back(t(j));
    std::string out = k + 1 == leaves().size() ? n + "_output_0" : t(static_cast<int>(k) + 1);
    if (k + 1 < leaves().size()) internals.push_back(out);
    Json param = leaves()[k].atb_type == "LinearOperation" ? Json{{"hasBias", true}} : Json::object();
    nodes.push_back({{"opName", leaves()[k].atb_type + "_" + std::to_string(i) + "_" + std::to_string(k)},
                     {"opType", leaves()[k].atb_type},
                     {"param", param},
                     {"inTensors", ins},
                     {"outTensors", {out}}});
  }
  return {{"opName", n},         {"opType", "DecoderLayer"},        {"param", ""},
          {"inTensors", {t(0)}}, {"outTensors", {n + "_output_0"}}, {"internalTensors", internals},
          {"nodes", nodes}};
}

Json model_json(int layers) {
  Json nodes = Json::array(), internals = Json::array();
  std::string prev = "Model_input_0";
  for (int i = 0; i < layers; ++i) {
    const std::string out = "Model_internal_" + std::to_string(i);
    internals.push_back(out);
    Json l = layer_json(i);
    nodes.push_back({{"inTensors", {prev}},
                     {"opName", "DecoderLayer_" + std::to_string(i)},
                     {"outTensors", {out}},
                     {"opType", "DecoderLayer"},
                     {"internalTensors", l["internalTensors"]},
                     {"nodes", l["nodes"]}});
    prev = out;
  }
  nodes.push_back({{"inTensors", {prev}},
                   {"opName", "RmsNormOperation_" + std::to_string(layers)},
                   {"outTensors", {"Model_output_0"}},
                   {"opType", "RmsNormOperation"},
                   {"param", Json::object()}});
  return {{"inTensors", {"Model_input_0"}},   {"internalTensors", internals},  {"modelName", "Model"}, {"nodes", nodes},
          {"outTensors", {"Model_output_0"}}, {"weightTensors", Json::array()}};
}

Vec random_vec(Rng& rng, size_t n, double scale, double offset, const DTypeSpec& dt) {
  Vec v(n);
  for (double& x : v) x = decode_value(dt, encode_value(dt, offset + rng.normal() * scale));
  return v;
}

}  // namespace

int run_atb_llama(const AtbOptions& o) {
  if (o.layers < 1 || o.tokens < 1 || o.hidden < 1 || o.rows < 1) {
    throw std::runtime_error("atb: --layers, --tokens, --hidden, --rows must be >= 1");
  }
  if (o.out_dtype != "float16" && o.out_dtype != "float32" && o.out_dtype != "bfloat16") {
    throw std::runtime_error("atb: --atb-dtype must be float16, bfloat16 or float32");
  }
  Model m(o);
  m.kn.level = o.noise;
  m.kn.reduced = parse_reduced(o.reduced);
  m.out_dt = find_dtype(o.out_dtype);
  // --diverge-type T --diverge-nth N: the N-th (from 0) leaf of ATB type T in execution order.
  if (!o.diverge_type.empty()) {
    int seen = 0;
    for (int i = 0; i < o.layers && m.inject_layer < 0; ++i)
      for (size_t k = 0; k < leaves().size(); ++k) {
        if (leaves()[k].atb_type != o.diverge_type) continue;
        if (seen++ == o.diverge_nth) {
          m.inject_layer = i;
          m.inject_leaf = static_cast<int>(k);
          break;
        }
      }
    if (m.inject_layer < 0) {
      throw std::runtime_error("atb: the model has no op " + std::to_string(o.diverge_nth) + " of type " +
                               o.diverge_type);
    }
  }
  Rng prng(o.seed);
  const double s = 1.0 / std::sqrt(static_cast<double>(o.hidden));
  for (int i = 0; i < o.layers; ++i) {
    Weights w;
    for (int k = 0; k < 7; ++k) {
      size_t n = static_cast<size_t>(k == 6 ? m.I * m.H : m.H * (k >= 4 ? m.I : m.H));
      w.lin.push_back(random_vec(prng, n, k == 6 ? 1.0 / std::sqrt(static_cast<double>(m.I)) : s, 0.0, *m.f32));
    }
    w.norm1 = random_vec(prng, static_cast<size_t>(m.H), 0.1, 1.0, *m.f32);
    w.norm2 = random_vec(prng, static_cast<size_t>(m.H), 0.1, 1.0, *m.f32);
    m.layers.push_back(std::move(w));
  }
  m.final_norm = random_vec(prng, static_cast<size_t>(m.H), 0.1, 1.0, *m.f32);
  const std::string ts = "20260101_000000";
  const std::string atb_dump = "atb/msit_dump_" + ts, torch_dump = "torch/msit_dump_" + ts;
  const std::string torch_mine_dump = "torch_npu/msit_dump_" + ts;
  m.atb_root = o.out + "/" + atb_dump + "/tensors/0_200";
  m.torch_root = o.out + "/" + torch_dump + "/torch_tensors/cpu_100";
  if (o.torch_mine) m.torch_mine_root = o.out + "/" + torch_mine_dump + "/torch_tensors/0_300";
  for (int t = 0; t < o.tokens; ++t) run_token(m, t);
  write_file(m.torch_root + "/model_tree.json", model_tree(o.layers));
  if (o.torch_mine) write_file(m.torch_mine_root + "/model_tree.json", model_tree(o.layers));
  write_file(o.out + "/" + atb_dump + "/model/200/Model.json", model_json(o.layers).dump());
  for (int i = 0; i < o.layers; ++i) {
    write_file(o.out + "/" + atb_dump + "/layer/200/DecoderLayer_" + std::to_string(i) + ".json", layer_json(i).dump());
  }
  nlohmann::json first = nullptr;
  if (m.inject_layer >= 0) {
    const Leaf& leaf = leaves()[static_cast<size_t>(m.inject_leaf)];
    first = {
        {"atb_node",
         std::to_string(m.inject_layer) + "_DecoderLayer/" + std::to_string(m.inject_leaf) + "_" + leaf.atb_type},
        {"atb_type", leaf.atb_type},
        {"torch_module",
         leaf.torch_name.empty() ? "" : "root.model.layers." + std::to_string(m.inject_layer) + "." + leaf.torch_name}};
  }
  nlohmann::json sc = {{"tool", "msit-dumpgen"},
                       {"command", "atb"},
                       {"model", "llama"},
                       {"atb_root", atb_dump},
                       {"torch_root", torch_dump},
                       {"atb_process", "tensors/0_200"},
                       {"torch_process", "torch_tensors/cpu_100"},
                       {"torch_mine_root", o.torch_mine ? torch_mine_dump : ""},
                       {"torch_mine_process", o.torch_mine ? "torch_tensors/0_300" : ""},
                       {"layers", o.layers},
                       {"tokens", o.tokens},
                       {"seed", o.seed},
                       {"noise", o.noise},
                       {"reduced", o.reduced},
                       {"atb_dtype", o.out_dtype},
                       {"diverge_type", o.diverge_type},
                       {"diverge_nth", o.diverge_nth},
                       {"diverge_scale", o.diverge_scale},
                       {"diverge_local", o.diverge_local},
                       {"first_divergence", first}};
  write_file(o.out + "/scenario.json", sc.dump(1));
  // The types msit's built-in tables do not pair (only LinearOperation -> Linear): an
  // --op-mapping-file directory for them (docs/formats/atb-torch.md §3.4).
  write_file(o.out + "/op_mapping/op_mapping_file.json",
             R"({"RmsNormOperation": "LlamaRMSNorm", "SelfAttentionOperation": "LlamaSdpa", )"
             R"("ActivationOperation": "SiLU"})");
  std::printf("atb: llama, %d layers x %d tokens under %s (first divergence: %s)\n", o.layers, o.tokens, o.out.c_str(),
              first.is_null() ? "none" : first["atb_node"].get<std::string>().c_str());
  return 0;
}

}  // namespace dumpgen
