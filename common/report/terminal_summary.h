// The text printed after a compare: rows per mode, the first divergence, the worst ten.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/report/report_row.h"

namespace msit {

// First row in report (execution) order whose verdict is "fail"; nullptr when none.
const ReportRow* first_divergence(const std::vector<ReportRow>& rows);
// Up to n failing-or-worst rows: lowest cosine first, then largest relative Euclidean distance.
// Rows of the same token with bit-identical metrics (an op's output and the next op's input:
// one tensor pair reached twice) appear once, as the first of them in report order.
std::vector<const ReportRow*> worst_rows(const std::vector<ReportRow>& rows, size_t n);

std::string terminal_summary(const std::vector<ReportRow>& rows, std::optional<int64_t> rank);

}  // namespace msit
