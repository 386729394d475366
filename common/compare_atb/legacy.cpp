// ait's torch-vs-ATB compare (docs/formats/atb-torch.md §3.9): -gp a torch token dir, -mp an ATB token dir;
// per zipped layer pair the built-in rows (leaves, exact types), then the custom rows (all
// nodes, substring types); or, with -cl token, one row per token dir holding one module.
#include "common/compare_atb/legacy.h"

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <thread>

#include "common/compare/engine.h"
#include "common/compare/file_cache.h"
#include "common/compare_atb/atb_compare_internal.h"
#include "common/compare_atb/files.h"
#include "common/compare_atb/legacy_internal.h"
#include "common/compare_atb/match_internal.h"
#include "common/compare_atb/side.h"

namespace msit::atb {
namespace {

namespace fs = std::filesystem;

std::string normal_abs(const std::string& p) { return fs::path(absolute_path(p)).lexically_normal().string(); }

bool is_dir(const fs::path& p) {
  std::error_code ec;
  return fs::is_directory(p, ec);
}

// Sorted entry names of dir (files_only: regular files), at most 4096 of them.
std::vector<std::string> entries(const std::string& dir, bool files_only) {
  std::vector<std::string> out;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end && out.size() < 4096; it.increment(ec)) {
    if (files_only && !it->is_regular_file(ec)) continue;
    out.push_back(it->path().filename().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// A row only when both files exist (raw, archived, summarised or stored), as ait does.
bool add_pair(std::vector<FilePair>& out, const std::string& golden, const std::string& mine, int64_t token,
              const std::string& gtype, const std::string& mtype) {
  auto g = find_source(golden), m = find_source(mine);
  if (!g || !m) return false;
  FilePair p;
  p.golden = std::move(*g);
  p.my = std::move(*m);
  p.token = token;
  p.golden_type = gtype;
  p.my_type = mtype;
  out.push_back(std::move(p));
  return true;
}

// The output tensor a legacy layer row compares: the torch module by name, the ATB node by its
// path; ordered by the ATB node's pre-order number (the rows are leaves or whole layers).
TensorLabel output_label(std::string op, const TopoNode& n, uint32_t order) {
  TensorLabel l{std::move(op), n.type, TensorRole::kOutput, 0};
  l.order = order;
  return l;
}

struct Trees {
  TopoTree golden, mine;
};

Result<Trees> load_trees(const std::string& gp, const std::string& mp) {
  std::string tree_path = (fs::path(gp).parent_path() / "model_tree.json").string();
  MSIT_ASSIGN_OR_RETURN(std::string gt, read_topology_file(tree_path));
  Trees t;
  MSIT_ASSIGN_OR_RETURN(t.golden, parse_torch_model_tree(gt, tree_path));
  // pid = second '_' field of the process dir name; topology = first model JSON of model/{pid}.
  fs::path proc = fs::path(mp).parent_path();
  std::string name = proc.filename().string();
  auto us = name.find('_');
  std::string pid = us == std::string::npos ? "" : name.substr(us + 1, name.find('_', us + 1) - us - 1);
  fs::path model = proc.parent_path().parent_path() / "model" / pid;
  std::string json;
  for (const auto& f : entries(model.string(), true)) {
    if (f.size() > 5 && f.ends_with(".json")) {
      json = (model / f).string();
      break;
    }
  }
  if (pid.empty() || json.empty()) {
    return make_error(model.string(), Stage::kTopology,
                      "no ATB model JSON (legacy layout: -m is tensors/{dev}_{pid}/{token})");
  }
  MSIT_ASSIGN_OR_RETURN(std::string mt, read_topology_file(json));
  uint32_t show = 0;
  MSIT_ASSIGN_OR_RETURN(t.mine, parse_atb_model(mt, json, false, show, true));
  return t;
}

std::vector<FilePair> layer_rows(const Trees& t, const std::string& gp, const std::string& mp,
                                 const std::vector<MappingEntry>& custom) {
  static const std::vector<std::pair<std::string, std::string>> kBuiltin = {{"LayerNormOperation", "LayerNorm"},
                                                                            {"LinearOperation", "Linear"}};
  std::vector<FilePair> out;
  auto add = [&](uint32_t g, uint32_t m, const std::string& gfile, const std::string& mfile) {
    const TopoNode& gn = t.golden.nodes[g];
    const TopoNode& mn = t.mine.nodes[m];
    if (add_pair(out, (fs::path(gp) / gn.tensor_path / gfile).string(),
                 (fs::path(mp) / mn.tensor_path / "after" / mfile).string(), 0, gn.type, mn.type)) {
      out.back().golden_label = output_label(gn.name, gn, mn.show_order);
      out.back().my_label = output_label(mn.tensor_path, mn, mn.show_order);
    }
  };
  auto select = [](const TopoTree& tree, const std::vector<uint32_t>& from, auto pred) {
    std::vector<uint32_t> v;
    for (uint32_t n : from)
      if (pred(tree.nodes[n].type)) v.push_back(n);
    return v;
  };
  LayerPairs layers = layer_pairs(t.golden, t.mine);
  for (auto [g, m] : layers) {
    std::vector<uint32_t> gl, ml;
    subtree(t.golden, g, true, gl);
    subtree(t.mine, m, true, ml);
    if (t.golden.leaf(g)) gl.clear();  // ait's get_leaf_nodes: descendants only
    if (t.mine.leaf(m)) ml.clear();
    for (const auto& [atb, torch] : kBuiltin) {
      auto mine = select(t.mine, ml, [&](const std::string& ty) { return ty == atb; });
      auto gold = select(t.golden, gl, [&](const std::string& ty) { return ty == torch; });
      if (mine.size() != gold.size()) continue;
      for (size_t i = 0; i < mine.size(); ++i)
        add(gold[i], linear_with_bias(t.mine, mine[i]), "output.pth", "outtensor0.bin");
    }
  }
  auto split = [](const std::string& s) {  // ait: no suffix means outtensor0 on both sides
    auto pos = s.find('_');
    return pos == std::string::npos ? std::make_pair(s, std::string("outtensor0"))
                                    : std::make_pair(s.substr(0, pos), s.substr(pos + 1));
  };
  for (auto [g, m] : layers) {
    std::vector<uint32_t> ga, ma;
    subtree(t.golden, g, false, ga);
    subtree(t.mine, m, false, ma);
    for (const auto& [key, values] : custom) {
      auto [my_type, my_file] = split(key);
      auto mine = select(t.mine, ma, [&](const std::string& ty) { return contains(ty, my_type); });
      for (const auto& v : values) {
        auto [golden_type, golden_file] = split(v);
        auto gold = select(t.golden, ga, [&](const std::string& ty) { return contains(ty, golden_type); });
        if (mine.size() != gold.size()) continue;
        for (size_t i = 0; i < mine.size(); ++i) add(gold[i], mine[i], golden_file + ".pth", my_file + ".bin");
      }
    }
  }
  return out;
}

// -cl token: {gp}/t and {mp}/t for t = 0, 1, ... while both exist; each holds one module dir.
std::vector<FilePair> token_rows(const std::string& gp, const std::string& mp, std::vector<std::string>& warnings) {
  std::vector<FilePair> out;
  for (int64_t t = 0; t < 1'000'000; ++t) {
    fs::path gt = fs::path(gp) / std::to_string(t), mt = fs::path(mp) / std::to_string(t);
    if (!is_dir(gt) || !is_dir(mt)) break;
    auto gd = entries(gt.string(), false), md = entries(mt.string(), false);
    if (gd.size() != 1 || md.size() != 1 || !is_dir(gt / gd[0]) || !is_dir(mt / md[0])) {
      warnings.push_back("token " + std::to_string(t) + ": " + gt.string() + " and " + mt.string() +
                         " must each hold exactly one directory; token skipped");
      continue;
    }
    add_pair(out, (gt / gd[0] / "output.pth").string(), (mt / md[0] / "after" / "outtensor0.bin").string(), t, "", "");
  }
  return out;
}

}  // namespace

Result<LegacyResult> run_legacy_compare(const std::string& golden_path, const std::string& my_path,
                                        const LegacyOptions& o) {
  std::string gp = normal_abs(golden_path), mp = normal_abs(my_path);
  LegacyResult res;
  std::vector<FilePair> pairs;
  if (o.token_level) {
    if (!fs::is_regular_file(fs::path(gp) / "model_tree.json")) {
      return make_error(gp, Stage::kDetect,
                        "legacy -cl token: the golden path must be the torch process dir (model_tree.json)");
    }
    res.description = "legacy ait, token level: torch (golden) vs ATB (my)";
    pairs = token_rows(gp, mp, res.warnings);
  } else {
    MSIT_ASSIGN_OR_RETURN(Trees t, load_trees(gp, mp));
    AtbCompareOptions ao;
    ao.op_mapping_dir = o.op_mapping_dir;
    ao.msit_compat = o.msit_compat;
    auto custom = load_mapping(ao, res.warnings);
    res.description = "legacy ait, layer level: torch (golden) vs ATB (my)";
    if (layer_type(t.golden).empty() || layer_type(t.mine).empty()) {
      res.warnings.push_back("no layer type found (a model needs more than 10 layers): no rows");
    }
    pairs = layer_rows(t, gp, mp, custom);
  }
  for (auto& p : pairs) {
    p.golden_cell = p.golden.raw_path;
    p.my_cell = p.my.raw_path;
  }
  res.rows = evaluate_file_pairs(pairs, o.jobs, o.eval);
  // The first divergence (docs/compare.md "First divergence"): token-level rows are whole
  // tokens, with no execution order to walk.
  if (!o.token_level) post_pass(res.rows);
  return res;
}

std::vector<ReportRow> evaluate_file_pairs(std::vector<FilePair>& pairs, unsigned jobs, const EvalOptions& eo) {
  FileCache cache;
  std::vector<ReportRow> rows(pairs.size());
  std::vector<PairSpec> specs(pairs.size());
  std::vector<EvalItem> items(pairs.size());
  for (size_t i = 0; i < pairs.size(); ++i) {
    FilePair& p = pairs[i];
    PairSpec& spec = specs[i];
    spec.token = p.token;
    spec.data_id = p.data_id;
    spec.golden_cell = p.golden_cell;
    spec.my_cell = p.my_cell;
    spec.problem = p.problem;
    spec.golden_label = p.golden_label;
    spec.my_label = p.my_label;
    spec.golden = TensorSlot{SlotKind::kFxFile, &p.golden, Role::kOutput, 0};
    spec.my = TensorSlot{SlotKind::kFxFile, &p.my, Role::kOutput, 0};
    items[i] = EvalItem{&spec, &rows[i], false};
  }
  EngineOptions o;
  o.jobs = jobs;
  o.eval = eo;
  o.finish = [&](size_t i, ReportRow& r) {
    r.token_text = pairs[i].token_text;
    r.golden_op_type = pairs[i].golden_type;
    r.my_op_type = pairs[i].my_type;
  };
  evaluate_items(items, cache, o);
  return rows;
}

}  // namespace msit::atb
