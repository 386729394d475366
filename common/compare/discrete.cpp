// Discrete pairs: equality instead of thresholds, and the note that counts the flips.
#include "common/compare/discrete.h"

#include <string>

namespace msit {

namespace {

// Written once for a ReportRow and a JumpRow (the same fields).
template <class Row>
bool discrete_of(const Row& r) {
  return is_discrete(r.golden_dtype) || is_discrete(r.my_dtype);
}

template <class Row>
bool differs_of(const Row& r) {
  if (!discrete_of(r)) return false;
  if (r.differing) return *r.differing > 0;
  return (r.cosine && *r.cosine != 1.0) || (r.red && *r.red != 0.0) || (r.max_abs && *r.max_abs != 0.0);
}

}  // namespace

bool discrete_row(const ReportRow& r) { return discrete_of(r); }
bool discrete_row(const JumpRow& r) { return discrete_of(r); }
bool discrete_differs(const ReportRow& r) { return differs_of(r); }
bool discrete_differs(const JumpRow& r) { return differs_of(r); }

void judge_discrete(ReportRow& r, std::optional<uint64_t> differing, std::optional<uint64_t> count) {
  if (!discrete_row(r) || r.verdict == Verdict::kNone || r.verdict == Verdict::kError ||
      r.fail_reason != FailReason::kNone || (!r.cosine && !r.red))
    return;
  r.differing = differing;
  if (!discrete_differs(r)) {
    r.verdict = Verdict::kPass;
    return;
  }
  r.verdict = Verdict::kSkip;
  std::string n = differing ? std::to_string(*differing) + (count ? " of " + std::to_string(*count) : "") +
                                  (*differing == 1 ? " element differs" : " elements differ")
                            : "elements differ (not counted: compared from summaries)";
  std::string text = "discrete values: " + n + "; judged by equality, not by thresholds or the first-divergence rule";
  r.note = r.note.empty() ? text : r.note + "; " + text;
}

}  // namespace msit
