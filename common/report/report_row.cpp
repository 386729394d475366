// Column lists and msit's row filters (docs/formats/report.md §2, §6).
#include "common/report/report_row.h"

namespace msit {

const std::vector<std::string_view>& msit_columns() {
  // clang-format off
  static const std::vector<std::string_view> k = {
      "token_id", "data_id", "golden_data_path", "golden_op_type", "golden_dtype", "golden_shape",
      "golden_max_value", "golden_min_value", "golden_mean_value", "my_data_path", "my_op_type", "my_dtype",
      "my_shape", "my_max_value", "my_min_value", "my_mean_value", "cosine_similarity", "max_relative_error",
      "mean_relative_error", "max_absolute_error", "mean_absolute_error", "kl_divergence",
      "relative_euclidean_distance", "cmp_fail_reason"};
  // clang-format on
  return k;
}

const std::vector<std::string_view>& extra_columns() {
  // clang-format off
  static const std::vector<std::string_view> k = {
      "compare_mode", "max_stat_absolute_error", "max_stat_relative_error", "min_stat_absolute_error",
      "min_stat_relative_error", "mean_stat_absolute_error", "mean_stat_relative_error",
      "l2norm_stat_absolute_error", "l2norm_stat_relative_error", "nan_inf", "verdict", "note", "error_level", "error_jump", "divergence"};
  // clang-format on
  return k;
}

std::string_view jump_cell(ReportRow::Jump j) {
  switch (j) {
    case ReportRow::Jump::kNone: return "";
    case ReportRow::Jump::kJump: return "jump";
    case ReportRow::Jump::kFirst: return "first";
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

std::vector<ReportRow> apply_msit_filters(const std::vector<ReportRow>& rows) {
  // 1. rows whose reason is exactly the shape mismatch; 2. int8 XOR rows, removed from the list
  // msit is iterating, so the element after a removed row is never looked at.
  std::vector<const ReportRow*> stage1;
  for (const auto& r : rows) {
    if (r.msit_row && !shape_only(r)) stage1.push_back(&r);
  }
  std::vector<ReportRow> out;
  bool skip_next = false;
  for (const ReportRow* r : stage1) {
    if (!skip_next && int8_xor(*r)) {
      skip_next = true;
      continue;
    }
    skip_next = false;
    out.push_back(*r);
  }
  return out;
}

}  // namespace msit
