// LiveRootCompare's pass (docs/live-divergence.md "A pass"): compare's own matcher, evaluator and
// first-divergence post-pass, run pass by pass on a growing dump; final tokens answered once.
#include "daemon/live_root_compare.h"

#include <algorithm>
#include <cstdio>
#include <string>
#include <utility>

#include "common/compare/divergence.h"
#include "common/compare_atb/atb_compare.h"
#include "common/compare_msprobe/pairs.h"
#include "common/report/op_label.h"
#include "common/resolve/resolve.h"
#include "common/stats/tensor_stats.h"
#include "common/store/store_catalog.h"
#include "daemon/divergence_event.h"
#include "daemon/live_tree_files.h"

namespace msit::daemon {
namespace {

std::string pair_key(const PairSpec& p) {
  std::string k = p.my_cell;
  k += '\x1f';
  k += p.golden_cell;
  k += '\x1f';
  for (const TensorSlot* s : {&p.my, &p.golden}) {
    k += static_cast<char>('0' + static_cast<int>(s->kind));
    k += static_cast<char>('0' + (s->file ? static_cast<int>(s->file->kind) : 9));
  }
  return k;
}

// A row worth keeping: both sides were read and compared. Problem rows cost nothing to redo, and
// rows with a fail reason may be a side caught mid-write or mid-compaction.
bool cacheable(const PairSpec& p, const ReportRow& r) {
  return !p.problem.any() && r.fail_reason == FailReason::kNone && !r.problem.any();
}

std::string token_tag(int64_t rank, int64_t token) { return std::to_string(rank) + "/" + std::to_string(token); }

}  // namespace

LiveRootCompare::LiveRootCompare(std::string root, std::string golden, Finality f, std::string op_mapping_file)
    : root_(std::move(root)), golden_(std::move(golden)), op_mapping_file_(std::move(op_mapping_file)), my_dir_(root_),
      golden_dir_(golden_), finality_(f) {}

bool LiveRootCompare::resolve_sides(int64_t now_ns, std::vector<std::string>& notes) {
  if (flow_ || atb_) return true;  // a pass paired: the sides stay what they were then
  resolve::PairOptions po;
  po.missing_ok = true;  // a golden being dumped, a dump_path still empty
  po.command = [](const std::string& m, const std::string& g) { return "msit-compact watch " + m + " --golden " + g; };
  Result<resolve::ResolvedPair> p = resolve::resolve_pair(root_, golden_, po);
  std::optional<Error> waiting;
  if (!p.ok()) waiting = p.error();
  else if (p->my.kind == resolve::GivenKind::kUnknown)
    waiting = make_error(root_, Stage::kMatch, "no dump in " + root_ + " yet");
  else if (p->golden.kind == resolve::GivenKind::kUnknown)
    waiting = make_error(golden_, Stage::kMatch, "no dump in the golden " + golden_ + " yet");
  if (waiting) {  // said once while it lasts (note_waiting), and no token is pending
    no_pass(*waiting, now_ns, notes);
    return false;
  }
  my_dir_ = p->my.path;
  golden_dir_ = p->golden.path;
  rank_ = p->rank;
  token_ = p->token;
  // Said when the resolver read something else than the paths given (a dump_path, a folder).
  const bool as_given = my_dir_ == absolute_path(root_) && golden_dir_ == absolute_path(golden_) && !rank_ && !token_;
  if (std::string line = p->line(); line != paired_line_ && !as_given) {
    notes.push_back(root_ + ": live compare " + line);
    for (const std::string& n : p->notes) notes.push_back(root_ + ": live compare: " + n);
    paired_line_ = std::move(line);
  }
  return true;
}

std::vector<DivergenceEvent> LiveRootCompare::pass(int64_t now_ns, std::vector<std::string>& notes,
                                                   std::vector<TokenVerdict>* verdicts,
                                                   std::set<std::string>* indexed) {
  // Stores grow while the dump is summarised: each pass lists afresh those that changed (the
  // golden's, usually written once, is listed once). The previous pass's trees (which point
  // into the catalog) are gone by now; the row cache holds only copies.
  store::StoreCatalog::instance().forget_changed();
  // msProbe trees are paired by msProbe's own rules (steps, ranks), not the resolver's. An msProbe
  // golden pairs with nothing else: a watched dump_path with no dump.json yet (msProbe writes it
  // at a step's end) is an msProbe dump still on its first step.
  if (is_msprobe_path(golden_)) return pass_msprobe(now_ns, notes, verdicts, indexed);
  std::vector<DivergenceEvent> events;
  if (!resolve_sides(now_ns, notes)) return events;
  if (atb::is_atb_torch_compare(golden_dir_, my_dir_)) return pass_atb(now_ns, notes, verdicts, indexed);
  CompareOptions o;
  o.rank = rank_;
  o.token = token_;
  o.jobs = 1;  // the comparer's own thread; the workers compact (and skip_dir below is not thread-safe)
  o.eval.stats.sketch_width = kDefaultSketchWidth;
  o.flow = flow_;
  deferred_ = false;
  dir_mtimes_.clear();
  skipped_.clear();
  hidden_.clear();
  hidden_dirs_.clear();
  plan_listing();
  o.skip_dir = [this](const std::string& dir) { return skip_listing(dir); };
  o.golden_depth = IndexDepth::kTokens;  // a golden of millions of files costs its tokens
  // Finality from this pass's whole trees, before any row is judged and before retired tokens
  // are dropped from them.
  Sides mine, golden;
  o.prune = [&](std::optional<int64_t> rank, DumpTree& my, DumpTree& gold) {
    return prune_rank(rank.value_or(-1), my, gold, now_ns, mine, golden, indexed);
  };
  FileCache cache;
  Result<MatchedCompare> m = match_compare(my_dir_, golden_dir_, o, cache);
  if (!m.ok()) {
    no_pass(m.error(), now_ns, notes);
    return events;
  }
  last_error_.clear();
  flow_ = m->flow;
  if (indexed) indexed->insert(hidden_dirs_.begin(), hidden_dirs_.end());  // their files are placed
  complete_sides(*m, mine, golden);
  mine_seen_ = mine;
  golden_seen_ = golden;
  observe_finality(mine, golden, deferred_, now_ns);
  std::map<std::string, ReportRow> kept;
  for (MatchedRank& mr : m->ranks) {
    int64_t rank = mr.rank.value_or(-1);
    std::vector<std::string> keys;
    std::vector<ReportRow> rows = rank_rows(mr, cache, o.eval, keys);
    // compare's post-pass over the rank's rows in report (= execution) order: O(rows).
    mark_error_jumps(rows);
    answer_final_tokens(rows, rank, now_ns, events, notes);
    if (verdicts) note_verdicts(rows, mr.my, rank, now_ns, *verdicts);
    retire_final_tokens(rows, mr, mine, golden, now_ns);
    for (size_t i = 0; i < rows.size(); ++i) {
      if (!keys[i].empty()) kept.emplace(std::move(keys[i]), std::move(rows[i]));
    }
  }
  rows_ = std::move(kept);  // rows of pairs no longer matched are dropped
  note_coverage(m->coverage, events);
  return events;
}

bool LiveRootCompare::prune_rank(int64_t rank, DumpTree& my, DumpTree& gold, int64_t now_ns, Sides& mine, Sides& golden,
                                 std::set<std::string>* indexed) {
  read_golden_near(my, gold);
  side_tokens(my, rank, false, now_ns, mine);
  side_tokens(gold, rank, true, now_ns, golden);
  note_token_dirs(rank, my, gold);
  if (indexed) {
    for (const auto& g : my.groups)
      for (const auto& [tok, tf] : g.tokens)
        for_each_token_file(tf, [&](const SourceFile& f) { indexed->insert(f.raw_path); });
  }
  const bool pruned = narrow_trees(rank, mine, golden, my, gold);
  // Left unread: ahead of mine (narrow_trees dropped them unless mine shares no token with the
  // golden yet); nothing pairs with them this pass.
  for (auto& g : gold.groups) std::erase_if(g.tokens, [](const auto& kv) { return kv.second.unread(); });
  return pruned;
}

void LiveRootCompare::complete_sides(const MatchedCompare& m, Sides& mine, Sides& golden) const {
  // A retired token left unlisted is unchanged: finality sees it as it was (not as gone, which
  // would count as a change of the tree).
  for (const auto& [k, r] : retired_) {
    if (mine.count(k) || golden.count(k)) continue;
    mine[k] = r.mine;
    golden[k] = r.golden;
  }
  for (const MatchedRank& mr : m.ranks) mark_paired(mr, mine);
  // So is a token left unlisted past the window, on the side(s) where it was. Not listed, it was
  // not paired by this pass either: rule 4 waits until it is listed again.
  for (const auto& k : hidden_) {
    if (auto s = mine_seen_.find(k); s != mine_seen_.end() && !mine.count(k)) {
      mine[k] = s->second;
      mine[k].paired = false;
    }
    if (auto s = golden_seen_.find(k); s != golden_seen_.end() && !golden.count(k)) golden[k] = s->second;
  }
}

void LiveRootCompare::observe_finality(const Sides& mine, const Sides& golden, bool window_cut, int64_t now_ns) {
  finality_.observe_sides(mine, golden, now_ns);
  waiting_ = window_cut || finality_.any_pending(now_ns);
  confirm_soon_ = finality_.final_on_next_pass(now_ns);
  next_time_rule_ns_ = finality_.next_time_rule_ns(now_ns);
}

void LiveRootCompare::no_pass(const Error& e, int64_t now_ns, std::vector<std::string>& notes) {
  note_waiting(e, notes);
  finality_.observe({}, {}, now_ns);
  waiting_ = confirm_soon_ = false;
  next_time_rule_ns_.reset();
}

std::vector<ReportRow> LiveRootCompare::rank_rows(MatchedRank& mr, FileCache& cache, const EvalOptions& eval,
                                                  std::vector<std::string>& keys) {
  // Memory (docs/live-divergence.md "Cost"): one copy of each row. A cached row is moved out of
  // the cache for the post-pass and back after it (mark_error_jumps sets its marks afresh at
  // each pass).
  std::vector<ReportRow> rows;
  rows.reserve(mr.pairs.size());
  keys.reserve(mr.pairs.size());
  for (PairSpec& p : mr.pairs) {
    std::string key = pair_key(p);
    auto hit = rows_.find(key);
    if (hit != rows_.end()) {
      auto node = rows_.extract(hit);
      keys.push_back(std::move(node.key()));
      rows.push_back(std::move(node.mapped()));
      continue;
    }
    ReportRow r = evaluate_pair(p, cache, eval);
    r.rank = mr.rank.value_or(-1);
    std::string drop = msit_drop_reason(r);
    if (!drop.empty()) r.note = r.note.empty() ? drop : r.note + "; " + drop;
    keys.push_back(cacheable(p, r) ? std::move(key) : std::string());
    rows.push_back(std::move(r));
  }
  return rows;
}

namespace {

// What a clean token's note says: no divergence above its detection floor, and a suspect (a
// thin-margin name, docs/compare.md "Margin, suspects and the detection floor") when it has one.
std::string clean_text(const std::vector<ReportRow>& rows, int64_t tok) {
  std::vector<const ReportRow*> own;
  const ReportRow* suspect = nullptr;
  for (const auto& r : rows) {
    if (r.token_id != tok) continue;
    own.push_back(&r);
    if (!suspect && r.jump == ReportRow::Jump::kSuspect) suspect = &r;
  }
  auto floor = token_detection_floor(own);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", floor.value_or(0.0));
  std::string s = floor ? std::string("no divergence above ") + buf : "no output judged";
  if (suspect) {
    std::snprintf(buf, sizeof buf, "%.4g", suspect->margin.value_or(0.0));
    s += "; suspect " + std::string(row_label(*suspect).op) + ", margin " + buf;
  }
  return s;
}

// One token's rows as answer_final_tokens sees them: the token as its rows name it, and its
// tensors of mine with those without golden partner (compare's rule, RankCoverage::count_row).
struct TokenRows {
  std::string text;
  RankCoverage coverage;
};

}  // namespace

std::string not_compared_text(const RankCoverage& c) {
  if (c.no_golden == 0) return {};
  return "; " + std::to_string(c.no_golden) + " of my " + std::to_string(c.my_tensors) +
         " tensors not compared (no golden counterpart)";
}

void LiveRootCompare::answer_final_tokens(const std::vector<ReportRow>& rows, int64_t rank, int64_t now_ns,
                                          std::vector<DivergenceEvent>& events, std::vector<std::string>& notes) {
  auto firsts = first_divergences(rows);
  std::map<int64_t, TokenRows> tokens;
  for (const auto& r : rows) {
    auto [it, fresh] = tokens.try_emplace(r.token_id);
    if (fresh) it->second.text = r.token_text;
    it->second.coverage.count_row(r);
  }
  for (const auto& [tok, own] : tokens) {
    std::string tag = token_tag(rank, tok);
    if (!finality_.is_final({rank, tok}, now_ns)) continue;
    if (auto [at, fresh] = answered_until_.emplace(rank, tok); !fresh) at->second = std::max(at->second, tok);
    if (done_tokens_.count(tag)) continue;
    auto f = firsts.find(tok);
    std::string which = root_ + ": live compare: rank " + (rank < 0 ? std::string("-") : std::to_string(rank)) +
                        ", token " + std::to_string(tok);
    // Which rule made the token final, on each side: an operator (and a test) can tell an
    // answer by event from one that waited for silence.
    auto [mine_rule, golden_rule] = finality_.rules({rank, tok}, now_ns);
    std::string why = std::string("final: watched side done by ") + final_rule_name(mine_rule) + ", golden by " +
                      final_rule_name(golden_rule);
    if (f == firsts.end()) {  // final and clean so far; judged again if it changes
      if (clean_noted_.insert(tag).second)
        notes.push_back(which + " judged clean (" + clean_text(rows, tok) + not_compared_text(own.coverage) + "); " +
                        why);
    } else {
      notes.push_back(which + " " + why);
      events.push_back(divergence_event(rows[f->second], root_, golden_));
      if (recompute_) events.back().recompute = recompute_first_divergence(rows, f->second, *recompute_);
      done_tokens_.insert(tag);  // a token has one first divergence: answered once per process
    }
    // Its tensors without golden partner: the golden, final too, will not bring them later.
    note_token_gaps(rank, tok, own.text, "token " + std::to_string(tok), own.coverage, events);
  }
}

void LiveRootCompare::gap_event(int64_t rank, std::optional<int64_t> token, std::string token_text,
                                const std::string& what, const std::string& id_part,
                                std::vector<DivergenceEvent>& events) {
  DivergenceEvent e;
  e.kind = EventKind::kNotCompared;
  e.id = divergence_id(root_, rank, token.value_or(-1), "\x1fnot compared" + id_part);
  if (!gaps_reported_.insert(e.id).second) return;
  e.rank = rank;
  e.token = token && token_text.empty() ? std::to_string(*token) : std::move(token_text);
  e.not_compared = what + ": not compared; it could hold the divergence";
  e.root = root_;
  e.golden_root = golden_;
  events.push_back(std::move(e));
}

void LiveRootCompare::note_coverage(const Coverage& c, std::vector<DivergenceEvent>& events) {
  // A golden dumped at the same time may be late with a rank or a token: a gap is said only once
  // the golden has shown it went past it (a token of another rank answered; a later token of
  // the same rank answered).
  if (answered_until_.empty()) return;
  const std::string no_counterpart = " of " + my_dir_ + " has no counterpart in the golden " + golden_dir_;
  for (const std::string& part : c.my_only_parts) gap_event(-1, std::nullopt, {}, part + no_counterpart, part, events);
  for (int64_t r : c.my_only_ranks)
    gap_event(r, std::nullopt, {}, "rank " + std::to_string(r) + no_counterpart, "", events);
  for (const RankCoverage& rc : c.ranks) {
    const int64_t rank = rc.rank.value_or(-1);
    auto until = answered_until_.find(rank);
    if (until == answered_until_.end()) continue;
    for (int64_t t : rc.my_only_tokens) {
      if (t >= until->second) continue;
      gap_event(rank, t, {},
                c.token_word + " " + std::to_string(t) +
                    (rank < 0 ? std::string() : " of rank " + std::to_string(rank)) + no_counterpart,
                "", events);
    }
  }
}

void LiveRootCompare::note_token_gaps(int64_t rank, int64_t token, const std::string& token_text,
                                      const std::string& label, const RankCoverage& c,
                                      std::vector<DivergenceEvent>& events) {
  if (c.no_golden == 0) return;
  const std::string which = label + (rank < 0 ? std::string() : " of rank " + std::to_string(rank)) + " of " + my_dir_;
  gap_event(rank, token, token_text, which + ": " + c.no_golden_text() + " in the golden " + golden_dir_,
            "\x1fops of " + label, events);
}

void LiveRootCompare::note_waiting(const Error& e, std::vector<std::string>& notes) {
  // The resolver's refusals name the command line to type (resolve_sides(), watch_line()): the
  // dump may be there, at a level no pass will pair, so waiting for files would wait for ever.
  // Said as a warning, once per text.
  const bool refusal = e.message.find(", e.g. msit-compact watch ") != std::string::npos;
  if (refusal && e.message != last_refusal_)
    warnings_.push_back(root_ + ": live compare with " + golden_ + " cannot pair what it found: " + e.message);
  last_refusal_ = refusal ? e.message : std::string();
  // Early in a dump (empty or not yet populated dirs) there is nothing to pair: said once, not at
  // every pass as the token lists in the reason change, and again only after a pass has matched.
  bool nothing = e.stage == Stage::kMatch || e.stage == Stage::kTokens || e.stage == Stage::kRanks;
  std::string line = nothing ? std::string("match: nothing to compare yet") : e.to_string();
  if (line != last_error_ && !refusal) {
    notes.push_back(nothing ? root_ + ": live compare: match: nothing to compare yet between " + root_ +
                                  " and its golden " + golden_ + " (" + e.message + "); waiting for files on both sides"
                            : root_ + ": live compare with " + golden_ + " waits: " + line);
  }
  last_error_ = line;
}

void LiveRootCompare::retire_final_tokens(const std::vector<ReportRow>& rows, const MatchedRank& mr, Sides& mine,
                                          Sides& golden, int64_t now_ns) {
  const int64_t rank = mr.rank.value_or(-1);
  int64_t wall = wall_now_ns();
  for (const auto& r : rows) {
    TokenFinality::Key k{rank, r.token_id};
    if (retired_.count(k) || !finality_.is_final(k, now_ns)) continue;
    retired_[k] = Retired{mine[k], golden[k], {}};
    note_skippable(k, mr.my, mr.golden, wall);
  }
}

void LiveRootCompare::note_verdicts(const std::vector<ReportRow>& rows, const DumpTree& my, int64_t rank,
                                    int64_t now_ns, std::vector<TokenVerdict>& out) const {
  std::map<int64_t, TokenVerdict> by_token;
  for (const auto& g : my.groups) {
    for (const auto& [tok, tf] : g.tokens) {
      if (!finality_.is_final({rank, tok}, now_ns)) continue;
      TokenVerdict& v = by_token[tok];
      for_each_token_file(tf, [&](const SourceFile& f) { v.files.push_back(f.raw_path); });
    }
  }
  for (const auto& r : rows) {
    auto it = by_token.find(r.token_id);
    if (it == by_token.end() || r.my_data_path.empty()) continue;
    TokenVerdict& v = it->second;
    std::string file = row_file(r, false);
    if (v.op_files.empty() || v.op_files.back() != file) {
      if (std::find(v.op_files.begin(), v.op_files.end(), file) == v.op_files.end()) v.op_files.push_back(file);
    }
    if (r.jump == ReportRow::Jump::kFirst && !v.diverged) {
      v.diverged = static_cast<size_t>(std::find(v.op_files.begin(), v.op_files.end(), file) - v.op_files.begin());
    }
  }
  for (auto& [tok, v] : by_token) out.push_back(std::move(v));
}

}  // namespace msit::daemon
