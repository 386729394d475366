// Every column of a compare report, described once (docs/architecture.md, "One home per rule"):
// the CSV's header and cells (csv.cpp), the JSON twin (report_json), the ATB compare's xlsx and
// legacy CSV (common/compare_atb, through msit_columns(), extra_columns() and row_cells()) and the
// HTML page's row objects (html_report.cpp) walk this table. Adding a column is one row here;
// a row of a new kind fails to compile (static_assert) in each writer until that writer handles
// it, and tests/unit/report_columns_test.cpp checks that every row appears in every writer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string_view>
#include <type_traits>

#include "common/report/report_row.h"

namespace msit {

// How a cell is written.
enum class CellKind : uint8_t {
  kToken,  // the whole row: token_text when it has one (a text cell), else token_id (an integer)
  kId,     // std::optional<uint64_t>: an integer, empty when absent
  kText,   // text from the dump or the user: formula-guarded (guard_text_cell) and quoted as needed
  kWord,   // a fixed word of ours (verdict, mode, divergence): written as is
  kReal,   // OptDouble: python_float_repr, empty for none and NaN; in JSON a number
};

// msit's 24 columns (docs/formats/report.md §2) come first, in msit's order; ours follow and
// are left out by --msit-columns.
enum class ColumnPart : uint8_t { kMsit, kOurs };

struct ReportColumn {
  std::string_view name;  // the CSV/xlsx header and the JSON key
  CellKind kind;
  ColumnPart part;
  std::string_view html_key;  // the key in the HTML page's row objects; "": not in the page
};

// X(name, access on const ReportRow& r, kind, part, html key), in the report's column order.
// Never reorder msit's part: its header is msit's byte for byte.
// clang-format off
#define MSIT_REPORT_COLUMNS(X)                                                                              \
  X(token_id,                    r,                             kToken, kMsit, "")                          \
  X(data_id,                     r.data_id,                     kId,    kMsit, "")                          \
  X(golden_data_path,            r.golden_data_path,            kText,  kMsit, "")                          \
  X(golden_op_type,              r.golden_op_type,              kText,  kMsit, "")                          \
  X(golden_dtype,                dtype_cell_text(r.golden_dtype), kText, kMsit, "golden_dtype")             \
  X(golden_shape,                r.golden_shape,                kText,  kMsit, "golden_shape")              \
  X(golden_max_value,            r.golden_max,                  kReal,  kMsit, "")                          \
  X(golden_min_value,            r.golden_min,                  kReal,  kMsit, "")                          \
  X(golden_mean_value,           r.golden_mean,                 kReal,  kMsit, "")                          \
  X(my_data_path,                r.my_data_path,                kText,  kMsit, "")                          \
  X(my_op_type,                  r.my_op_type,                  kText,  kMsit, "")                          \
  X(my_dtype,                    dtype_cell_text(r.my_dtype),   kText,  kMsit, "my_dtype")                  \
  X(my_shape,                    r.my_shape,                    kText,  kMsit, "my_shape")                  \
  X(my_max_value,                r.my_max,                      kReal,  kMsit, "")                          \
  X(my_min_value,                r.my_min,                      kReal,  kMsit, "")                          \
  X(my_mean_value,               r.my_mean,                     kReal,  kMsit, "")                          \
  X(cosine_similarity,           r.cosine,                      kReal,  kMsit, "cosine")                    \
  X(max_relative_error,          r.max_rel,                     kReal,  kMsit, "max_rel")                   \
  X(mean_relative_error,         r.mean_rel,                    kReal,  kMsit, "mean_rel")                  \
  X(max_absolute_error,          r.max_abs,                     kReal,  kMsit, "max_abs")                   \
  X(mean_absolute_error,         r.mean_abs,                    kReal,  kMsit, "mean_abs")                  \
  X(kl_divergence,               r.kl,                          kReal,  kMsit, "kl")                        \
  X(relative_euclidean_distance, r.red,                         kReal,  kMsit, "red")                       \
  X(cmp_fail_reason,             fail_reason_cell(r),           kText,  kMsit, "reason")                    \
  X(compare_mode,                metric_source_text(r.compare_mode), kWord, kOurs, "mode")              \
  X(max_stat_absolute_error,     r.stat_abs[0],                 kReal,  kOurs, "max_stat_abs")              \
  X(max_stat_relative_error,     r.stat_rel[0],                 kReal,  kOurs, "")                          \
  X(min_stat_absolute_error,     r.stat_abs[1],                 kReal,  kOurs, "min_stat_abs")              \
  X(min_stat_relative_error,     r.stat_rel[1],                 kReal,  kOurs, "")                          \
  X(mean_stat_absolute_error,    r.stat_abs[2],                 kReal,  kOurs, "")                          \
  X(mean_stat_relative_error,    r.stat_rel[2],                 kReal,  kOurs, "")                          \
  X(l2norm_stat_absolute_error,  r.stat_abs[3],                 kReal,  kOurs, "")                          \
  X(l2norm_stat_relative_error,  r.stat_rel[3],                 kReal,  kOurs, "")                          \
  X(nan_inf,                     r.nan_inf,                     kText,  kOurs, "")                          \
  X(verdict,                     verdict_name(r.verdict),       kWord,  kOurs, "verdict")                   \
  X(note,                        note_cell(r),                  kText,  kOurs, "note")                      \
  X(error_level,                 r.error_level,                 kReal,  kOurs, "error_level")               \
  X(error_jump,                  r.error_jump,                  kReal,  kOurs, "error_jump")                \
  X(divergence,                  jump_cell(r.jump),             kWord,  kOurs, "divergence")                \
  X(margin,                      r.margin,                      kReal,  kOurs, "margin")                    \
  X(detection_floor,             r.detection_floor,             kReal,  kOurs, "detection_floor")
// clang-format on

#define MSIT_REPORT_COLUMN_ROW(name, access, kind, part, html) \
  ReportColumn{#name, CellKind::kind, ColumnPart::part, html},
inline constexpr ReportColumn kReportColumns[] = {MSIT_REPORT_COLUMNS(MSIT_REPORT_COLUMN_ROW)};
#undef MSIT_REPORT_COLUMN_ROW
inline constexpr size_t kReportColumnCount = std::size(kReportColumns);

// msit's columns are a prefix: --msit-columns cuts the rest off.
constexpr bool msit_part_first() {
  for (size_t i = 1; i < kReportColumnCount; ++i)
    if (kReportColumns[i - 1].part == ColumnPart::kOurs && kReportColumns[i].part == ColumnPart::kMsit) return false;
  return true;
}
static_assert(msit_part_first(), "msit's columns come before ours");

constexpr size_t report_column_index(std::string_view name) {
  for (size_t i = 0; i < kReportColumnCount; ++i)
    if (kReportColumns[i].name == name) return i;
  return kReportColumnCount;
}

// How many columns a report has: msit's alone, or all.
constexpr size_t report_column_count(bool extra) {
  if (extra) return kReportColumnCount;
  size_t n = 0;
  for (const ReportColumn& c : kReportColumns) n += c.part == ColumnPart::kMsit ? 1 : 0;
  return n;
}

// Calls f(std::integral_constant<size_t, I>, value) for every column I in order, `value` being
// the row's access on `r` (a member, or a temporary that lives for the call). Writers read the
// column as kReportColumns[I] in `if constexpr`, so each cell compiles to the code written for
// its kind.
template <class F>
void for_each_report_column(const ReportRow& r, F&& f) {
#define MSIT_REPORT_COLUMN_VISIT(name, access, ...) \
  f(std::integral_constant<size_t, report_column_index(#name)>{}, access);
  MSIT_REPORT_COLUMNS(MSIT_REPORT_COLUMN_VISIT)
#undef MSIT_REPORT_COLUMN_VISIT
}

}  // namespace msit
