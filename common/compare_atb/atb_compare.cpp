// The ATB/torch compare as a list of steps: open both sides, load the mapping table, pair the
// tokens, match the trees per sheet, expand matches into file pairs, evaluate them in parallel.
#include "common/compare_atb/atb_compare.h"

#include <stdlib.h>

#include <algorithm>
#include <atomic>
#include <deque>
#include <filesystem>
#include <map>
#include <set>
#include <string_view>
#include <thread>
#include <unordered_map>

#include "common/compare/engine.h"
#include "common/compare/file_cache.h"
#include "common/compare_atb/atb_compare_internal.h"
#include "common/compare_atb/concat.h"
#include "common/compare_atb/files.h"
#include "common/compare_atb/match_internal.h"
#include "common/compare_atb/rope.h"
#include "common/compare_atb/side.h"

namespace msit::atb {
namespace {

struct Job {
  size_t sheet = 0;
  size_t pair = 0;          // the sheet's token pair it belongs to (index into the pairs compared)
  int64_t token_id = 0;     // what the post-pass groups its rows by (the spec's token)
  bool input_only = false;  // an op input for the first-divergence rule: evaluated, not written
  PairSpec spec;
  std::string token_text, golden_type, my_type, note;
  std::vector<SourceFile> golden_ranks, my_ranks;  // > 1 entry: concatenate
  std::optional<RopeFix> rope;                     // golden rotary data: msit's rope fix-ups
};

}  // namespace

std::string real_path(const std::string& p) {
  char* r = ::realpath(p.c_str(), nullptr);
  if (!r) return p;
  std::string s(r);
  ::free(r);
  return s;
}

bool is_digits(const std::string& s) {
  return !s.empty() && s.size() < 18 && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::vector<std::pair<const TokenDir*, const TokenDir*>> token_pairs(const DumpSide& g, const DumpSide& m) {
  std::vector<std::pair<const TokenDir*, const TokenDir*>> out;
  std::unordered_map<std::string_view, std::vector<const TokenDir*>> golden;  // by key, in golden order
  for (const auto& gt : g.tokens) golden[gt.key].push_back(&gt);
  for (const auto& mt : m.tokens) {
    auto it = golden.find(mt.key);
    if (it == golden.end()) continue;
    for (const TokenDir* gt : it->second) out.emplace_back(gt, &mt);
  }
  if (out.empty() && g.given_token && m.given_token) {
    for (const auto& gt : g.tokens)
      for (const auto& mt : m.tokens) out.emplace_back(&gt, &mt);
  }
  return out;
}

// The numbered tokens each side has and the other lacks.
Coverage token_coverage(const DumpSide& g, const DumpSide& m) {
  auto numbers = [](const DumpSide& s) {
    std::vector<int64_t> out;
    for (const auto& t : s.tokens)
      if (is_digits(t.key)) out.push_back(std::stoll(t.key));
    return out;
  };
  const std::vector<int64_t> mine = numbers(m), gold = numbers(g);
  Coverage c;
  RankCoverage rc;
  rc.my_only_tokens = only_in(mine, gold);
  rc.golden_only_tokens = only_in(gold, mine);
  if (!rc.my_only_tokens.empty() || !rc.golden_only_tokens.empty()) c.ranks.push_back(std::move(rc));
  return c;
}

// Only dumps laid out by msit's tools have ranks as siblings; elsewhere a sibling is another dump.
std::vector<std::string> rank_siblings(const DumpSide& s) {
  std::string parent = std::filesystem::path(s.process_dir).parent_path().filename().string();
  if (parent != "tensors" && parent != "torch_tensors") return {};
  return sibling_process_dirs(s);
}

bool tree_allowed(const DumpSide& s, const TokenDir& t, uint32_t tree) {
  if (t.filter == TreeFilter::kAll) return true;
  return static_cast<int>(tree) == (t.filter == TreeFilter::kEncode ? s.encode_tree : s.decode_tree);
}

std::vector<MappingEntry> load_mapping(const AtbCompareOptions& o, std::vector<std::string>& warnings) {
  if (!o.op_mapping_dir) return custom_table({});
  std::string path = (std::filesystem::path(*o.op_mapping_dir) / "op_mapping_file.json").string();
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    warnings.push_back(path + ": not found; only the built-in mapping tables are used");
    return custom_table({});
  }
  auto text = read_topology_file(path);
  auto user =
      text.ok() ? parse_op_mapping(*text, path, o.msit_compat) : Result<std::vector<MappingEntry>>(text.error());
  if (!user.ok()) {
    warnings.push_back(user.error().to_string() + "; only the built-in mapping tables are used");
    return custom_table({});
  }
  return custom_table(*user);
}

std::vector<Match> sheet_matches(const DumpSide& g, const DumpSide& m, PolicySet set, const MatchOptions& mo) {
  std::vector<Match> all;
  size_t n = std::max(g.trees.size(), m.trees.size());
  for (size_t i = 0; i < n; ++i) {
    auto gi = static_cast<uint32_t>(i % g.trees.size()), mi = static_cast<uint32_t>(i % m.trees.size());
    auto part = match_tree_pair(g.trees[gi], gi, m.trees[mi], mi, set, mo);
    all.insert(all.end(), std::make_move_iterator(part.begin()), std::make_move_iterator(part.end()));
  }
  std::stable_sort(all.begin(), all.end(), [&](const Match& a, const Match& b) {
    return m.trees[a.my.tree].nodes[a.my.node].show_order < m.trees[b.my.tree].nodes[b.my.node].show_order;
  });
  return all;
}

namespace {

TreeOrder tree_order(const TopoTree& t) {
  TreeOrder o{std::vector<uint64_t>(t.nodes.size()), std::vector<uint64_t>(t.nodes.size())};
  uint64_t clock = 0;
  std::vector<std::pair<uint32_t, size_t>> stack;  // node, next child
  if (!t.nodes.empty()) stack.emplace_back(0, 0);
  if (!t.nodes.empty()) o.start[0] = clock++;
  while (!stack.empty()) {
    auto& [n, next] = stack.back();
    const auto& kids = t.nodes[n].children;
    if (next < kids.size()) {
      uint32_t c = kids[next++];
      o.start[c] = clock++;
      stack.emplace_back(c, 0);
    } else {
      o.end[n] = clock++;
      stack.pop_back();
    }
  }
  return o;
}

}  // namespace

// The tensor a dump file is (docs/formats/atb-torch.md §1-§2): ATB intensor{k} / outtensor{k}
// (an irName may follow), torch input_{k} / output / output_{k}.
void file_role(std::string_view name, TensorLabel& l) {
  auto digits = [&](size_t at) {
    uint32_t k = 0;
    while (at < name.size() && name[at] >= '0' && name[at] <= '9' && k < 100000) k = k * 10 + (name[at++] - '0');
    return k;
  };
  for (auto [tag, role] : {std::pair<std::string_view, TensorRole>{"intensor", TensorRole::kInput},
                           {"outtensor", TensorRole::kOutput},
                           {"input_", TensorRole::kInput},
                           {"output_", TensorRole::kOutput},
                           {"output.", TensorRole::kOutput}}) {
    if (name.starts_with(tag)) {
      l.role = role;
      l.index = tag == "output." ? 0 : digits(tag.size());
      return;
    }
  }
}

TensorLabel Labeler::node_label(const Endpoint& e, TensorRole role, uint32_t index) {
  const TopoNode& n = s_.trees[e.tree].nodes[e.node];
  if (orders_.empty()) {
    for (const auto& tree : s_.trees) orders_.push_back(tree_order(tree));
  }
  TensorLabel l;
  l.op = s_.kind == SideKind::kAtb ? n.tensor_path : n.name;
  l.op_type = n.type;
  l.role = role;
  l.index = index;
  const TreeOrder& o = orders_[e.tree];
  uint64_t at = role == TensorRole::kInput ? o.start[e.node] : o.end[e.node];
  l.order = (uint64_t{e.tree} << 40) + at;  // trees (encode, decode) run one after the other
  return l;
}

TensorLabel Labeler::label(const Endpoint& e, const SourceFile& f) {
  TensorLabel file;
  file_role(f.raw_name(), file);
  return node_label(e, file.role, file.index);
}

namespace {

struct Expander {
  const DumpSide& g;
  const DumpSide& m;
  const AtbCompareOptions& o;
  std::vector<std::string> g_sibs, m_sibs;
  std::deque<SourceFile> files;  // stable addresses for the PairSpec slots
  std::vector<Job> jobs;
  uint64_t next_id = 0;
  Labeler g_labels, m_labels;
  std::set<std::string> inputs_done;  // of the token pairs expanded since the last take()
  size_t pair = 0;                    // the token pair being expanded

  // The jobs expanded so far, handed over; what they point into (files) is kept until the next take.
  std::vector<Job> take() {
    std::vector<Job> out = std::move(jobs);
    jobs.clear();
    inputs_done.clear();
    return out;
  }
  // After the jobs taken last are evaluated: their files are no longer pointed to.
  void drop_files() { files.clear(); }

  std::string rel(const DumpSide& s, const Endpoint& e, const TokenDir& t) {
    return o.robust_dirs && s.kind == SideKind::kAtb ? robust_rel(s.trees[e.tree], e.node, t.dir) : std::string();
  }

  void expand(size_t sheet, const std::vector<Match>& matches, const TokenDir& gt, const TokenDir& mt) {
    for (const Match& mm : matches) {
      if (!tree_allowed(m, mt, mm.my.tree) || !tree_allowed(g, gt, mm.golden.tree)) continue;
      auto gf =
          endpoint_files(g, g.trees[mm.golden.tree], gt.dir, mm.golden, true, rel(g, mm.golden, gt), !o.msit_compat);
      auto mf = endpoint_files(m, m.trees[mm.my.tree], mt.dir, mm.my, false, rel(m, mm.my, mt), !o.msit_compat);
      apply_qwen_fixup(gf, mf);
      RopeFix fix = read_rope_fix(select_rope_files(mf), o.msit_compat);
      for (auto [gi, mi] : pair_files(gf, mf)) add_job(sheet, mm, gf[gi], mf[mi], mt, fix);
      if (mm.my.loc != Loc::kAllInput) add_inputs(sheet, mm, gt, mt);
    }
  }

  // The matched op's inputs where both sides dumped them (ATB before/intensor{k}, torch
  // input_{k}), paired by k: the first-divergence rule's input error of the op (docs/compare.md
  // "First divergence"). Once per op pair and token; not written to the report.
  void add_inputs(size_t sheet, const Match& mm, const TokenDir& gt, const TokenDir& mt) {
    Endpoint ge = mm.golden, me = mm.my;
    ge.loc = me.loc = Loc::kAllInput;
    ge.file.clear();
    me.file.clear();
    std::string key = std::to_string(sheet) + "|" + gt.dir + "|" + mt.dir + "|" + MatchSink::key_of(Match{me, ge});
    if (!inputs_done.insert(std::move(key)).second) return;
    auto by_index = [](std::vector<SourceFile> files) {
      std::map<uint32_t, SourceFile> m;  // ATB: before/ is listed after after/ and wins
      for (auto& f : files) {
        TensorLabel l;
        file_role(f.raw_name(), l);
        if (l.role == TensorRole::kInput) m[l.index] = std::move(f);
      }
      return m;
    };
    auto gin = by_index(endpoint_files(g, g.trees[ge.tree], gt.dir, ge, true, rel(g, ge, gt), !o.msit_compat));
    auto min = by_index(endpoint_files(m, m.trees[me.tree], mt.dir, me, false, rel(m, me, mt), !o.msit_compat));
    for (auto& [k, mf] : min) {
      auto it = gin.find(k);
      if (it == gin.end()) continue;
      size_t before = jobs.size();
      add_job(sheet, Match{me, ge}, it->second, mf, mt, RopeFix{});
      for (size_t j = before; j < jobs.size(); ++j) {
        jobs[j].input_only = true;
        jobs[j].rope.reset();
        jobs[j].spec.data_id.reset();
        --next_id;
      }
    }
  }

  void add_job(size_t sheet, const Match& mm, const SourceFile& gf, const SourceFile& mf, const TokenDir& mt,
               const RopeFix& fix) {
    Job j;
    j.sheet = sheet;
    j.pair = pair;
    j.spec.data_id = next_id++;
    j.spec.token = is_digits(mt.key) ? std::stoll(mt.key) : 0;
    j.token_id = j.spec.token;
    j.token_text = is_digits(mt.key) ? "" : mt.key;
    j.golden_type = g.trees[mm.golden.tree].nodes[mm.golden.node].type;
    j.my_type = m.trees[mm.my.tree].nodes[mm.my.node].type;
    if (rope_data_fix_applies(gf, g.process_dir)) {
      // msit fixes up the first rank's data only and compares it without concatenation.
      j.rope = fix;
      j.rope->rope_type = rope_type_of(mf);
      if (g_sibs.size() > 1 || m_sibs.size() > 1) j.note = "rope: selected rank only, not concatenated";
    }
    bool ranks = !j.rope;
    j.golden_ranks = ranks && g_sibs.size() > 1 ? rank_files(g, g_sibs, gf) : std::vector<SourceFile>{gf};
    j.my_ranks = ranks && m_sibs.size() > 1 ? rank_files(m, m_sibs, mf) : std::vector<SourceFile>{mf};
    j.spec.golden_cell = real_path(gf.raw_path);
    j.spec.my_cell = real_path(mf.raw_path);
    const SourceFile& gs = files.emplace_back(gf);
    const SourceFile& ms = files.emplace_back(mf);
    j.spec.golden_label = g_labels.label(mm.golden, gf);
    j.spec.my_label = m_labels.label(mm.my, mf);
    j.spec.golden = TensorSlot{SlotKind::kFxFile, &gs, Role::kOutput, 0};
    j.spec.my = TensorSlot{SlotKind::kFxFile, &ms, Role::kOutput, 0};
    jobs.push_back(std::move(j));
  }
};

// What the matcher numbers and names for a job's row: its token, row id and each side's label
// (the spec's), then the token's text and each side's op type (the job's). A cached row takes
// them afresh too: the row counter moves as the trees grow.
void name_from_spec(ReportRow& r, const PairSpec& p) {
  r.token_id = p.token;
  r.data_id = p.data_id;
  r.golden_label = p.golden_label;
  r.my_label = p.my_label;
}
void name_from_job(ReportRow& r, const Job& j) {
  r.token_text = j.token_text;
  r.golden_op_type = j.golden_type;
  r.my_op_type = j.my_type;
}

ReportRow run_job(Job& j, FileCache& cache, const EvalOptions& eo) {
  ReportRow r;
  bool concat = j.golden_ranks.size() > 1 || j.my_ranks.size() > 1;
  std::string why;
  if (concat) {
    name_from_spec(r, j.spec);
    r.golden_data_path = j.spec.golden_cell;
    r.my_data_path = j.spec.my_cell;
    if (!evaluate_concat(j.golden_ranks, j.my_ranks, r, why)) concat = false;
  }
  if (j.rope) {
    const SourceFile& gf = *j.spec.golden.file;
    const SourceFile& mf = *j.spec.my.file;
    r = evaluate_rope_pair(std::move(j.spec), gf, mf, *j.rope, cache, eo);
  } else if (!concat) {
    r = evaluate_pair(std::move(j.spec), cache, eo, nullptr, nullptr);
  }
  name_from_job(r, j);
  std::string note = j.note;
  if (!why.empty()) {
    note += std::string(note.empty() ? "" : "; ") + "ranks not concatenated (" + why + "): selected rank only";
  } else if (j.golden_ranks.size() > 1 || j.my_ranks.size() > 1) {
    note += std::string(note.empty() ? "" : "; ") + "concatenated " + std::to_string(j.golden_ranks.size()) +
            " golden / " + std::to_string(j.my_ranks.size()) + " my rank files";
  }
  if (!note.empty()) r.note = r.note.empty() ? note : r.note + "; " + note;
  return r;
}

// What stands for a job's pair in the row cache: the sheet, both cells, each side's slot and file
// kind (raw -> summary changes it), the rank files concatenated, the rope fix-up.
std::string job_key(const Job& j) {
  const PairSpec& p = j.spec;
  std::string k = std::to_string(j.sheet) + (j.input_only ? "i" : "o") + (j.rope ? "r" : "-");
  k += std::to_string(j.golden_ranks.size()) + '/' + std::to_string(j.my_ranks.size());
  for (const auto* files : {&j.golden_ranks, &j.my_ranks})
    for (const SourceFile& f : *files) k += '\x1f' + f.raw_path + static_cast<char>('0' + static_cast<int>(f.kind));
  k += '\x1f' + p.my_cell + '\x1f' + p.golden_cell + '\x1f' + row_problem_key(p.problem) + '\x1f';
  for (const TensorSlot* s : {&p.my, &p.golden}) {
    k += static_cast<char>('0' + static_cast<int>(s->kind));
    k += static_cast<char>('0' + (s->file ? static_cast<int>(s->file->kind) : 9));
  }
  return k;
}

// A cached row for this run: what the matcher numbers and names afresh (the row counter moves as
// the trees grow) comes from the job, the measures from the cache.
ReportRow from_cache(const ReportRow& cached, const Job& j) {
  ReportRow r = cached;
  name_from_spec(r, j.spec);
  r.group = j.spec.group;
  r.msit_row = j.spec.msit_row;
  name_from_job(r, j);
  return r;
}

// The one evaluator (common/compare/engine.h), a chunk of jobs at a time; pairs that concatenate
// rank files or need msit's rope fix-ups are evaluated here (run_job), the others read in its
// batches. With a row cache, a pair it has a row for is not read again; the cache is replaced by
// this run's rows at finish().
class Evaluator {
 public:
  explicit Evaluator(const AtbCompareOptions& o) : o_(o) {
    if (o_.row_cache) o_.row_cache->hits = 0;
  }

  // The rows of `jobs`, in job order, before the post-pass.
  std::vector<ReportRow> evaluate(std::vector<Job>& jobs) {
    FileCache cache;  // per chunk: what it keeps is the chunk's files
    std::vector<ReportRow> rows(jobs.size());
    // With a row cache, only the pairs it has no row for are evaluated (todo: their job indexes).
    std::vector<std::string> keys;
    std::vector<size_t> todo;
    if (o_.row_cache) keys.resize(jobs.size());
    for (size_t i = 0; i < jobs.size(); ++i) {
      if (o_.row_cache) {
        keys[i] = job_key(jobs[i]);
        auto hit = o_.row_cache->rows.find(keys[i]);
        if (hit != o_.row_cache->rows.end()) {
          rows[i] = from_cache(hit->second, jobs[i]);
          kept_.insert(o_.row_cache->rows.extract(hit));
          ++o_.row_cache->hits;
          continue;
        }
      }
      todo.push_back(i);
    }
    std::vector<EvalItem> items(todo.size());
    for (size_t k = 0; k < todo.size(); ++k) {
      const Job& j = jobs[todo[k]];
      items[k] = EvalItem{&jobs[todo[k]].spec, &rows[todo[k]],
                          j.rope.has_value() || j.golden_ranks.size() > 1 || j.my_ranks.size() > 1};
    }
    EngineOptions eo;
    eo.jobs = o_.jobs;
    eo.eval = o_.eval;
    eo.custom = [&](size_t k, FileCache& c) { return run_job(jobs[todo[k]], c, o_.eval); };
    eo.finish = [&](size_t k, ReportRow& r) {
      if (items[k].custom) return;  // run_job filled these
      const Job& j = jobs[todo[k]];
      r.token_text = j.token_text;
      r.golden_op_type = j.golden_type;
      r.my_op_type = j.my_type;
      if (!j.note.empty()) r.note = r.note.empty() ? j.note : r.note + "; " + j.note;
    };
    evaluate_items(items, cache, eo);
    if (o_.row_cache) {
      // Kept before the post-pass marks them: a cached row is a fresh evaluation's row.
      for (size_t i : todo)
        if (rows[i].fail_reason == FailReason::kNone && !rows[i].problem.any())
          kept_.emplace(std::move(keys[i]), rows[i]);
      evaluated_ += todo.size();
    }
    return rows;
  }

  // The row cache holds this run's rows (a run cut short keeps the earlier rows it did not reach).
  void finish(bool complete) {
    if (!o_.row_cache) return;
    o_.row_cache->evaluated = evaluated_;
    if (complete) o_.row_cache->rows = std::move(kept_);
    else o_.row_cache->rows.merge(kept_);
  }

 private:
  const AtbCompareOptions& o_;
  std::map<std::string, ReportRow> kept_;
  size_t evaluated_ = 0;
};

// One sheet's rows on their way to the sink. The post-pass judges the rows of one token id
// together (common/compare/divergence.h mark_error_jumps), with the ops' inputs (the input error
// of the first-divergence rule, docs/compare.md "First divergence"), which are dropped afterwards
// so the sheet keeps msit's rows. A token pair's rows join its id's; once the id's last pair is
// evaluated they are post-passed, and rows go on in report order as soon as every row before them
// is post-passed. Token ids are unique but for keys that are not numbers (0, as "warmup" and
// "weights" are) and token directories compared pairwise: those rows wait for their id's last pair.
class SheetRows {
 public:
  // last_pair: the index of each token id's last pair in the sheet.
  SheetRows(RowSink& sink, std::map<int64_t, size_t> last_pair) : sink_(sink), last_pair_(std::move(last_pair)) {}

  // The rows of one pair (its jobs' in job order): shown rows and the ops' inputs.
  void add_pair(int64_t id, size_t pair, std::vector<ReportRow>& outputs, std::vector<ReportRow>& inputs) {
    Group& g = groups_[id];
    if (!outputs.empty()) {
      order_.emplace_back(id, outputs.size());
      ++g.entries;
    }
    std::move(outputs.begin(), outputs.end(), std::back_inserter(g.outputs));
    std::move(inputs.begin(), inputs.end(), std::back_inserter(g.inputs));
    outputs.clear();
    inputs.clear();
    if (last_pair_.at(id) != pair) return;
    g.done = true;
    if (g.outputs.empty()) return;
    const size_t shown = g.outputs.size();
    std::move(g.inputs.begin(), g.inputs.end(), std::back_inserter(g.outputs));
    g.inputs = {};
    post_pass(g.outputs);
    g.outputs.resize(shown);
  }

  // Every row whose rows before it are all post-passed, to the sink.
  Status flush() {
    std::vector<ReportRow> out;
    while (!order_.empty()) {
      auto [id, n] = order_.front();
      auto it = groups_.find(id);
      Group& g = it->second;
      if (!g.done) break;
      auto from = g.outputs.begin() + static_cast<std::ptrdiff_t>(g.sent);
      std::move(from, from + static_cast<std::ptrdiff_t>(n), std::back_inserter(out));
      g.sent += n;
      order_.pop_front();
      if (--g.entries == 0) groups_.erase(it);
    }
    std::erase_if(groups_, [](const auto& kv) { return kv.second.done && kv.second.entries == 0; });
    return out.empty() ? ok_status() : sink_.rows(out);
  }

 private:
  struct Group {
    std::vector<ReportRow> outputs, inputs;
    size_t sent = 0;     // outputs handed on
    size_t entries = 0;  // its parts in order_ not yet handed on
    bool done = false;   // its last pair is in
  };
  RowSink& sink_;
  std::map<int64_t, size_t> last_pair_;
  std::map<int64_t, Group> groups_;
  std::deque<std::pair<int64_t, size_t>> order_;  // (token id, rows) of each pair with rows, report order
};

// Hands a chunk's evaluated rows to the sheet, pair by pair: [first, end) are the chunk's pairs.
void add_chunk(SheetRows& sheet, size_t first, size_t end, const std::vector<int64_t>& pair_ids,
               const std::vector<Job>& jobs, std::vector<ReportRow>& rows) {
  std::vector<ReportRow> outputs, inputs;
  size_t j = 0;
  for (size_t p = first; p < end; ++p) {
    for (; j < jobs.size() && jobs[j].pair == p; ++j)
      (jobs[j].input_only ? inputs : outputs).push_back(std::move(rows[j]));
    sheet.add_pair(pair_ids[p], p, outputs, inputs);
  }
}

// A model of 10 layers or fewer has no layer type by msit's rule (docs/compare.md "Small models"):
// the layer, module and mapping-table policies then pair nothing, as in msit. Said once per side,
// so that a near-empty report is not silent.
void warn_no_layers(const DumpSide& s, const std::string& path, std::vector<std::string>& warnings) {
  for (const TopoTree& t : s.trees) {
    std::string why = no_layer_type_reason(t);
    if (why.empty()) continue;
    warnings.push_back(path + ": no layers found in " + t.source + " (" + why +
                       "): as in msit, the layer and module sheets and the layer mapping tables pair nothing "
                       "(a model needs 11 layers or more)");
    return;
  }
}

}  // namespace

bool is_atb_torch_compare(const std::string& golden_path, const std::string& my_path) {
  return detect_side_kind(golden_path).has_value() && detect_side_kind(my_path).has_value();
}

namespace {

// One sheet, streamed: its token pairs expanded a chunk at a time, evaluated, post-passed per
// token id and handed to the sink.
Status stream_sheet(Expander& ex, Evaluator& ev, size_t s, size_t chunk_jobs, const std::vector<Match>& matches,
                    const std::vector<std::pair<const TokenDir*, const TokenDir*>>& tokens, RowSink& sink) {
  std::vector<int64_t> ids(tokens.size());
  std::map<int64_t, size_t> last_pair;
  for (size_t p = 0; p < tokens.size(); ++p) {
    const std::string& key = tokens[p].second->key;
    ids[p] = is_digits(key) ? std::stoll(key) : 0;
    last_pair[ids[p]] = p;
  }
  SheetRows sheet(sink, std::move(last_pair));
  for (size_t p = 0; p < tokens.size();) {
    const size_t first = p;
    while (p < tokens.size() && (p == first || ex.jobs.size() < chunk_jobs)) {
      ex.pair = p;
      ex.expand(s, matches, *tokens[p].first, *tokens[p].second);
      ++p;
    }
    std::vector<Job> jobs = ex.take();
    std::vector<ReportRow> rows = ev.evaluate(jobs);
    add_chunk(sheet, first, p, ids, jobs, rows);
    jobs.clear();
    ex.drop_files();
    MSIT_TRY(sheet.flush());
  }
  return ok_status();
}

// Every sheet's rows kept (run_atb_compare).
class CollectSink : public RowSink {
 public:
  explicit CollectSink(std::vector<AtbSheet>& sheets) : sheets_(sheets) {}
  Status begin_rank(const RankInfo& r) override {
    sheets_.push_back(AtbSheet{r.sheet, {}});
    return ok_status();
  }
  Status rows(std::vector<ReportRow>& rows) override {
    auto& to = sheets_.back().rows;
    std::move(rows.begin(), rows.end(), std::back_inserter(to));
    return ok_status();
  }
  Status end_rank(const RankInfo&) override { return ok_status(); }

 private:
  std::vector<AtbSheet>& sheets_;
};

}  // namespace

Result<AtbCompareResult> run_atb_compare(const std::string& golden_path, const std::string& my_path,
                                         const AtbCompareOptions& o) {
  std::vector<AtbSheet> sheets;
  CollectSink sink(sheets);
  MSIT_ASSIGN_OR_RETURN(AtbCompareResult res, stream_atb_compare(golden_path, my_path, o, sink));
  res.sheets = std::move(sheets);
  return res;
}

Result<AtbCompareResult> stream_atb_compare(const std::string& golden_path, const std::string& my_path,
                                            const AtbCompareOptions& o, RowSink& sink) {
  SideOptions so{o.msit_compat, false};
  MSIT_ASSIGN_OR_RETURN(DumpSide g, open_side(golden_path, so));
  MSIT_ASSIGN_OR_RETURN(DumpSide m, open_side(my_path, so));
  AtbCompareResult res;
  auto kind = [](const DumpSide& s) { return s.kind == SideKind::kAtb ? "ATB" : "torch"; };
  res.description = std::string(kind(g)) + " (golden) vs " + kind(m) + " (my)";
  for (auto* s : {&g, &m}) res.warnings.insert(res.warnings.end(), s->warnings.begin(), s->warnings.end());
  MatchOptions mo;
  mo.custom = load_mapping(o, res.warnings);
  warn_no_layers(g, golden_path, res.warnings);
  warn_no_layers(m, my_path, res.warnings);
  auto tokens = token_pairs(g, m);
  if (!g.given_token && !m.given_token) res.coverage = token_coverage(g, m);
  if (tokens.empty()) {
    return make_error(my_path, Stage::kTokens,
                      "no token directory in common with " + golden_path +
                          " (name one token directory in each path to compare them anyway)");
  }
  if (o.skip_token) {  // after the check above: every pair left out is no error, just nothing to read
    std::erase_if(tokens, [&](const auto& t) { return o.skip_token(t.second->key, t.first->dir, t.second->dir); });
  }
  std::vector<PolicySet> sets = o.level
                                    ? std::vector<PolicySet>{*o.level}
                                    : std::vector<PolicySet>{PolicySet::kLayer, PolicySet::kModule, PolicySet::kApi};
  Expander ex{g, m, o, rank_siblings(g), rank_siblings(m), {}, {}, 0, Labeler{g}, Labeler{m}, {}, 0};
  Evaluator ev(o);
  for (size_t s = 0; s < sets.size(); ++s) {
    RankInfo sheet;
    sheet.sheet = std::string(policy_set_name(sets[s]));
    Status st = sink.begin_rank(sheet);
    if (st.ok()) st = stream_sheet(ex, ev, s, o.chunk_jobs, sheet_matches(g, m, sets[s], mo), tokens, sink);
    if (st.ok()) st = sink.end_rank(sheet);
    if (!st.ok()) {
      ev.finish(false);
      return st.error();
    }
  }
  ev.finish(true);
  return res;
}

}  // namespace msit::atb
