// Writing the report model as msit's pandas CSV (formats.md 6.1) or as JSON.
#pragma once

#include <ctime>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

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
// The same bytes in consecutive parts (header, then slices of rows), for writing without a copy.
std::vector<std::string> report_csv_parts(const std::vector<ReportRow>& rows, const CsvOptions& opts);
std::string report_json(const std::vector<ReportRow>& rows, const CsvOptions& opts);

// msit_cmp_report_{UTC YYYYmmddHHMMSS}.csv, or msit_cmp_report_rank{R}_{time}.csv.
std::string report_file_name(std::string_view prefix, std::optional<int64_t> rank, std::time_t when,
                             std::string_view extension);

}  // namespace msit
