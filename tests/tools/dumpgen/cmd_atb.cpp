// `msit-dumpgen atb`: one toy transformer-ish model dumped twice, as msit's torch hooks write it
// (float32 .pth, model_tree.json) and as ATB + msit's probe write it (float16 .bin, model and
// layer topology JSONs), with an optional divergence injected at one ATB leaf op.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "tests/tools/dumpgen/commands.h"
#include "tests/tools/dumpgen/gen_atb_bin.h"
#include "tests/tools/dumpgen/gen_files.h"
#include "tests/tools/dumpgen/gen_pth.h"
#include "tests/tools/dumpgen/gen_tensor.h"

namespace dumpgen {
namespace {

using Vec = std::vector<double>;

struct Layer {
  Vec w, b;  // hidden x hidden, hidden
};

Vec rounded(const Vec& v, const DTypeSpec& dt) {
  Vec out(v.size());
  for (size_t i = 0; i < v.size(); ++i) out[i] = decode_value(dt, encode_value(dt, v[i]));
  return out;
}

std::string encode(const Vec& v, const DTypeSpec& dt) {
  std::string s(v.size() * dt.bytes, '\0');
  for (size_t i = 0; i < v.size(); ++i)
    store_code(dt, encode_value(dt, v[i]), reinterpret_cast<uint8_t*>(s.data() + i * dt.bytes));
  return s;
}

Vec layer_norm(const Vec& x, int rows, int hidden) {
  Vec y(x.size());
  for (int r = 0; r < rows; ++r) {
    double mean = 0, var = 0;
    for (int c = 0; c < hidden; ++c) mean += x[r * hidden + c];
    mean /= hidden;
    for (int c = 0; c < hidden; ++c) var += (x[r * hidden + c] - mean) * (x[r * hidden + c] - mean);
    var /= hidden;
    for (int c = 0; c < hidden; ++c) y[r * hidden + c] = (x[r * hidden + c] - mean) / std::sqrt(var + 1e-5);
  }
  return y;
}

Vec linear(const Vec& x, const Layer& l, int rows, int hidden) {
  Vec y(x.size());
  for (int r = 0; r < rows; ++r)
    for (int o = 0; o < hidden; ++o) {
      double acc = l.b[o];
      for (int k = 0; k < hidden; ++k) acc += x[r * hidden + k] * l.w[k * hidden + o];
      y[r * hidden + o] = acc;
    }
  return y;
}

// Leaf op `leaf` (layer * 2 + 0 for LayerNorm, + 1 for Linear) scaled by 1 + diverge_scale.
Vec diverged(Vec v, const AtbOptions& o, int leaf) {
  if (leaf == o.diverge_at) {
    for (double& x : v) x *= 1 + o.diverge_scale;
  }
  return v;
}

struct Ctx {
  explicit Ctx(const AtbOptions& opts) : o(opts) {}
  const AtbOptions& o;
  std::vector<Layer> layers;
  const DTypeSpec* f32 = find_dtype("float32");
  const DTypeSpec* f16 = find_dtype("float16");
  std::string atb_root, torch_root;
  nlohmann::json ops = nlohmann::json::array();
};

void torch_file(const Ctx& c, const std::string& dir, const std::string& name, const Vec& v) {
  std::vector<uint64_t> shape = {static_cast<uint64_t>(c.o.rows), static_cast<uint64_t>(c.o.hidden)};
  std::string stem = name.substr(0, name.size() - 4);
  write_file(dir + "/" + name, pth_bytes(stem, pth_pickle("FloatStorage", shape), encode(v, *c.f32)));
}

void atb_file(const Ctx& c, const std::string& dir, const std::string& name, const Vec& v, std::vector<uint64_t> dims) {
  std::string data = encode(v, *c.f16);
  write_file(dir + "/" + name, atb_bin_header(1, 2, dims, data.size()) + data);
}

// One token on both sides: torch in float32, ATB in float16 with the optional divergence.
void run_token(Ctx& c, int token) {
  const AtbOptions& o = c.o;
  Rng rng(o.seed * 7919 + static_cast<uint64_t>(token));
  Vec x(static_cast<size_t>(o.rows * o.hidden));
  for (double& v : x) v = rng.normal();
  const std::vector<uint64_t> act = {static_cast<uint64_t>(o.rows), static_cast<uint64_t>(o.hidden)};
  const std::string tdir = c.torch_root + "/" + std::to_string(token);
  const std::string adir = c.atb_root + "/" + std::to_string(token);
  Vec tx = rounded(x, *c.f32), ax = rounded(x, *c.f16);
  torch_file(c, tdir + "/root", "input_0.pth", tx);
  for (int i = 0; i < o.layers; ++i) {
    const std::string m = "root.layers." + std::to_string(i), op = adir + "/" + std::to_string(i) + "_BlockLayer";
    const Layer& l = c.layers[static_cast<size_t>(i)];
    Vec t_ln = rounded(layer_norm(tx, o.rows, o.hidden), *c.f32);
    Vec a_ln = rounded(diverged(layer_norm(ax, o.rows, o.hidden), o, 2 * i), *c.f16);
    Vec t_fc = rounded(linear(t_ln, l, o.rows, o.hidden), *c.f32);
    Vec a_fc = rounded(diverged(linear(a_ln, l, o.rows, o.hidden), o, 2 * i + 1), *c.f16);
    Vec t_out(tx.size()), a_out(ax.size());
    for (size_t k = 0; k < tx.size(); ++k) {
      t_out[k] = tx[k] + t_fc[k];
      a_out[k] = ax[k] + a_fc[k];
    }
    t_out = rounded(t_out, *c.f32);
    a_out = rounded(a_out, *c.f16);
    torch_file(c, tdir + "/" + m, "input_0.pth", tx);
    torch_file(c, tdir + "/" + m, "output.pth", t_out);
    torch_file(c, tdir + "/" + m + ".ln", "input_0.pth", tx);
    torch_file(c, tdir + "/" + m + ".ln", "output.pth", t_ln);
    torch_file(c, tdir + "/" + m + ".fc", "input_0.pth", t_ln);
    torch_file(c, tdir + "/" + m + ".fc", "output.pth", t_fc);
    const uint64_t h = static_cast<uint64_t>(o.hidden);
    atb_file(c, op + "/before", "intensor0.bin", ax, act);
    atb_file(c, op + "/after", "outtensor0.bin", a_out, act);
    atb_file(c, op + "/0_LayerNormOperation/before", "intensor0.bin", ax, act);
    atb_file(c, op + "/0_LayerNormOperation/after", "outtensor0.bin", a_ln, act);
    atb_file(c, op + "/1_LinearOperation/before", "intensor0.bin", a_ln, act);
    atb_file(c, op + "/1_LinearOperation/before", "intensor1.bin", l.w, {h, h});
    atb_file(c, op + "/1_LinearOperation/before", "intensor2.bin", l.b, {h});
    atb_file(c, op + "/1_LinearOperation/after", "outtensor0.bin", a_fc, act);
    tx = t_out;
    ax = a_out;
  }
  torch_file(c, tdir + "/root", "output.pth", tx);
}

// Python json.dump's default separators (", " and ": "), one line, as msit's hook writes it.
std::string tree_node(const std::string& name, const std::string& type, const std::vector<std::string>& children) {
  std::string s = "{\"name\": \"" + name + "\", \"type\": \"" + type + "\", \"children\": [";
  for (size_t i = 0; i < children.size(); ++i) s += (i ? ", " : "") + children[i];
  return s + "]}";
}

std::string model_tree(int layers) {
  std::vector<std::string> blocks;
  for (int i = 0; i < layers; ++i) {
    const std::string m = "root.layers." + std::to_string(i);
    blocks.push_back(
        tree_node(m, "Block", {tree_node(m + ".ln", "LayerNorm", {}), tree_node(m + ".fc", "Linear", {})}));
  }
  return tree_node("root", "Model", {tree_node("root.layers", "ModuleList", blocks)});
}

// Layer JSON of BlockLayer_i (docs/formats/atb-torch.md §2.3): root names, children indexing
// [inputs..., outputs..., internals...] of the parent.
nlohmann::ordered_json layer_json(int i) {
  const std::string n = "BlockLayer_" + std::to_string(i);
  const std::string in0 = n + "_input_0", w = n + "_input_1", b = n + "_input_2", out = n + "_output_0",
                    ln = n + "_internal_0", fc = n + "_internal_1";
  nlohmann::ordered_json lnode = {{"opName", "LayerNormOperation_" + std::to_string(i) + "_0"},
                                  {"opType", "LayerNormOperation"},
                                  {"param", nlohmann::json::object()},
                                  {"inTensors", {in0}},
                                  {"outTensors", {ln}}};
  nlohmann::ordered_json fnode = {{"opName", "LinearOperation_" + std::to_string(i) + "_1"},
                                  {"opType", "LinearOperation"},
                                  {"param", {{"hasBias", true}}},
                                  {"inTensors", {ln, w, b}},
                                  {"outTensors", {fc}}};
  return {{"opName", n},
          {"opType", "BlockLayer"},
          {"param", ""},
          {"inTensors", {in0, w, b}},
          {"outTensors", {out}},
          {"internalTensors", {ln, fc}},
          {"nodes", {lnode, fnode}}};
}

// Model JSON: atb_speed's report (keys alphabetical) with the probe's level-1 rewrite.
nlohmann::ordered_json model_json(int layers) {
  nlohmann::ordered_json nodes = nlohmann::ordered_json::array(), weights = nlohmann::ordered_json::array(),
                         internals = nlohmann::ordered_json::array();
  std::string prev = "Model_input_0";
  for (int i = 0; i < layers; ++i) {
    const std::string w = "Model_weight_" + std::to_string(2 * i), b = "Model_weight_" + std::to_string(2 * i + 1);
    weights.push_back(w);
    weights.push_back(b);
    const std::string out = i + 1 == layers ? "Model_output_0" : "Model_internal_" + std::to_string(i);
    if (i + 1 < layers) internals.push_back(out);
    nlohmann::ordered_json l = layer_json(i);
    nlohmann::ordered_json node = {
        {"inTensors", {prev, w, b}}, {"opName", "BlockLayer_" + std::to_string(i)}, {"outTensors", {out}},
        {"opType", "BlockLayer"},    {"internalTensors", l["internalTensors"]},     {"nodes", l["nodes"]}};
    nodes.push_back(node);
    prev = out;
  }
  return {{"inTensors", {"Model_input_0"}},   {"internalTensors", internals}, {"modelName", "Model"}, {"nodes", nodes},
          {"outTensors", {"Model_output_0"}}, {"weightTensors", weights}};
}

}  // namespace

int run_atb(const AtbOptions& o) {
  if (o.layers < 1 || o.tokens < 1 || o.hidden < 1 || o.rows < 1) {
    throw std::runtime_error("atb: --layers, --tokens, --hidden, --rows must be >= 1");
  }
  if (o.diverge_at >= 2 * o.layers) throw std::runtime_error("atb: --diverge-at must be < 2 x --layers");
  Ctx c(o);
  Rng prng(o.seed);
  const double s = 1.0 / std::sqrt(static_cast<double>(o.hidden));
  for (int i = 0; i < o.layers; ++i) {
    Layer l{Vec(static_cast<size_t>(o.hidden * o.hidden)), Vec(static_cast<size_t>(o.hidden))};
    for (double& v : l.w) v = decode_value(*c.f16, encode_value(*c.f16, prng.normal() * s));
    for (double& v : l.b) v = decode_value(*c.f16, encode_value(*c.f16, prng.normal() * 0.1));
    c.layers.push_back(std::move(l));
  }
  const std::string ts = "20260101_000000";
  const std::string atb_dump = "atb/msit_dump_" + ts, torch_dump = "torch/msit_dump_" + ts;
  c.atb_root = o.out + "/" + atb_dump + "/tensors/0_200";
  c.torch_root = o.out + "/" + torch_dump + "/torch_tensors/cpu_100";
  for (int t = 0; t < o.tokens; ++t) run_token(c, t);
  write_file(c.torch_root + "/model_tree.json", model_tree(o.layers));
  write_file(o.out + "/" + atb_dump + "/model/200/Model.json", model_json(o.layers).dump());
  for (int i = 0; i < o.layers; ++i) {
    write_file(o.out + "/" + atb_dump + "/layer/200/BlockLayer_" + std::to_string(i) + ".json", layer_json(i).dump());
  }
  nlohmann::json ops = nlohmann::json::array(), first = nullptr;
  for (int leaf = 0; leaf < 2 * o.layers; ++leaf) {
    const int i = leaf / 2;
    nlohmann::json j = {
        {"leaf", leaf},
        {"atb_dir", std::to_string(i) + "_BlockLayer/" + (leaf % 2 ? "1_LinearOperation" : "0_LayerNormOperation")},
        {"torch_module", "root.layers." + std::to_string(i) + (leaf % 2 ? ".fc" : ".ln")},
        {"diverged", o.diverge_at >= 0 && leaf >= o.diverge_at}};
    if (leaf == o.diverge_at) first = j;
    ops.push_back(j);
  }
  nlohmann::json sc = {{"tool", "msit-dumpgen"},
                       {"command", "atb"},
                       {"atb_root", atb_dump},
                       {"torch_root", torch_dump},
                       {"atb_process", "tensors/0_200"},
                       {"torch_process", "torch_tensors/cpu_100"},
                       {"layers", o.layers},
                       {"tokens", o.tokens},
                       {"seed", o.seed},
                       {"diverge_at", o.diverge_at},
                       {"diverge_scale", o.diverge_scale},
                       {"first_divergence", first},
                       {"ops", ops}};
  write_file(o.out + "/scenario.json", sc.dump(1));
  std::printf("atb: %d layers x %d tokens under %s (first divergence: %s)\n", o.layers, o.tokens, o.out.c_str(),
              first.is_null() ? "none" : first["atb_dir"].get<std::string>().c_str());
  return 0;
}

}  // namespace dumpgen
