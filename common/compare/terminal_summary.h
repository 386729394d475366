// The text printed after a compare, for a person: per token the first divergence (error jump)
// with its metrics and its inputs' error, the threshold verdicts, the worst failing or jumping
// pairs, every error row (grouped), inconclusive rows, and the next command to run.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/report/report_row.h"

namespace msit {

// First row in report (execution) order whose threshold verdict is "fail"; nullptr when none.
const ReportRow* first_divergence(const std::vector<ReportRow>& rows);
// Up to n failing or jumping rows: jumps and fails by lowest cosine, then largest relative
// Euclidean distance. Rows of the same token with bit-identical metrics (an op's output and
// the next op's input: one tensor pair reached twice) appear once, as the first in report order.
std::vector<const ReportRow*> worst_rows(const std::vector<ReportRow>& rows, size_t n);

struct SummaryOptions {
  // The command that writes the HTML report of this compare (suggested as a next step), or
  // empty when it was written already.
  std::string html_command;
  size_t tokens_listed = 8;  // tokens whose first divergence is printed
  size_t worst = 10;
  size_t errors_listed = 8;  // rows named per error group
};

std::string terminal_summary(const std::vector<ReportRow>& rows, std::optional<int64_t> rank,
                             const SummaryOptions& opts = {});

}  // namespace msit
