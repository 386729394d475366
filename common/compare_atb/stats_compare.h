// `--stats` (docs/formats/atb-torch.md §3.8, docs/formats/report.md §7): golden torch statistics.csv values against
// each of my statistics .bin files (or any tensor file, summarised), over the api matches.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "common/base/result.h"
#include "common/compare_atb/atb_compare.h"
#include "common/report/report_row.h"

namespace msit::atb {

struct StatsResult {
  // Rows msit keeps (both sides have values): token, data_id, paths, op types and labels, the
  // statistics errors (stat_abs / stat_rel), compare_mode stats and the verdict: as the torchair
  // flow's `stats` rows (docs/compare.md "Verdict"), fail when |Δmax|, |Δmin| or |Δmean| (each a
  // lower bound of the max absolute error) exceeds 1, else inconclusive. Counted by the one
  // outcome table (common/compare/outcome.h).
  std::vector<ReportRow> rows;
  std::vector<std::string> warnings;
  uint64_t dropped = 0;  // pairs without values on one side (msit drops them)
};

// A pair-list builder: golden statistics.csv values against each of my matched files, read by
// the one evaluator (common/compare/engine.h; --jobs) and run through the one post-pass.
Result<StatsResult> run_stats_compare(const std::string& golden_path, const std::string& my_path,
                                      const AtbCompareOptions& opts);

// statstics_cmp_report (sic) CSV bytes, docs/formats/report.md §7 columns.
std::string stats_report_csv(const std::vector<ReportRow>& rows);

}  // namespace msit::atb
