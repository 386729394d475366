// The live comparer on msProbe dumps (docs/live-divergence.md "msProbe"): each step of each rank
// compared with msProbe's flow (common/compare_msprobe/flow.h) once both sides are done with it,
// its forward first divergence reported as an event, its raw files kept or released.
#include <sys/stat.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/compare_msprobe/flow.h"
#include "common/compare_msprobe/pairs.h"
#include "common/formats/msprobe_layout.h"
#include "common/formats/msprobe_names.h"
#include "common/io/path_name.h"
#include "common/io/tree_walk.h"
#include "common/resolve/msprobe_pairs.h"
#include "daemon/divergence_event.h"
#include "daemon/live_root_compare.h"

namespace msit::daemon {

// One step folder of the watched dump_path (or of one half of a split) and the golden's of the
// same name, listed by a pass, with both folders' modification times (-1: none).
struct MsStepDir {
  std::string mine, golden;
  int64_t step = 0;
  bool graph = false;        // in the graph half of a split
  bool golden_only = false;  // the golden's step after the watched side's last (finality only)
  int64_t mine_mtime = -1, golden_mtime = -1;
};

namespace {

// A step's tensor files are given a first answer this long after its first unreadable pass: a
// file compacted while a pass listed the stores reads at the next pass; one that stays
// unreadable (corrupt, deleted by hand) must not hold the step's answer for ever.
constexpr int64_t kUnreadableGraceNs = 10'000'000'000;

constexpr const char* kTensorDir = "/dump_tensor_data";

// MindSpore's graph half (dump_path/graph/step{N}/rank{R}, docs/formats/msprobe.md §1.2) has the
// same steps and ranks as the pynative half beside it: its keys carry this offset on the rank, so
// the two halves are final, compared and answered each on its own (finality's "a later step has
// begun" stays within one half).
constexpr int64_t kGraphHalf = int64_t{1} << 32;

bool in_graph_half(const TokenFinality::Key& k) { return k.rank >= kGraphHalf - 1; }
int64_t real_rank(const TokenFinality::Key& k) { return in_graph_half(k) ? k.rank - kGraphHalf : k.rank; }

// The token (step number) and rank of ROOT/[graph|pynative/]step{N}/rank{R}; proc/pid folders and
// a bare `rank` have no rank number (-1). Nothing for a folder outside a step folder (two dump.json
// files given directly).
std::optional<TokenFinality::Key> step_key(const std::string& root, const std::string& rank_dir) {
  auto rank = parse_msprobe_rank_dir(base_name(rank_dir));
  auto step = parse_msprobe_step_dir(base_name(parent_dir(rank_dir)));
  if (!rank || !step) return std::nullopt;
  TokenFinality::Key k;
  k.rank = rank->kind == MsprobeRankKind::kRank && !rank->bare ? static_cast<int64_t>(rank->number) : -1;
  k.token = static_cast<int64_t>(*step);
  if (parent_dir(parent_dir(rank_dir)) == std::string(without_trailing_slashes(root)) + "/graph") k.rank += kGraphHalf;
  return k;
}

std::string tag_of(const TokenFinality::Key& k) { return std::to_string(k.rank) + "/" + std::to_string(k.token); }

// The rank folders of one step folder below ROOT, with or without their dump.json yet: msProbe
// writes dump.json at the step's end (or every 1000 entries), so a step that has begun shows only
// its tensor files.
std::map<TokenFinality::Key, std::string> step_rank_dirs(const std::string& root, const std::string& step_dir) {
  std::map<TokenFinality::Key, std::string> out;
  (void)list_dir_path(step_dir, [&](std::string_view name, EntryType type) {
    if (type != EntryType::kDirectory || !parse_msprobe_rank_dir(name)) return;
    std::string dir = step_dir + "/" + std::string(name);
    if (auto k = step_key(root, dir)) out.emplace(*k, std::move(dir));
  });
  return out;
}

// The rank folders below a dump_path (step{N}/rank{R}), a graph/pynative split (each half a
// dump_path) or a step folder given as the root.
std::map<TokenFinality::Key, std::string> rank_dirs(const std::string& given_root) {
  const std::string root(without_trailing_slashes(given_root));
  std::map<TokenFinality::Key, std::string> out;
  if (parse_msprobe_step_dir(base_name(root))) return step_rank_dirs(root, root);
  auto steps_of = [&](const std::string& dump_path) {
    (void)list_dir_path(dump_path, [&](std::string_view name, EntryType type) {
      if (type == EntryType::kDirectory && parse_msprobe_step_dir(name))
        out.merge(step_rank_dirs(root, dump_path + "/" + std::string(name)));
    });
  };
  steps_of(root);
  (void)list_dir_path(root, [&](std::string_view name, EntryType type) {
    if (type == EntryType::kDirectory && is_msprobe_mix_dir(name)) steps_of(root + "/" + std::string(name));
  });
  return out;
}

int64_t mtime_of(const std::string& dir) {
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0) return -1;
  return static_cast<int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
}

using RetiredSteps = std::map<std::string, std::pair<int64_t, int64_t>>;

// The step folders a pass lists when the watched root is a dump_path or a graph/pynative split:
// every step folder of the watched side and the golden's of the same name, except those whose
// every rank was answered while both folders kept their modification times (a new rank folder
// changes its step folder's); plus, per dump_path, the golden's first step after the watched
// side's last, whose rank folders tell the golden's last shared step is done (rule 1). A pass's
// listings then grow with the steps not answered yet, not with the run's length
// (docs/live-divergence.md "Cost"). False for other roots (a step, a rank folder, a file) and for
// a golden of another level than the watched root: the resolver pairs those whole, one step at most.
bool live_step_dirs(const std::string& given_mine, const std::string& given_golden, RetiredSteps& retired,
                    std::vector<MsStepDir>& out) {
  const std::string mine(without_trailing_slashes(given_mine)), golden(without_trailing_slashes(given_golden));
  auto l = list_sorted(mine);
  auto g = list_sorted(golden);
  if (!l.ok() || !g.ok()) return false;
  const MsprobeDirKind kind = msprobe_dir_kind(base_name(mine), l->dirs, l->files);
  // A golden given at another level (a step or rank folder) is narrowed by the resolver instead.
  if (msprobe_dir_kind(base_name(golden), g->dirs, g->files) != kind) return false;
  std::vector<std::pair<std::string, bool>> halves;  // below both roots; the graph half
  switch (kind) {
    case MsprobeDirKind::kDumpPath: halves.emplace_back("", false); break;
    case MsprobeDirKind::kMixSplit:
      for (const std::string& d : l->dirs)
        if (is_msprobe_mix_dir(d)) halves.emplace_back("/" + d, d == "graph");
      break;
    default: return false;
  }
  for (const auto& [half, graph] : halves) {
    auto steps = list_msprobe_steps(mine + half);
    if (!steps.ok()) continue;
    int64_t last = -1;
    for (const MsprobeStepDir& st : *steps) {
      MsStepDir d;
      d.mine = mine + half + "/" + st.name;
      d.golden = golden + half + "/" + st.name;
      d.step = static_cast<int64_t>(st.step);
      d.graph = graph;
      d.mine_mtime = mtime_of(d.mine);
      d.golden_mtime = mtime_of(d.golden);
      last = std::max(last, d.step);
      if (auto r = retired.find(d.mine); r != retired.end()) {
        if (r->second == std::pair(d.mine_mtime, d.golden_mtime)) continue;
        retired.erase(r);  // a rank folder came or went: listed again
      }
      out.push_back(std::move(d));
    }
    auto golden_steps = list_msprobe_steps(golden + half);
    if (!golden_steps.ok()) continue;
    for (const MsprobeStepDir& st : *golden_steps) {
      if (static_cast<int64_t>(st.step) <= last) continue;
      MsStepDir d;
      d.golden = golden + half + "/" + st.name;
      d.step = static_cast<int64_t>(st.step);
      d.graph = graph;
      d.golden_only = true;
      d.golden_mtime = mtime_of(d.golden);
      out.push_back(std::move(d));
      break;
    }
  }
  return true;
}

// What a pass compares: the resolver's pairs (docs/resolve.md "msProbe trees"), its lines saying
// what was paired, and my ranks and steps without golden (the pynative or only half: the graph
// half's steps and ranks are the same).
struct LivePlan {
  std::vector<MsRankPair> pairs;
  std::vector<std::string> lines;
  Coverage coverage;
};

std::string watch_line(const std::string& mine, const std::string& golden) {
  return "msit-compact watch " + mine + " --golden " + golden;
}

// The roots as the resolver pairs them (a golden given as a step or rank folder narrows the
// watched dump_path to it). Its notes (rank folders without their dump.json yet) are the normal
// state of a live dump and are not logged.
Result<LivePlan> whole_plan(const std::string& mine, const std::string& golden) {
  MSIT_ASSIGN_OR_RETURN(auto plan, resolve::plan_msprobe_pair(mine, golden, watch_line));
  LivePlan out;
  out.pairs = std::move(plan.pairs);
  out.lines.push_back(std::move(plan.line));
  out.coverage = std::move(plan.coverage);
  return out;
}

// The listed steps both sides have, each paired by the resolver; steps that do not pair yet (no
// dump.json, rank folders still appearing) are left for a later pass. A step of mine whose golden
// step folder is missing is coverage. The first error when no step pairs at all.
Result<LivePlan> step_plans(const std::vector<MsStepDir>& steps) {
  LivePlan out;
  out.coverage.token_word = "step";
  std::set<int64_t> my_only_ranks;
  std::vector<int64_t> my_only_steps;
  std::optional<Error> first;
  for (const MsStepDir& d : steps) {
    if (d.golden_only) continue;
    if (d.golden_mtime < 0) {
      if (!d.graph) my_only_steps.push_back(d.step);
      continue;
    }
    auto p = resolve::plan_msprobe_pair(d.mine, d.golden, watch_line);
    if (!p.ok()) {
      if (!first) first = p.error();
      continue;
    }
    out.pairs.insert(out.pairs.end(), p->pairs.begin(), p->pairs.end());
    out.lines.push_back(std::move(p->line));
    if (!d.graph) my_only_ranks.insert(p->coverage.my_only_ranks.begin(), p->coverage.my_only_ranks.end());
  }
  if (out.pairs.empty() && first) return *first;
  out.coverage.my_only_ranks.assign(my_only_ranks.begin(), my_only_ranks.end());
  if (!my_only_steps.empty()) {
    RankCoverage rc;
    rc.my_only_tokens = std::move(my_only_steps);
    out.coverage.ranks.push_back(std::move(rc));
  }
  return out;
}

// Steps whose every rank folder of the watched side is answered: not listed again while their
// folders are unchanged. Only the oldest steps of each half, up to the first one still waiting:
// a step that waits (a tensor file that does not read yet) keeps every later step listed, so
// finality still sees that the run went on after it.
void retire_answered(const std::vector<MsStepDir>& steps, const std::map<TokenFinality::Key, SideToken>& mine,
                     const std::set<std::string>& done, RetiredSteps& retired) {
  std::set<bool> blocked;             // halves (graph or not) with a step still waiting
  for (const MsStepDir& d : steps) {  // in step order within each half
    if (d.golden_only || d.golden_mtime < 0 || blocked.count(d.graph)) continue;
    bool any = false, all = true;
    for (const auto& [k, side] : mine) {
      if (k.token != d.step || in_graph_half(k) != d.graph) continue;
      any = true;
      all = all && done.count(tag_of(k)) != 0;
    }
    if (any && all) {
      retired[d.mine] = {d.mine_mtime, d.golden_mtime};
    } else {
      blocked.insert(d.graph);
    }
  }
}

// What a side shows of a step: its dump.json, which msProbe rewrites whole every 1000 entries and
// at the step's end; its identity, size and mtime are the signature. Whole once non-empty: a
// file caught mid-rewrite is found incomplete by the compare, which then waits (pass_msprobe).
// A step without its dump.json yet shows a constant signature and is not whole: it is a later
// step for rule 1, never final itself.
SideToken json_side(const std::string& dump_json) {
  SideToken t;
  t.sig = 1;
  struct stat st {};
  if (::lstat(dump_json.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return t;
  uint64_t h = 1469598103934665603ULL;
  for (uint64_t v : {static_cast<uint64_t>(st.st_ino), static_cast<uint64_t>(st.st_size),
                     static_cast<uint64_t>(st.st_mtim.tv_sec), static_cast<uint64_t>(st.st_mtim.tv_nsec)}) {
    h = (h ^ v) * 1099511628211ULL;
  }
  t.sig = (h >> 16) | 2;  // never 0 (no files) nor 1 (no dump.json); the top bits stay the file count's
  t.whole = st.st_size > 0;
  return t;
}

// Each entry's tensor files on the target side, in report (execution) order, for keeping the
// evidence (docs/live-divergence.md "Keeping the evidence"). Names with a '/' never leave the
// tensor folder (the compare refuses them too) and are not listed.
class EntryFiles : public MsRowSink {
 public:
  explicit EntryFiles(std::string tensor_dir) : dir_(std::move(tensor_dir)) {}
  Status begin(const MsTable&) override { return ok_status(); }
  Status rows(const MsTable& t) override {
    for (const MsRow& r : *t.rows) {
      const MsprobeItem& it = (*t.npu)[r.npu];
      if (it.data_name.empty() || it.data_name == "-1" || it.data_name.find('/') != std::string::npos ||
          it.data_name == "..")
        continue;
      auto [pos, fresh] = index_.try_emplace(it.entry, entries_.size());
      if (fresh) entries_.emplace_back();
      std::vector<std::string>& files = entries_[pos->second];
      std::string f = dir_ + "/" + it.data_name;
      if (std::find(files.begin(), files.end(), f) == files.end()) files.push_back(std::move(f));
    }
    return ok_status();
  }
  Status end(const MsRankTally&) override { return ok_status(); }

  // The verdict of the step: every raw file of its tensor folder, each entry's first file as its
  // op file with the others as members, and the diverging entry (none: a clean step).
  TokenVerdict verdict(const std::optional<MsDivergence>& first) const {
    TokenVerdict v;
    (void)list_dir_path(dir_, [&](std::string_view name, EntryType type) {
      if (type == EntryType::kFile) v.files.push_back(dir_ + "/" + std::string(name));
    });
    for (const auto& files : entries_) {
      v.op_files.push_back(files.front());
      if (files.size() > 1) v.op_members[files.front()].assign(files.begin() + 1, files.end());
    }
    if (first) {
      auto it = index_.find(first->entry);
      if (it != index_.end()) v.diverged = it->second;
    }
    return v;
  }

 private:
  std::string dir_;
  std::map<std::string, size_t> index_;            // entry -> its place in entries_
  std::vector<std::vector<std::string>> entries_;  // report order
};

}  // namespace

void LiveRootCompare::msprobe_sides(const std::vector<MsRankPair>& pairs, const std::vector<MsStepDir>* steps,
                                    Sides& mine, Sides& golden, std::set<std::string>* indexed) const {
  auto add = [&](const std::string& root, const std::string& step_dir, Sides& out, bool watched) {
    for (const auto& [k, dir] : step_rank_dirs(root, step_dir)) {
      out[k] = json_side(dir + "/dump.json");
      if (watched && indexed) indexed->insert(dir + kTensorDir + "/");  // its held files wait for the step's verdict
    }
  };
  if (steps) {  // the steps listed this pass (those answered and unchanged are not)
    for (const MsStepDir& d : *steps) {
      if (!d.golden_only) add(root_, d.mine, mine, true);
      if (d.golden_mtime >= 0) add(golden_, d.golden, golden, false);
    }
  } else {
    for (const auto& [k, dir] : rank_dirs(root_)) {
      mine[k] = json_side(dir + "/dump.json");
      if (indexed) indexed->insert(dir + kTensorDir + "/");
    }
    for (const auto& [k, dir] : rank_dirs(golden_)) golden[k] = json_side(dir + "/dump.json");
  }
  for (const MsRankPair& p : pairs) {  // the pair's own files (debug.json, ranks paired by position)
    auto k = step_key(root_, parent_dir(p.npu_json));
    if (!k) continue;
    mine[*k] = json_side(p.npu_json);
    golden[*k] = json_side(p.bench_json);
  }
}

std::vector<DivergenceEvent> LiveRootCompare::pass_msprobe(int64_t now_ns, std::vector<std::string>& notes,
                                                           std::vector<TokenVerdict>* verdicts,
                                                           std::set<std::string>* indexed) {
  std::vector<DivergenceEvent> events;
  std::vector<MsStepDir> steps;
  const bool walked = live_step_dirs(root_, golden_, ms_retired_steps_, steps);
  auto plan = walked ? step_plans(steps) : whole_plan(root_, golden_);
  Sides mine, golden;
  msprobe_sides(plan.ok() ? plan->pairs : std::vector<MsRankPair>{}, walked ? &steps : nullptr, mine, golden, indexed);
  if (!plan.ok()) {  // a first step without its dump.json yet
    no_pass(plan.error(), now_ns, notes);
    return events;
  }
  last_error_.clear();
  for (const std::string& line : plan->lines) {  // what was paired, once per step folder (or root)
    if (ms_paired_lines_.insert(line).second) notes.push_back(root_ + ": live compare " + line);
  }
  observe_finality(mine, golden, false, now_ns);
  for (const MsRankPair& p : plan->pairs) {
    auto k = step_key(root_, parent_dir(p.npu_json));
    if (!k) continue;
    const std::string tag = tag_of(*k);
    if (done_tokens_.count(tag) || !finality_.is_final(*k, now_ns)) continue;
    answer_step(*k, p, tag, now_ns, notes, verdicts, events);
  }
  note_msprobe_coverage(plan->coverage, events);
  if (walked) retire_answered(steps, mine, done_tokens_, ms_retired_steps_);
  return events;
}

void LiveRootCompare::note_msprobe_coverage(const Coverage& c, std::vector<DivergenceEvent>& events) {
  // As note_coverage: a rank of mine without golden once a step of another rank is answered; a
  // step of mine without golden (every rank of it) once a later step of a rank is answered.
  Coverage per_rank;
  per_rank.token_word = "step";
  per_rank.my_only_ranks = c.my_only_ranks;
  per_rank.my_only_parts = c.my_only_parts;
  for (const RankCoverage& rc : c.ranks) {
    for (const auto& [rank, until] : answered_until_) {
      RankCoverage r;
      r.rank = rank;
      r.my_only_tokens = rc.my_only_tokens;
      per_rank.ranks.push_back(std::move(r));
    }
  }
  note_coverage(per_rank, events);
}

void LiveRootCompare::answer_step(const TokenFinality::Key& k, const MsRankPair& p, const std::string& tag,
                                  int64_t now_ns, std::vector<std::string>& notes, std::vector<TokenVerdict>* verdicts,
                                  std::vector<DivergenceEvent>& events) {
  MsCompareOptions o;
  o.jobs = 1;  // the comparer's own thread: the workers compact
  EntryFiles sink(parent_dir(p.npu_json) + kTensorDir);
  auto t = ms_compare_pair(p.npu_json, p.bench_json, o, sink);
  const int64_t rank = real_rank(k);
  const std::string step = (in_graph_half(k) ? "graph/step" : "step") + std::to_string(k.token);
  const std::string which = root_ + ": live compare: rank " + (rank < 0 ? std::string("-") : std::to_string(rank)) +
                            (in_graph_half(k) ? ", graph step " : ", step ") + std::to_string(k.token);
  if (!t.ok()) {
    // A dump.json caught mid-rewrite (finality saw it whole and unchanged twice, so rarely):
    // asked again at the next pass.
    waiting_ = true;
    if (t.error().to_string() != last_error_) notes.push_back(which + " waits: " + t.error().to_string());
    last_error_ = t.error().to_string();
    return;
  }
  if (t->unreadable > 0) {
    // A file compacted after this pass listed the stores reads at the next pass.
    auto since = unreadable_since_.try_emplace(tag, now_ns).first->second;
    if (now_ns - since < kUnreadableGraceNs) {
      waiting_ = true;
      return;
    }
    notes.push_back(which + ": " + std::to_string(t->unreadable) + " tensor pair(s) unreadable for " +
                    std::to_string(kUnreadableGraceNs / 1'000'000'000) + " s; answered without them");
  }
  unreadable_since_.erase(tag);
  done_tokens_.insert(tag);
  if (auto [at, fresh] = answered_until_.emplace(k.rank, k.token); !fresh) at->second = std::max(at->second, k.token);
  if (verdicts) verdicts->push_back(sink.verdict(t->forward));
  auto [mine_rule, golden_rule] = finality_.rules(k, now_ns);
  const std::string why = std::string("final: watched side done by ") + final_rule_name(mine_rule) + ", golden by " +
                          final_rule_name(golden_rule);
  // After its answer: the APIs of the step without bench partner (msProbe's N/A rows, counted
  // as compare counts them; the golden step is final too and will not bring them later).
  auto gaps = [&] {
    note_token_gaps(rank, k.token, step, (in_graph_half(k) ? "graph step " : "step ") + std::to_string(k.token),
                    t->coverage, events);
  };
  if (!t->forward) {
    if (clean_noted_.insert(tag).second)
      notes.push_back(which + " judged clean (no divergence" + not_compared_text(t->coverage) + "); " + why);
    gaps();
    return;
  }
  notes.push_back(which + " " + why);
  ReportRow r = t->forward->level;
  r.rank = rank;
  r.token_id = k.token;
  r.token_text = step;
  r.my_data_path = p.npu_json + ": " + t->forward->row;
  r.golden_data_path = p.bench_json;
  DivergenceEvent e = divergence_event(r, root_, golden_);
  // watch --recompute: the entry and the entries before it, from the rank folders' raw files
  // (the watcher holds the step's files until its verdict), as compare --recompute does.
  if (recompute_)
    e.recompute = recompute_msprobe(parent_dir(p.npu_json), parent_dir(p.bench_json), t->forward->entry, *recompute_);
  events.push_back(std::move(e));
  gaps();
}

}  // namespace msit::daemon
