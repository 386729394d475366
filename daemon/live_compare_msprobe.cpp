// The live comparer on msProbe dumps (docs/live-divergence.md "msProbe"): each step of each rank
// compared with msProbe's flow (common/compare_msprobe/flow.h) once both sides are done with it,
// its forward first divergence reported as an event, its raw files kept or released.
#include <sys/stat.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "common/compare_msprobe/flow.h"
#include "common/compare_msprobe/pairs.h"
#include "common/formats/msprobe_names.h"
#include "common/io/tree_walk.h"
#include "common/resolve/msprobe_pairs.h"
#include "daemon/divergence_event.h"
#include "daemon/live_root_compare.h"

namespace msit::daemon {
namespace {

// A step's tensor files are given a first answer this long after its first unreadable pass: a
// file compacted while a pass listed the stores reads at the next pass; one that stays
// unreadable (corrupt, deleted by hand) must not hold the step's answer for ever.
constexpr int64_t kUnreadableGraceNs = 10'000'000'000;

constexpr const char* kTensorDir = "/dump_tensor_data";

std::string parent_of(const std::string& p) {
  size_t slash = p.rfind('/');
  return slash == std::string::npos ? std::string(".") : p.substr(0, slash);
}
std::string base_of(const std::string& p) { return p.substr(p.rfind('/') + 1); }

// The token (step number) and rank of .../step{N}/rank{R}; proc/pid folders have no rank (-1).
// Nothing for a folder outside a step folder (two dump.json files given directly).
std::optional<TokenFinality::Key> step_key(const std::string& rank_dir) {
  auto rank = parse_msprobe_rank_dir(base_of(rank_dir));
  auto step = parse_msprobe_step_dir(base_of(parent_of(rank_dir)));
  if (!rank || !step) return std::nullopt;
  TokenFinality::Key k;
  k.rank = rank->kind == MsprobeRankKind::kRank ? static_cast<int64_t>(rank->number) : -1;
  k.token = static_cast<int64_t>(*step);
  return k;
}

// The rank folders below a dump_path (step{N}/rank{R}) or a step folder given as the root, with
// or without their dump.json yet: msProbe writes dump.json at the step's end (or every 1000
// entries), so a step that has begun shows only its tensor files.
std::map<TokenFinality::Key, std::string> rank_dirs(const std::string& root) {
  std::map<TokenFinality::Key, std::string> out;
  auto ranks_of = [&out](const std::string& step_dir) {
    (void)list_dir_path(step_dir, [&](std::string_view name, EntryType type) {
      if (type != EntryType::kDirectory || !parse_msprobe_rank_dir(name)) return;
      std::string dir = step_dir + "/" + std::string(name);
      if (auto k = step_key(dir)) out.emplace(*k, std::move(dir));
    });
  };
  if (parse_msprobe_step_dir(base_of(root))) {
    ranks_of(root);
    return out;
  }
  (void)list_dir_path(root, [&](std::string_view name, EntryType type) {
    if (type == EntryType::kDirectory && parse_msprobe_step_dir(name)) ranks_of(root + "/" + std::string(name));
  });
  return out;
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

void LiveRootCompare::msprobe_sides(const std::vector<MsRankPair>& pairs, Sides& mine, Sides& golden,
                                    std::set<std::string>* indexed) const {
  for (const auto& [k, dir] : rank_dirs(root_)) {
    mine[k] = json_side(dir + "/dump.json");
    if (indexed) indexed->insert(dir + kTensorDir + "/");  // its held files wait for the step's verdict
  }
  for (const auto& [k, dir] : rank_dirs(golden_)) golden[k] = json_side(dir + "/dump.json");
  for (const MsRankPair& p : pairs) {  // the pair's own files (debug.json, ranks paired by position)
    auto k = step_key(parent_of(p.npu_json));
    if (!k) continue;
    mine[*k] = json_side(p.npu_json);
    golden[*k] = json_side(p.bench_json);
  }
}

std::vector<DivergenceEvent> LiveRootCompare::pass_msprobe(int64_t now_ns, std::vector<std::string>& notes,
                                                           std::vector<TokenVerdict>* verdicts,
                                                           std::set<std::string>* indexed) {
  std::vector<DivergenceEvent> events;
  // The resolver's pairing (docs/resolve.md "msProbe trees"): a golden given as its dump_path or
  // a step folder. Its notes (rank folders without their dump.json yet) are the normal state of
  // a live dump and are not logged.
  auto plan = resolve::plan_msprobe_pair(root_, golden_, [](const std::string& m, const std::string& g) {
    return "msit-compact watch " + m + " --golden " + g;
  });
  if (!plan.ok()) {
    Sides mine, golden;
    msprobe_sides({}, mine, golden, indexed);  // a first step without its dump.json yet
    no_pass(plan.error(), now_ns, notes);
    return events;
  }
  last_error_.clear();
  if (plan->line != paired_line_) {
    notes.push_back(root_ + ": live compare " + plan->line);
    paired_line_ = plan->line;
  }
  const std::vector<MsRankPair>& pairs = plan->pairs;
  Sides mine, golden;
  msprobe_sides(pairs, mine, golden, indexed);
  observe_finality(mine, golden, false, now_ns);
  for (const MsRankPair& p : pairs) {
    auto k = step_key(parent_of(p.npu_json));
    if (!k) continue;
    const std::string tag = std::to_string(k->rank) + "/" + std::to_string(k->token);
    if (done_tokens_.count(tag) || !finality_.is_final(*k, now_ns)) continue;
    if (auto e = answer_step(*k, p, tag, now_ns, notes, verdicts)) events.push_back(std::move(*e));
  }
  note_msprobe_coverage(plan->coverage, events);
  return events;
}

void LiveRootCompare::note_msprobe_coverage(const Coverage& c, std::vector<DivergenceEvent>& events) {
  // As note_coverage: a rank of mine without golden once a step of another rank is answered; a
  // step of mine without golden (every rank of it) once a later step of a rank is answered.
  Coverage per_rank;
  per_rank.token_word = "step";
  per_rank.my_only_ranks = c.my_only_ranks;
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

std::optional<DivergenceEvent> LiveRootCompare::answer_step(const TokenFinality::Key& k, const MsRankPair& p,
                                                            const std::string& tag, int64_t now_ns,
                                                            std::vector<std::string>& notes,
                                                            std::vector<TokenVerdict>* verdicts) {
  MsCompareOptions o;
  o.jobs = 1;  // the comparer's own thread: the workers compact
  EntryFiles sink(parent_of(p.npu_json) + kTensorDir);
  auto t = ms_compare_pair(p.npu_json, p.bench_json, o, sink);
  const std::string which = root_ + ": live compare: rank " + (k.rank < 0 ? std::string("-") : std::to_string(k.rank)) +
                            ", step " + std::to_string(k.token);
  if (!t.ok()) {
    // A dump.json caught mid-rewrite (finality saw it whole and unchanged twice, so rarely):
    // asked again at the next pass.
    waiting_ = true;
    if (t.error().to_string() != last_error_) notes.push_back(which + " waits: " + t.error().to_string());
    last_error_ = t.error().to_string();
    return std::nullopt;
  }
  if (t->unreadable > 0) {
    // A file compacted after this pass listed the stores reads at the next pass.
    auto since = unreadable_since_.try_emplace(tag, now_ns).first->second;
    if (now_ns - since < kUnreadableGraceNs) {
      waiting_ = true;
      return std::nullopt;
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
  if (!t->forward) {
    if (clean_noted_.insert(tag).second) notes.push_back(which + " judged clean (no divergence); " + why);
    return std::nullopt;
  }
  notes.push_back(which + " " + why);
  ReportRow r = t->forward->level;
  r.rank = k.rank;
  r.token_id = k.token;
  r.token_text = "step" + std::to_string(k.token);
  r.my_data_path = p.npu_json + ": " + t->forward->row;
  r.golden_data_path = p.bench_json;
  DivergenceEvent e = divergence_event(r, root_, golden_);
  // watch --recompute: the entry and the entries before it, from the rank folders' raw files
  // (the watcher holds the step's files until its verdict), as compare --recompute does.
  if (recompute_)
    e.recompute = recompute_msprobe(parent_of(p.npu_json), parent_of(p.bench_json), t->forward->entry, *recompute_);
  return e;
}

}  // namespace msit::daemon
