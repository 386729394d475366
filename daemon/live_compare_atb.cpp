// The live comparer's pass on ATB / torch dumps (docs/live-divergence.md "ATB and torch"): the
// ATB compare library on both whole trees, answered from its api sheet as `compare --cl api`.
#include <functional>

#include "common/compare_atb/atb_compare.h"
#include "common/stats/tensor_stats.h"
#include "daemon/live_compare.h"

namespace msit::daemon {
namespace {

// A token's signature: changes when any of its rows reads other files or fails otherwise.
uint64_t mix(uint64_t h, const std::string& s) {
  return (h ^ std::hash<std::string>{}(s)) * 0x100000001b3ull + 0x9e3779b97f4a7c15ull;
}

}  // namespace

std::vector<DivergenceEvent> LiveRootCompare::pass_atb(int64_t now_ns, std::vector<std::string>& notes) {
  std::vector<DivergenceEvent> events;
  atb::AtbCompareOptions o;
  o.jobs = 1;
  o.eval.stats.sketch_width = kDefaultSketchWidth;
  if (!op_mapping_file_.empty()) o.op_mapping_dir = op_mapping_file_;
  Result<atb::AtbCompareResult> res = atb::run_atb_compare(golden_, root_, o);
  if (!res.ok() || res->sheets.empty()) {
    std::string line = res.ok() ? "no rows yet" : res.error().to_string();
    if (line != last_error_) notes.push_back(root_ + ": live compare with " + golden_ + " waits: " + line);
    last_error_ = line;
    finality_.observe({}, {}, now_ns);
    waiting_ = false;
    return events;
  }
  last_error_.clear();
  // The api sheet (what `compare --cl api` writes, the finest of the three), else the sheet with
  // the most rows.
  atb::AtbSheet* sheet = &res->sheets.front();
  for (auto& sh : res->sheets)
    if (sh.rows.size() > sheet->rows.size()) sheet = &sh;
  for (auto& sh : res->sheets)
    if (sh.name == "api" && !sh.rows.empty()) sheet = &sh;
  std::vector<ReportRow>& rows = sheet->rows;
  // What each token's rows read: how many, and which sides were read. Both trees feed each row,
  // so one signature stands for both sides.
  std::map<TokenFinality::Key, uint64_t> sig;
  for (const auto& r : rows) {
    uint64_t& s = sig[{-1, r.token_id}];
    s = mix(s, r.my_data_path + '\x1f' + r.golden_data_path + '\x1f' + r.cmp_fail_reason);
  }
  finality_.observe(sig, sig, now_ns);
  waiting_ = finality_.any_pending(now_ns);
  for (auto& r : rows) r.rank = -1;
  // The library has run the first-divergence post-pass on each sheet with the ops' inputs (ATB
  // intensors, torch input_k) and dropped those rows: its marks are compare's. Running it again
  // here would take the previous output as each op's input and could name another op.
  answer_final_tokens(rows, -1, now_ns, events, notes);
  return events;
}

}  // namespace msit::daemon
