// Writing the report model as msit's pandas CSV (docs/formats/report.md §1) or as JSON.
#pragma once

#include <ctime>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/base/result.h"
#include "common/report/report_row.h"

namespace msit {

// Python repr() of a double: shortest round-trip digits; fixed notation when the decimal
// exponent is in [-4, 16), else d.ddde+XX; "inf", "-inf", "nan".
std::string python_float_repr(double x);
// The same into `out` (at least kPythonFloatChars bytes), no allocation; returns the length.
inline constexpr size_t kPythonFloatChars = 32;
size_t format_python_float(double x, char* out);

// pandas/csv QUOTE_MINIMAL: quote when the field has , " \n or \r; inner quotes doubled.
std::string csv_quote(std::string_view field);

// Spreadsheet formula-injection guard for text cells: a leading = + - @ TAB or CR gets a '.
std::string guard_text_cell(std::string_view text);

// A float cell: empty for nullopt and NaN, else python_float_repr.
std::string float_cell(const std::optional<double>& v);

struct CsvOptions {
  bool extra_columns = true;  // false: exactly msit's 24 columns
  unsigned jobs = 1;          // threads formatting rows (CSV only; the bytes do not depend on it)
};
std::string report_csv(const std::vector<ReportRow>& rows, const CsvOptions& opts);
// The same bytes handed to `sink` in order, piece by piece: the header, then chunks of rows
// formatted on opts.jobs threads while the earlier chunks are written. A 100,000-row report is
// never whole in memory. Stops at, and returns, the first error of `sink`.
Status write_report_csv(const std::vector<ReportRow>& rows, const CsvOptions& opts,
                        const std::function<Status(std::string_view)>& sink);
// write_report_csv in pieces, for rows that come a batch at a time (a streamed compare): the
// header once, then each batch's rows; the bytes are write_report_csv's.
std::string report_csv_header(const CsvOptions& opts);
Status write_report_csv_rows(const std::vector<ReportRow>& rows, const CsvOptions& opts,
                             const std::function<Status(std::string_view)>& sink);
// Every cell of a row as the CSV writes it (text formula-guarded), msit's columns then ours
// with `extra`; for writers of other containers (the ATB compare's xlsx).
std::vector<std::string> row_cells(const ReportRow& r, bool extra);
bool is_float_column(std::string_view column);    // cells holding python_float_repr numbers
bool is_integer_column(std::string_view column);  // token_id, data_id: integers (token_id may hold a text)
// The JSON report: an array of one object per row, msit's column names as keys (indent 1).
std::string report_json(const std::vector<ReportRow>& rows, const CsvOptions& opts);
// One row's object as report_json writes it inside the array (indented, no separator): a
// streamed writer writes "[\n", the elements joined by ",\n", then "\n]\n" ("[]\n" for none),
// and gets report_json's bytes.
std::string report_json_element(const ReportRow& r, const CsvOptions& opts);

// msit_cmp_report_{UTC YYYYmmddHHMMSS}.csv, or msit_cmp_report_rank{R}_{time}.csv.
std::string report_file_name(std::string_view prefix, std::optional<int64_t> rank, std::time_t when,
                             std::string_view extension);

}  // namespace msit
