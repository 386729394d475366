// Column lists and msit's row filters (docs/formats/report.md §2, §6).
#include "common/report/report_row.h"

#include "common/report/report_columns.h"

namespace msit {

namespace {
std::vector<std::string_view> column_names(ColumnPart part) {
  std::vector<std::string_view> out;
  for (const ReportColumn& c : kReportColumns)
    if (c.part == part) out.push_back(c.name);
  return out;
}
}  // namespace

const std::vector<std::string_view>& msit_columns() {
  static const std::vector<std::string_view> k = column_names(ColumnPart::kMsit);
  return k;
}

const std::vector<std::string_view>& extra_columns() {
  static const std::vector<std::string_view> k = column_names(ColumnPart::kOurs);
  return k;
}

std::string_view jump_cell(ReportRow::Jump j) {
  switch (j) {
    case ReportRow::Jump::kNone: return "";
    case ReportRow::Jump::kJump: return "jump";
    case ReportRow::Jump::kFirst: return "first";
    case ReportRow::Jump::kSuspect: return "suspect";
  }
  return "";
}

std::string msit_reason_cell(const ReportRow& r) {
  std::string reasons = fail_reason_text(r.fail_reason, r.side_names);
  if (!r.problem.any()) return reasons;
  std::string problem = row_problem_text(r.problem);
  return reasons.empty() ? problem : reasons + " " + problem;
}

std::string fail_reason_cell(const ReportRow& r) {
  std::string msit = msit_reason_cell(r);
  if (r.caveat.empty()) return msit;
  if (msit.empty()) return r.caveat;
  return msit + " " + r.caveat;
}

void add_caveat(ReportRow& r, const std::string& text) {
  if (!r.caveat.empty()) r.caveat.push_back(' ');
  r.caveat += text;
}

std::string note_cell(const ReportRow& r) {
  if (r.compare_note.empty()) return r.note;
  if (r.note.empty()) return r.compare_note;
  return r.compare_note + "; " + r.note;
}

namespace {
// msit's first filter: the reason is exactly the shape mismatch.
bool shape_only(const ReportRow& r) { return r.fail_reason == FailReason::kShapeMismatch && !r.problem.any(); }
bool int8_xor(const ReportRow& r) {
  if (dtype_cell_text(r.golden_dtype).empty() || dtype_cell_text(r.my_dtype).empty()) return false;  // msit: no dtype
  return (named_dtype(r.golden_dtype) == DType::kInt8) != (named_dtype(r.my_dtype) == DType::kInt8);
}
}  // namespace

std::string msit_drop_reason(const ReportRow& r) {
  if (!r.msit_row) return "msit writes no row here";
  if (shape_only(r)) return "msit drops rows whose only reason is a shape mismatch";
  if (int8_xor(r)) return "msit drops int8 vs non-int8 rows";
  return "";
}

bool MsitFilter::keep(const ReportRow& r) {
  // 1. rows whose reason is exactly the shape mismatch; 2. int8 XOR rows, removed from the list
  // msit is iterating, so the element after a removed row (of those the first filter left) is
  // never looked at.
  if (!r.msit_row || shape_only(r)) return false;
  if (!skip_next_ && int8_xor(r)) {
    skip_next_ = true;
    return false;
  }
  skip_next_ = false;
  return true;
}

std::vector<ReportRow> apply_msit_filters(const std::vector<ReportRow>& rows) {
  MsitFilter filter;
  std::vector<ReportRow> out;
  for (const auto& r : rows) {
    if (filter.keep(r)) out.push_back(r);
  }
  return out;
}

}  // namespace msit
