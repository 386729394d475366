// The msProbe flow: two dump.json files -> msProbe's table, evaluated on the one engine
// (common/compare/engine.h) and given the first divergence by its post-pass.
#pragma once

#include <string>
#include <vector>

#include "common/base/result.h"
#include "common/compare_msprobe/side.h"
#include "common/report/report_row.h"

namespace msit {

struct MsCompareOptions {
  MsMatchOptions match;
  unsigned jobs = 2;
};

struct MsCompareResult {
  MsMode mode = MsMode::kSummary;
  MsprobeSide npu, bench;
  std::vector<MsRow> rows;
  // The same rows as the engine's report rows: labels (entry, API, role, index, order),
  // cosine and RED for real data, and the post-pass's error levels and first divergence.
  std::vector<ReportRow> report;
};

Result<MsCompareResult> ms_compare_files(const std::string& npu_json, const std::string& bench_json,
                                         const MsCompareOptions& o);

}  // namespace msit
