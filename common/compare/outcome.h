// The outcome of a compare, the same table for every flow (docs/compare.md, exit status): rows
// counted by verdict, and the one decision of the exit status. The CLI only prints it.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "common/compare/coverage.h"
#include "common/report/report_row.h"

namespace msit {

// Rows counted by verdict, over every sheet / rank of one compare.
struct RowTally {
  size_t rows = 0, pairs = 0, fail = 0, jump = 0, error = 0, inconclusive = 0;
  size_t suspect = 0;  // outputs named with a thin margin (divergence cell "suspect")
  // pairs: rows that compare two tensors (diagnostic rows, which have no data_id in the
  // torchair flow, are rows but not pairs).
  void add(const std::vector<ReportRow>& rs, bool diagnostic_rows_possible = false);
};

// compare's exit statuses (the CLI's kExit* codes carry the same numbers).
enum class CompareStatus : int { kOk = 0, kDivergence = 1, kUnreadable = 3, kInconclusive = 4 };

struct CompareOutcome {
  CompareStatus status = CompareStatus::kOk;
  std::string line;  // what the terminal says about it (empty: nothing beyond the summary)
};

// First that applies: two trees that are not two runs of one model (coverage.unlike(): 3); a
// fail or an error jump (1); rows whose files could not be read (3); inconclusive rows, judged
// from statistics only, or a suspect, a name with a thin margin (4); something of my run not
// compared (coverage.gaps_in_mine(): 4, it could hold the divergence); else 0. `coverage`
// null: the flow does not measure it.
CompareOutcome compare_outcome(const RowTally& t, const Coverage* coverage = nullptr);

}  // namespace msit
