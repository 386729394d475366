// `--stats` (docs/formats/atb-torch.md §3.8, docs/formats/report.md §7): golden torch statistics.csv values against
// each of my statistics .bin files (or any tensor file, summarised), over the api matches.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "common/base/result.h"
#include "common/compare/outcome.h"
#include "common/compare_atb/atb_compare.h"

namespace msit::atb {

struct StatsRow {
  std::string token;  // token key as text
  uint64_t data_id = 0;
  std::string golden_data_path, golden_op_type, my_data_path, my_op_type;
  std::array<std::optional<double>, 4> abs, rel;  // max, min, mean, l2norm
};

struct StatsResult {
  std::vector<StatsRow> rows;  // rows msit keeps (no failure)
  std::vector<std::string> warnings;
  uint64_t dropped = 0;  // pairs without values on one side (msit drops them)
};

Result<StatsResult> run_stats_compare(const std::string& golden_path, const std::string& my_path,
                                      const AtbCompareOptions& opts);

// --stats rows have statistics only: as the torchair flow's `stats` rows (docs/compare.md
// "Verdict"), `fail` when |Δmax|, |Δmin| or |Δmean| (each a lower bound of the max absolute
// error) exceeds 1, else inconclusive. Counted for the one outcome table (common/compare/outcome.h).
RowTally stats_tally(const std::vector<StatsRow>& rows);

// statstics_cmp_report (sic) CSV bytes, docs/formats/report.md §7 columns.
std::string stats_report_csv(const std::vector<StatsRow>& rows);

}  // namespace msit::atb
