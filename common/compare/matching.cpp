// Pairs golden and my tensors the way msit's torchair compare does, plus diagnostic rows for
// what msit silently skips (op absent from the graph, FX or golden data missing, unreadable files).
#include "common/compare/matching.h"

#include <algorithm>

namespace msit {
namespace {

std::string cell(const SourceFile& f, const char* role, uint32_t k) {
  // _min_max files show their own path (as in msit); raw files and summaries the raw path.
  const std::string& base = f.kind == SourceKind::kMinMax ? f.path() : f.raw_path;
  return base + "," + role + "," + std::to_string(k);
}

std::string plain(const SourceFile& f) { return f.kind == SourceKind::kMinMax ? f.path() : f.raw_path; }

TensorSlot ge_slot(const SourceFile& f, Role r, uint32_t k) { return {SlotKind::kTensor, &f, r, k}; }

TensorRole tensor_role(Role r) { return r == Role::kInput ? TensorRole::kInput : TensorRole::kOutput; }

// A GE op's tensor: the op name the index keys it by, the type its dump file name starts with
// (docs/formats/ge-dump.md §1).
TensorLabel ge_label(const std::string& op, const SourceFile& f, Role r, uint32_t k) {
  std::string_view n = f.raw_name();
  return TensorLabel{op, std::string(n.substr(0, n.find('.'))), tensor_role(r), k};
}

// An FX node's tensor: the index keys nodes by `{node}-{target}` (docs/formats/fx-npy.md §1).
TensorLabel fx_label(const std::string& key, Role r, uint32_t k) {
  size_t dash = key.find('-');
  return TensorLabel{key.substr(0, dash), dash == std::string::npos ? "" : key.substr(dash + 1), tensor_role(r), k};
}
TensorSlot fx_slot(const SourceFile& f) { return {SlotKind::kFxFile, &f, Role::kOutput, 0}; }

PairSpec make_pair(MatchContext& ctx, int64_t token, std::string gcell, std::string mcell, TensorSlot g, TensorSlot m) {
  PairSpec p;
  p.group = ctx.group;
  p.token = token;
  p.data_id = ctx.next_data_id++;
  p.golden_cell = std::move(gcell);
  p.my_cell = std::move(mcell);
  p.golden = g;
  p.my = m;
  return p;
}

PairSpec problem_row(MatchContext& ctx, int64_t token, std::string gcell, std::string mcell, RowProblem why) {
  PairSpec p;
  p.group = ctx.group;
  p.token = token;
  p.golden_cell = std::move(gcell);
  p.my_cell = std::move(mcell);
  p.problem = std::move(why);
  p.msit_row = false;
  return p;
}

// Ops sorted by graph position (absent: -1, first), stable over msit's insertion order.
std::vector<const std::pair<std::string, SourceFile>*> graph_order(const TokenFiles& tok, const GraphDef& g) {
  std::vector<const std::pair<std::string, SourceFile>*> v;
  for (const auto& p : tok.ge_ops) v.push_back(&p);
  std::stable_sort(v.begin(), v.end(), [&](auto* a, auto* b) { return g.position(a->first) < g.position(b->first); });
  return v;
}

bool has_op(const TokenFiles& t, const std::string& n) { return t.ge_file(n) != nullptr; }

// FX rows for one fx node: GE inputs vs FX INPUT files, GE outputs vs FX OUTPUT files, by position.
// A problem row names my op, no tensor of it.
PairSpec on_op(PairSpec p, const std::string& op, const SourceFile& f) {
  p.my_label = ge_label(op, f, Role::kOutput, 0);
  p.my_label.role = TensorRole::kUnknown;
  return p;
}

PairSpec labelled(PairSpec p, TensorLabel golden, TensorLabel mine) {
  p.golden_label = std::move(golden);
  p.my_label = std::move(mine);
  return p;
}

void fx_rows(MatchContext& ctx, int64_t token, const std::string& op, const SourceFile& ge, const TensorCounts& c,
             const std::string& fx_key, const FxNodeFiles& fx, bool inputs, bool outputs, std::vector<PairSpec>& rows) {
  if (inputs) {
    for (uint32_t k = 0; k < c.inputs && k < fx.inputs.size(); ++k) {
      rows.push_back(labelled(make_pair(ctx, token, plain(fx.inputs[k]), cell(ge, "inputs", k), fx_slot(fx.inputs[k]),
                                        ge_slot(ge, Role::kInput, k)),
                              fx_label(fx_key, Role::kInput, k), ge_label(op, ge, Role::kInput, k)));
    }
  }
  if (outputs) {
    for (uint32_t k = 0; k < c.outputs && k < fx.outputs.size(); ++k) {
      rows.push_back(labelled(make_pair(ctx, token, plain(fx.outputs[k]), cell(ge, "outputs", k),
                                        fx_slot(fx.outputs[k]), ge_slot(ge, Role::kOutput, k)),
                              fx_label(fx_key, Role::kOutput, k), ge_label(op, ge, Role::kOutput, k)));
    }
  }
}

struct FxTagScan {
  std::vector<const std::pair<const std::string, FxNodeFiles>*> found;  // one per matching tag, in desc/attr order
  std::string missing;                                                  // last tag without FX data
};

FxTagScan scan_tags(const GraphOp& op, const TokenFiles& fx) {
  FxTagScan s;
  for (const auto& desc : op.output_descs) {
    for (const auto& name : desc.fx_tensor_names) {
      std::string key = fx_node_key_from_tensor_name(name);
      auto it = fx.fx_nodes.find(key);
      if (it == fx.fx_nodes.end()) s.missing = key;
      else s.found.push_back(&*it);
    }
  }
  return s;
}

void ge_fx_op(MatchContext& ctx, int64_t token, const std::string& op_name, const SourceFile& ge, const TokenFiles& my,
              const TokenFiles& fx, MatchResult& out) {
  const GraphDef& g = *ctx.graph;
  auto all_ops = split_fused_name(op_name, g, [&](const std::string& n) { return has_op(my, n); });
  auto counts = ctx.counts(ge);
  if (!counts.ok()) {
    out.pairs.push_back(on_op(
        problem_row(ctx, token, "", plain(ge), RowProblem::from_error(RowProblem::Kind::kMyUnreadable, counts.error())),
        op_name, ge));
    return;
  }
  if (all_ops.empty()) {
    std::string_view type = ge.raw_name().substr(0, ge.raw_name().find('.'));
    if (type.find("Cast") != std::string::npos || type.find("TransData") != std::string::npos) {
      for (uint32_t k = 0; k < counts->inputs && k < counts->outputs; ++k) {
        out.pairs.push_back(labelled(make_pair(ctx, token, cell(ge, "inputs", k), cell(ge, "outputs", k),
                                               ge_slot(ge, Role::kInput, k), ge_slot(ge, Role::kOutput, k)),
                                     ge_label(op_name, ge, Role::kInput, k), ge_label(op_name, ge, Role::kOutput, k)));
      }
      return;
    }
    out.pairs.push_back(
        on_op(problem_row(ctx, token, "", plain(ge),
                          RowProblem::not_paired("GE op " + op_name + " not found in graph " + ctx.graph_path + ".")),
              op_name, ge));
    return;
  }
  std::vector<PairSpec> rows;
  std::string missing;
  if (all_ops.size() == 1) {
    auto scan = scan_tags(*g.find(all_ops[0]), fx);
    missing = scan.missing;
    for (const auto* node : scan.found) {
      rows.clear();  // msit reassigns: only the last matching tag's rows survive (ids still used)
      fx_rows(ctx, token, op_name, ge, *counts, node->first, node->second, true, true, rows);
    }
    if (scan.found.empty() && scan.missing.empty()) ++out.ops_without_rows;
  } else {
    auto first = scan_tags(*g.find(all_ops.front()), fx);
    auto last = scan_tags(*g.find(all_ops.back()), fx);
    for (const auto* node : first.found)
      fx_rows(ctx, token, op_name, ge, *counts, node->first, node->second, true, false, rows);
    for (const auto* node : last.found)
      fx_rows(ctx, token, op_name, ge, *counts, node->first, node->second, false, true, rows);
    missing = rows.empty() ? (last.missing.empty() ? first.missing : last.missing) : "";
    if (rows.empty() && missing.empty()) ++out.ops_without_rows;
  }
  if (rows.empty() && !missing.empty()) {
    out.pairs.push_back(on_op(
        problem_row(ctx, token, "", plain(ge),
                    RowProblem::no_golden("FX data missing: GE op " + op_name + ", FX tensor name " + missing + ".")),
        op_name, ge));
  }
  for (auto& r : rows) out.pairs.push_back(std::move(r));
}

std::vector<std::string> graph_input_names(const GraphOp& op) {
  std::vector<std::string> v;
  for (const auto& in : op.inputs) {
    size_t colon = in.rfind(':');
    v.push_back(colon == std::string::npos ? std::string() : in.substr(0, colon));
  }
  return v;
}

struct GoldenSide {
  std::vector<TensorSlot> inputs;
  std::vector<std::string> input_cells;
  std::vector<TensorLabel> input_labels;
  std::string output_op;  // the op whose outputs are the golden outputs
  const SourceFile* output_file = nullptr;
  uint32_t outputs = 0;
  RowProblem error;  // unreadable golden file
};

GoldenSide gather_fused(MatchContext& ctx, const std::string& fused, const TokenFiles& my, const TokenFiles& golden,
                        std::vector<std::string>& warnings) {
  GoldenSide gs;
  std::vector<std::string> names, ops;
  std::vector<TensorSlot> slots;
  std::vector<std::string> cells;
  std::vector<TensorLabel> labels;
  auto parts =
      split_fused_name(fused, *ctx.graph, [&](const std::string& n) { return has_op(my, n) || has_op(golden, n); });
  size_t consumed = 0;
  for (const auto& part : parts) consumed += part.size();
  if (consumed < fused.size())
    warnings.push_back("failed parsing fused op name " + fused.substr(consumed) + "; compare manually if required");
  for (const auto& op : parts) {
    auto in_names = graph_input_names(*ctx.graph->find(op));
    const SourceFile* f = golden.ge_file(op);
    if (f) {
      auto c = ctx.counts(*f);
      if (!c.ok()) {
        gs.error = RowProblem::from_error(RowProblem::Kind::kGoldenUnreadable, c.error());
        return gs;
      }
      size_t n = std::min<size_t>(in_names.size(), c->inputs);
      in_names.resize(n);
      for (uint32_t k = 0; k < n; ++k) {
        slots.push_back(ge_slot(*f, Role::kInput, k));
        cells.push_back(cell(*f, "inputs", k));
        labels.push_back(ge_label(op, *f, Role::kInput, k));
      }
      gs.output_file = f;
      gs.output_op = op;
      gs.outputs = c->outputs;
    } else {
      warnings.push_back("no dump data for op " + op + " (component of " + fused +
                         "); input matching may be incorrect");
      for (size_t k = 0; k < in_names.size(); ++k) {
        slots.push_back({SlotKind::kEmpty, nullptr, Role::kInput, 0});
        cells.emplace_back();
        labels.push_back(TensorLabel{op, "", TensorRole::kInput, static_cast<uint32_t>(k)});
      }
    }
    names.insert(names.end(), in_names.begin(), in_names.end());
    ops.push_back(op);
  }
  for (size_t i = 0; i < names.size(); ++i) {
    if (std::find(ops.begin(), ops.end(), names[i]) != ops.end()) continue;  // produced inside the fusion
    gs.inputs.push_back(slots[i]);
    gs.input_cells.push_back(cells[i]);
    gs.input_labels.push_back(labels[i]);
  }
  return gs;
}

void ge_ge_op(MatchContext& ctx, int64_t token, const std::string& op_name, const SourceFile& mine,
              const TokenFiles& my, const TokenFiles& golden, MatchResult& out) {
  GoldenSide gs;
  if (mine.raw_name().rfind("AutomaticBufferFusionOp", 0) == 0) {
    gs = gather_fused(ctx, op_name, my, golden, out.warnings);
  } else if (const SourceFile* f = golden.ge_file(op_name)) {
    auto c = ctx.counts(*f);
    if (!c.ok()) gs.error = RowProblem::from_error(RowProblem::Kind::kGoldenUnreadable, c.error());
    else {
      for (uint32_t k = 0; k < c->inputs; ++k) {
        gs.inputs.push_back(ge_slot(*f, Role::kInput, k));
        gs.input_cells.push_back(plain(*f));
        gs.input_labels.push_back(ge_label(op_name, *f, Role::kInput, k));
      }
      gs.output_file = f;
      gs.output_op = op_name;
      gs.outputs = c->outputs;
    }
  } else {
    out.pairs.push_back(on_op(
        problem_row(ctx, token, "", plain(mine), RowProblem::no_golden("golden data missing for op " + op_name + ".")),
        op_name, mine));
    return;
  }
  auto mc = ctx.counts(mine);
  if (gs.error.any() || !mc.ok()) {
    RowProblem why = gs.error.any() ? gs.error : RowProblem::from_error(RowProblem::Kind::kMyUnreadable, mc.error());
    out.pairs.push_back(on_op(problem_row(ctx, token, "", plain(mine), why), op_name, mine));
    return;
  }
  // msit's accumulating golden output cell (docs/formats/report.md §3).
  std::string out_cell = gs.output_file ? plain(*gs.output_file) : "";
  for (uint32_t k = 0; k < gs.inputs.size() && k < mc->inputs; ++k) {
    if (k == 0) out_cell += ",inputs,0";  // msit adds the first input's tail only
    out.pairs.push_back(labelled(
        make_pair(ctx, token, gs.input_cells[k], cell(mine, "inputs", k), gs.inputs[k], ge_slot(mine, Role::kInput, k)),
        gs.input_labels[k], ge_label(op_name, mine, Role::kInput, k)));
  }
  for (uint32_t k = 0; gs.output_file && k < gs.outputs && k < mc->outputs; ++k) {
    out_cell += ",outputs," + std::to_string(k);
    out.pairs.push_back(labelled(make_pair(ctx, token, out_cell, cell(mine, "outputs", k),
                                           ge_slot(*gs.output_file, Role::kOutput, k), ge_slot(mine, Role::kOutput, k)),
                                 ge_label(gs.output_op, *gs.output_file, Role::kOutput, k),
                                 ge_label(op_name, mine, Role::kOutput, k)));
  }
}

template <class Fn>
void for_common_tokens(const DumpGroup& my, const DumpGroup& golden, MatchResult& out, Fn fn) {
  for (const auto& [token, files] : my.tokens) {
    auto it = golden.tokens.find(token);
    if (it == golden.tokens.end()) {
      out.warnings.push_back(token_missing_warning(token, my));
      continue;
    }
    fn(token, files, it->second);
  }
}

}  // namespace

std::vector<std::string> split_fused_name(std::string name, const GraphDef& graph,
                                          const std::function<bool(const std::string&)>& is_dump_op) {
  std::vector<std::string> ops;
  while (!name.empty()) {
    std::string found;
    if (graph.find(name)) {
      found = name;
    } else {
      for (size_t len = name.size() - 1; len > 0; --len) {
        std::string prefix = name.substr(0, len);
        if (graph.find(prefix)) {
          found = prefix;
          break;
        }
        if (is_dump_op(prefix)) break;  // a dump op but not a graph op: msit gives up
      }
    }
    if (found.empty()) break;
    name.erase(0, found.size());
    ops.push_back(std::move(found));
  }
  return ops;
}

std::string token_missing_warning(int64_t token, const DumpGroup& my) {
  return "my token_id " + std::to_string(token) + " not found in golden dump data (group " + my.key + ")";
}

std::string_view msit_sort_key(std::string_view my_cell) {
  size_t dot = my_cell.rfind('.');
  return dot == std::string_view::npos ? my_cell : my_cell.substr(dot + 1);
}

std::string_view least_sort_key(const SourceFile& my_file) {
  return msit_sort_key(my_file.kind == SourceKind::kMinMax ? my_file.path() : my_file.raw_path);
}

void sort_rows_msit(std::vector<PairSpec>& rows, size_t begin, size_t end) {
  const auto first = rows.begin() + static_cast<std::ptrdiff_t>(begin);
  const auto last = rows.begin() + static_cast<std::ptrdiff_t>(end);
  auto less = [](const PairSpec& a, const PairSpec& b) { return msit_sort_key(a.my_cell) < msit_sort_key(b.my_cell); };
  // A token's rows mostly come in dump-timestamp order already: checked first, since the stable
  // sort moves every PairSpec (with its strings) through a buffer even then.
  if (!std::is_sorted(first, last, less)) std::stable_sort(first, last, less);
}

void number_rows(std::vector<PairSpec>& rows, size_t begin, size_t end) {
  for (size_t i = begin; i < end; ++i) { rows[i].my_label.order = rows[i].golden_label.order = i - begin; }
}

void match_ge_fx_token(MatchContext& ctx, int64_t token, const TokenFiles& m, const TokenFiles& g, MatchResult& out) {
  for (const auto* op : graph_order(m, *ctx.graph)) ge_fx_op(ctx, token, op->first, op->second, m, g, out);
}

void match_ge_ge_token(MatchContext& ctx, int64_t token, const TokenFiles& m, const TokenFiles& g, MatchResult& out) {
  for (const auto* op : graph_order(m, *ctx.graph)) ge_ge_op(ctx, token, op->first, op->second, m, g, out);
}

void match_ge_fx(MatchContext& ctx, const DumpGroup& my, const DumpGroup& golden, MatchResult& out) {
  for_common_tokens(my, golden, out, [&](int64_t token, const TokenFiles& m, const TokenFiles& g) {
    match_ge_fx_token(ctx, token, m, g, out);
  });
}

void match_ge_ge(MatchContext& ctx, const DumpGroup& my, const DumpGroup& golden, MatchResult& out) {
  for_common_tokens(my, golden, out, [&](int64_t token, const TokenFiles& m, const TokenFiles& g) {
    match_ge_ge_token(ctx, token, m, g, out);
  });
}

void match_fx_fx(MatchContext& ctx, const DumpGroup& my, const DumpGroup& golden, MatchResult& out) {
  for_common_tokens(my, golden, out, [&](int64_t token, const TokenFiles& m, const TokenFiles& g) {
    match_fx_fx_token(ctx, token, m, g, out);
  });
}

void match_fx_fx_token(MatchContext& ctx, int64_t token, const TokenFiles& m, const TokenFiles& g, MatchResult& out) {
  {
    // Execution order: by the timestamp in the first file name of each node, then by key.
    struct Node {
      std::string_view ts;  // into the file's raw_path, which the index keeps
      const std::string* key;
      const FxNodeFiles* files;
    };
    std::vector<Node> order;
    order.reserve(m.fx_nodes.size());
    for (const auto& [key, node] : m.fx_nodes) {
      const auto& files = node.outputs.empty() ? node.inputs : node.outputs;
      std::string_view ts;
      if (!files.empty()) {
        std::string_view n = files.front().raw_name();
        size_t end = n.size() - 4;  // ".npy"
        size_t dot = n.rfind('.', end - 1);
        if (dot != std::string_view::npos) ts = n.substr(dot + 1, end - dot - 1);
      }
      order.push_back(Node{ts, &key, &node});
    }
    std::stable_sort(order.begin(), order.end(), [](const Node& a, const Node& b) { return a.ts < b.ts; });
    for (const auto& [ts, key, node] : order) {
      const FxNodeFiles& mn = *node;
      auto it = g.fx_nodes.find(*key);
      if (it == g.fx_nodes.end()) {
        const auto& f = mn.outputs.empty() ? mn.inputs.front() : mn.outputs.front();
        PairSpec p = problem_row(ctx, token, "", plain(f),
                                 RowProblem::no_golden("golden data missing for FX node " + *key + "."));
        p.my_label = fx_label(*key, Role::kOutput, 0);
        p.my_label.role = TensorRole::kUnknown;
        out.pairs.push_back(std::move(p));
        continue;
      }
      const FxNodeFiles& gn = it->second;
      for (size_t k = 0; k < mn.inputs.size() && k < gn.inputs.size(); ++k) {
        auto kk = static_cast<uint32_t>(k);
        out.pairs.push_back(labelled(make_pair(ctx, token, plain(gn.inputs[k]), plain(mn.inputs[k]),
                                               fx_slot(gn.inputs[k]), fx_slot(mn.inputs[k])),
                                     fx_label(*key, Role::kInput, kk), fx_label(*key, Role::kInput, kk)));
      }
      for (size_t k = 0; k < mn.outputs.size() && k < gn.outputs.size(); ++k) {
        auto kk = static_cast<uint32_t>(k);
        out.pairs.push_back(labelled(make_pair(ctx, token, plain(gn.outputs[k]), plain(mn.outputs[k]),
                                               fx_slot(gn.outputs[k]), fx_slot(mn.outputs[k])),
                                     fx_label(*key, Role::kOutput, kk), fx_label(*key, Role::kOutput, kk)));
      }
    }
  }
}

}  // namespace msit
