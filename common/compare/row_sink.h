// Where a streamed compare's rows go (docs/compare.md "Streaming"): rank by rank, in report order,
// each row already evaluated and post-passed. Report writers, the terminal summary and the tally
// implement it; nothing between the matcher and the sink holds a whole run's rows.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/base/result.h"
#include "common/report/report_row.h"

namespace msit {

struct RankInfo {
  std::optional<int64_t> rank;  // set for worldsize*_global_rank* layouts
  std::vector<std::string> graph_files;
  uint64_t ops_without_rows = 0;  // GE ops with no FX counterpart; final at end_rank
  std::string sheet;              // the ATB/torch compare's report sheet (layer, module, api); else empty
};

class RowSink {
 public:
  virtual ~RowSink() = default;
  // Once, before the first rank: the prefix of the report files' names (msit_cmp_report, or
  // msprobe_cmp_report for msprobe_* trees).
  virtual Status begin_compare(const std::string& report_prefix) {
    (void)report_prefix;
    return ok_status();
  }
  virtual Status begin_rank(const RankInfo& rank) = 0;
  // The next rows of the rank in report order (a token's, or several tokens'); the sink may move
  // from them. Called from the compare's own thread, never concurrently.
  virtual Status rows(std::vector<ReportRow>& rows) = 0;
  virtual Status end_rank(const RankInfo& rank) = 0;
};

}  // namespace msit
