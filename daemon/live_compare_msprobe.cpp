// The live comparer on msProbe dumps (docs/live-divergence.md "msProbe"): each step of each rank
// compared with msProbe's flow (common/compare_msprobe/flow.h) once both sides are done with it,
// its forward first divergence reported as an event.
#include <sys/stat.h>

#include <string>
#include <vector>

#include "common/compare_msprobe/flow.h"
#include "common/compare_msprobe/pairs.h"
#include "common/formats/msprobe_names.h"
#include "daemon/divergence_event.h"
#include "daemon/live_root_compare.h"

namespace msit::daemon {
namespace {

// A compare's rows are not needed here, only its tally.
class NoRows : public MsRowSink {
 public:
  Status begin(const MsTable&) override { return ok_status(); }
  Status rows(const MsTable&) override { return ok_status(); }
  Status end(const MsRankTally&) override { return ok_status(); }
};

std::string parent_of(const std::string& p) {
  size_t slash = p.rfind('/');
  return slash == std::string::npos ? std::string(".") : p.substr(0, slash);
}
std::string base_of(const std::string& p) { return p.substr(p.rfind('/') + 1); }

// The token (step number) and rank of .../step{N}/rank{R}/dump.json; proc/pid folders have no
// rank (-1). Nothing for a file outside a step folder (two dump.json files given directly).
std::optional<TokenFinality::Key> step_key(const std::string& dump_json) {
  const std::string rank_dir = parent_of(dump_json);
  auto rank = parse_msprobe_rank_dir(base_of(rank_dir));
  auto step = parse_msprobe_step_dir(base_of(parent_of(rank_dir)));
  if (!rank || !step) return std::nullopt;
  TokenFinality::Key k;
  k.rank = rank->kind == MsprobeRankKind::kRank ? static_cast<int64_t>(rank->number) : -1;
  k.token = static_cast<int64_t>(*step);
  return k;
}

// What a side shows of a step: its dump.json, which msProbe rewrites whole every 1000 entries and
// at the step's end; its identity, size and mtime are the signature. Whole once non-empty: a
// file caught mid-rewrite is found incomplete by the compare, which then waits (pass_msprobe).
SideToken json_side(const std::string& dump_json) {
  SideToken t;
  struct stat st {};
  if (::lstat(dump_json.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return t;
  uint64_t h = 1469598103934665603ULL;
  for (uint64_t v : {static_cast<uint64_t>(st.st_ino), static_cast<uint64_t>(st.st_size),
                     static_cast<uint64_t>(st.st_mtim.tv_sec), static_cast<uint64_t>(st.st_mtim.tv_nsec)}) {
    h = (h ^ v) * 1099511628211ULL;
  }
  t.sig = (h >> 16) | 1;  // never 0 (no files); the top bits stay the file count's (SideToken)
  t.whole = st.st_size > 0;
  return t;
}

}  // namespace

std::vector<DivergenceEvent> LiveRootCompare::pass_msprobe(int64_t now_ns, std::vector<std::string>& notes) {
  std::vector<DivergenceEvent> events;
  std::vector<std::string> pair_notes;  // steps only one side has yet: the normal state of a live dump
  auto pairs = ms_rank_pairs(root_, golden_, pair_notes);
  if (!pairs.ok()) {
    no_pass(pairs.error(), now_ns, notes);
    return events;
  }
  last_error_.clear();
  Sides mine, golden;
  std::vector<std::pair<TokenFinality::Key, const MsRankPair*>> keyed;
  for (const MsRankPair& p : *pairs) {
    auto k = step_key(p.npu_json);
    if (!k) continue;
    mine[*k] = json_side(p.npu_json);
    golden[*k] = json_side(p.bench_json);
    keyed.emplace_back(*k, &p);
  }
  observe_finality(mine, golden, false, now_ns);
  for (const auto& [k, p] : keyed) {
    const std::string tag = std::to_string(k.rank) + "/" + std::to_string(k.token);
    if (done_tokens_.count(tag) || !finality_.is_final(k, now_ns)) continue;
    MsCompareOptions o;
    o.jobs = 1;  // the comparer's own thread: the workers compact
    NoRows sink;
    auto t = ms_compare_pair(p->npu_json, p->bench_json, o, sink);
    const std::string which = root_ + ": live compare: rank " + (k.rank < 0 ? std::string("-") : std::to_string(k.rank)) +
                              ", step " + std::to_string(k.token);
    if (!t.ok() || t->unreadable > 0) {
      // A dump.json caught mid-rewrite, or a file compacted after this pass listed the stores:
      // asked again at the next pass.
      waiting_ = true;
      std::string why = t.ok() ? std::to_string(t->unreadable) + " tensor pair(s) not readable yet" : t.error().to_string();
      if (why != last_error_) notes.push_back(which + " waits: " + why);
      last_error_ = why;
      continue;
    }
    done_tokens_.insert(tag);
    auto [mine_rule, golden_rule] = finality_.rules(k, now_ns);
    std::string why = std::string("final: watched side done by ") + final_rule_name(mine_rule) + ", golden by " +
                      final_rule_name(golden_rule);
    if (!t->forward) {
      if (clean_noted_.insert(tag).second) notes.push_back(which + " judged clean (no divergence); " + why);
      continue;
    }
    notes.push_back(which + " " + why);
    ReportRow r = t->forward->level;
    r.rank = k.rank;
    r.token_id = k.token;
    r.token_text = "step" + std::to_string(k.token);
    r.my_data_path = p->npu_json + ": " + t->forward->row;
    r.golden_data_path = p->bench_json;
    events.push_back(divergence_event(r, root_, golden_));
  }
  return events;
}

}  // namespace msit::daemon
