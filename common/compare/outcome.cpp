// The one exit-status table of compare.
#include "common/compare/outcome.h"

namespace msit {

void RowTally::add(const std::vector<ReportRow>& rs, bool diagnostic_rows_possible) {
  for (const auto& r : rs) {
    ++rows;
    pairs += !diagnostic_rows_possible || r.data_id.has_value();
    fail += r.verdict == Verdict::kFail;
    error += r.verdict == Verdict::kError;
    inconclusive += r.verdict == Verdict::kInconclusive;
    jump += r.jump == ReportRow::Jump::kFirst || r.jump == ReportRow::Jump::kJump;
    suspect += r.jump == ReportRow::Jump::kSuspect;
  }
}

CompareOutcome compare_outcome(const RowTally& t, const Coverage* coverage) {
  if (coverage && coverage->unlike()) {
    return {CompareStatus::kUnreadable,
            "these do not look like two runs of one model: most of my tensors have no golden counterpart "
            "of the same shape (exit status " +
                std::to_string(static_cast<int>(CompareStatus::kUnreadable)) + "); check --golden-path" +
                coverage->unlike_hint};
  }
  if (t.fail || t.jump) return {CompareStatus::kDivergence, {}};
  if (t.error) return {CompareStatus::kUnreadable, {}};
  const std::string status = " (exit status " + std::to_string(static_cast<int>(CompareStatus::kInconclusive)) + ")";
  if (t.inconclusive) {
    return {CompareStatus::kInconclusive, "result: inconclusive: no row fails, but " + std::to_string(t.inconclusive) +
                                              " rows were judged from statistics only" + status};
  }
  if (t.suspect) {
    return {CompareStatus::kInconclusive,
            "result: inconclusive: no row fails, but " + std::to_string(t.suspect) +
                " outputs are suspects, over their thresholds by less than a divergence needs" + status};
  }
  if (coverage && coverage->gaps_in_mine()) {
    return {CompareStatus::kInconclusive,
            "result: inconclusive: no row fails, but part of my dump was not compared (above) and could hold the "
            "divergence" +
                status};
  }
  return {CompareStatus::kOk, {}};
}

}  // namespace msit
