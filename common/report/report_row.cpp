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

std::string fail_reason_cell(const ReportRow& r) {
  if (r.caveat.empty()) return r.cmp_fail_reason;
  if (r.cmp_fail_reason.empty()) return r.caveat;
  return r.cmp_fail_reason + " " + r.caveat;
}

void add_caveat(ReportRow& r, const std::string& text) {
  if (!r.caveat.empty()) r.caveat.push_back(' ');
  r.caveat += text;
}

namespace {
constexpr std::string_view kShapeReason = "data shape doesn't match.";
bool int8_xor(const ReportRow& r) {
  if (r.golden_dtype.empty() || r.my_dtype.empty()) return false;  // msit: dtype keys absent
  return (r.golden_dtype == "torch.int8") != (r.my_dtype == "torch.int8");
}
}  // namespace

std::string msit_drop_reason(const ReportRow& r) {
  if (!r.msit_row) return "msit writes no row here";
  if (r.cmp_fail_reason == kShapeReason) return "msit drops rows whose only reason is a shape mismatch";
  if (int8_xor(r)) return "msit drops int8 vs non-int8 rows";
  return "";
}

std::vector<ReportRow> apply_msit_filters(const std::vector<ReportRow>& rows) {
  // 1. rows whose reason is exactly the shape mismatch; 2. int8 XOR rows, removed from the list
  // msit is iterating, so the element after a removed row is never looked at.
  std::vector<const ReportRow*> stage1;
  for (const auto& r : rows) {
    if (r.msit_row && r.cmp_fail_reason != kShapeReason) stage1.push_back(&r);
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
