// `msit-dumpgen tree`: a realistic dump tree over every layout plus its manifest.json.
#include <cstdio>
#include <filesystem>
#include <stdexcept>

#include "tests/tools/dumpgen/commands.h"
#include "tests/tools/dumpgen/gen_corrupt.h"
#include "tests/tools/dumpgen/gen_plan.h"

namespace dumpgen {

namespace {

PlanLimits limits_from(const TreeOptions& o) {
  PlanLimits lim;
  lim.max_elements = std::max<uint64_t>(o.max_elements, 1);
  if (o.dtypes.empty()) {
    for (const auto& d : all_dtypes()) lim.dtypes.push_back(&d);
    lim.favour_floats = true;
  }
  for (const auto& name : o.dtypes) {
    const DTypeSpec* d = find_dtype(name);
    if (!d) throw std::runtime_error("--dtypes: unknown dtype '" + name + "'");
    lim.dtypes.push_back(d);
  }
  return lim;
}

struct Writer {
  std::string out;
  nlohmann::json files = nlohmann::json::array();
  uint64_t raw = 0, bytes = 0;

  void ge(const std::string& dir, const GeOp& op) {
    std::string rel = dir + "/" + ge_file_name(op);
    std::string data = ge_file_bytes(op);
    write_file(out + "/" + rel, data);
    std::vector<const GenTensor*> ts;
    for (const auto& t : op.inputs) ts.push_back(&t);
    for (const auto& t : op.outputs) ts.push_back(&t);
    files.push_back(raw_manifest(rel, "ge_bin", data.size(), ts, &op));
    ++raw;
    bytes += data.size();
  }
  void npy(const std::string& dir, const FxFile& f) {
    std::string rel = dir + "/" + f.name;
    std::string data = npy_file_bytes(f.tensor);
    write_file(out + "/" + rel, data);
    files.push_back(raw_manifest(rel, "npy", data.size(), {&f.tensor}, nullptr));
    ++raw;
    bytes += data.size();
  }
};

}  // namespace

int run_tree(const TreeOptions& o) {
  if (o.ranks < 1 || o.tokens < 1) throw std::runtime_error("--ranks and --tokens must be >= 1");
  PlanLimits lim = limits_from(o);
  std::vector<std::string> layouts;
  if (o.layout == "all") layouts = layout_names();
  else layouts.push_back(o.layout);
  Rng rng(o.seed);
  Writer w{o.out};
  std::vector<Leaf> leaves;
  for (const auto& name : layouts) {
    LayoutTree t = layout_tree(name, name, o.ranks, o.tokens);
    for (const auto& [rel, text] : t.extras) {
      write_file(o.out + "/" + rel, text);
      w.files.push_back(opaque_manifest(rel, "graph_txt", text));
    }
    for (const auto& l : t.leaves) {
      make_dirs(o.out + "/" + l.rel);
      leaves.push_back(l);
    }
  }
  // Round-robin over leaves so every layout, rank and step gets files.
  uint64_t seq = 1;
  for (size_t li = 0; w.raw < o.files; li = (li + 1) % leaves.size(), ++seq) {
    const Leaf& leaf = leaves[li];
    if (leaf.ge) {
      for (int k = 0; k < 3 && w.raw < o.files; ++k) w.ge(leaf.rel, random_ge_op(rng, lim, seq++));
    } else {
      for (const auto& f : random_fx_node(rng, lim, seq)) w.npy(leaf.rel, f);
    }
  }
  std::vector<const Leaf*> ge_leaves, fx_leaves;
  for (const auto& l : leaves) (l.ge ? ge_leaves : fx_leaves).push_back(&l);
  for (int k = 0; k < o.corrupt; ++k) {
    CorruptFile c = make_corrupt(rng, k, lim, seq++);
    const auto& pool = c.ge ? (ge_leaves.empty() ? fx_leaves : ge_leaves) : (fx_leaves.empty() ? ge_leaves : fx_leaves);
    std::string rel = pool[rng.below(pool.size())]->rel + "/" + c.name;
    write_file(o.out + "/" + rel, c.bytes);
    nlohmann::json j = opaque_manifest(rel, c.ge ? "ge_bin" : "npy", c.bytes);
    j["corrupt"] = true;
    j["corruption"] = c.what;
    w.files.push_back(j);
  }
  nlohmann::json manifest = {
      {"tool", "msit-dumpgen"}, {"command", "tree"}, {"manifest_version", 1}, {"seed", o.seed},
      {"layouts", layouts},     {"ranks", o.ranks},  {"tokens", o.tokens},    {"sketch_width", kSketchWidth},
      {"files", w.files}};
  write_file(o.out + "/manifest.json", manifest.dump(1));
  std::printf("wrote %llu raw files (%llu bytes), %d corrupt, %zu layouts under %s\n",
              static_cast<unsigned long long>(w.raw), static_cast<unsigned long long>(w.bytes), o.corrupt,
              layouts.size(), o.out.c_str());
  return 0;
}

}  // namespace dumpgen
