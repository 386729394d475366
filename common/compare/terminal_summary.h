// The text printed after a compare, for a person: per token the first divergence (error jump)
// with its metrics, margin and inputs' error (else "none above X"), the suspects, the discrete
// outputs that differ, the threshold verdicts, the worst failing or jumping
// pairs, every error row (grouped), inconclusive rows, and the next command to run.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
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

// ", margin 2.1, detection floor 0.019" (and what a divergence needs, for a thin-margin suspect):
// how far over its threshold a named output is, and the smallest error the rule could have named there.
std::string margin_text(const ReportRow& f);

struct SummaryOptions {
  // The command that writes the HTML report of this compare (suggested as a next step), or
  // empty when it was written already.
  std::string html_command;
  size_t tokens_listed = 8;  // tokens whose first divergence is printed
  size_t worst = 10;
  size_t errors_listed = 8;  // rows named per error group
};

// worst_rows() over rows seen one at a time: the n worst distinct rows so far, copied (a streamed
// compare's rows are gone once written).
class WorstRows {
 public:
  explicit WorstRows(size_t n) : n_(n) {}
  void add(const ReportRow& r);
  std::vector<const ReportRow*> rows() const;     // the copies, worst first
  std::vector<const ReportRow*> origins() const;  // the rows given to add(), while they live

 private:
  struct Kept {
    ReportRow row;
    uint64_t seq = 0;  // report order
    const ReportRow* origin = nullptr;
  };
  static constexpr size_t kSpare = 4;  // rows kept per row shown
  size_t n_;
  uint64_t seq_ = 0;
  std::vector<Kept> kept_;
};

// The terminal summary of one rank built from its rows in report order, a batch at a time: what it
// prints needs counts and a bounded number of rows (the first divergences listed, the first fail,
// the worst rows, the first rows of each error group), never the rank's rows.
class SummaryBuilder {
 public:
  explicit SummaryBuilder(const SummaryOptions& o = {});
  void add(const std::vector<ReportRow>& rows);
  std::string text(std::optional<int64_t> rank) const;

  struct ErrorGroup {
    size_t count = 0;
    std::vector<ReportRow> first;  // up to errors_listed
  };
  // A token's largest detection floor (docs/compare.md "Margin, suspects and the detection
  // floor") and whether it has a first divergence: "none above X" for the others.
  struct TokenFloor {
    std::optional<double> floor;
    bool named = false;
  };

 private:
  // "  not judged: tokens 3, 4: ..." for the tokens none of whose rows has an error level.
  std::string unjudged_line() const;
  SummaryOptions o_;
  size_t rows_ = 0, inconclusive_ = 0, firsts_count_ = 0, error_rows_ = 0;
  size_t first_jump_seq_ = 0, fail_seq_ = 0;
  std::map<std::string, size_t> modes_, verdicts_;  // by name: the summary lists them in name order
  std::vector<ReportRow> firsts_;                   // the first tokens_listed first divergences
  std::optional<ReportRow> fail_;                   // the first fail
  WorstRows worst_;
  std::map<std::string, ErrorGroup> errors_;  // by reason, file left out
  // Per token (id, text key): its rows and those with an error level, which the first-divergence
  // rule judges. A token with none is named as not judged (issue 40 case 9).
  std::map<std::pair<int64_t, std::string>, std::pair<size_t, size_t>> token_rows_;
  // Why rows were inconclusive (their note, e.g. sketches of different widths): the first few.
  std::map<std::string, size_t> inconclusive_why_;
  size_t inconclusive_other_ = 0;
  // The first-divergence rule's marks: per token (a few bytes each), the suspects and the
  // discrete outputs that differ (counted; the first tokens_listed kept).
  void add_rule_marks(const ReportRow& r);
  std::map<std::string, TokenFloor> floors_;
  std::set<std::string> suspect_tokens_;
  std::vector<ReportRow> suspects_, discrete_;
  size_t suspects_count_ = 0, discrete_count_ = 0;
};

std::string terminal_summary(const std::vector<ReportRow>& rows, std::optional<int64_t> rank,
                             const SummaryOptions& opts = {});

}  // namespace msit
