// The three-sheet workbook through libxlsxwriter: same columns and cells as the CSV, numbers as
// numbers; msit's filters are not applied here (msit computes them on a copy in this mode). A
// sheet of more rows than Excel holds goes on in "NAME (2)", ... (xlsx_sheet_parts).
#include "common/compare_atb/xlsx_report.h"

#include <xlsxwriter.h>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <span>

#include "common/io/output_file.h"
#include "common/report/csv.h"
#include "common/report/op_label.h"

namespace msit::atb {
namespace {

// With our columns, the workbook ends with each side's op label (docs/compare.md "Op labels"):
// the ATB node path and the torch module, which msit's path cells only imply.
std::vector<std::string_view> columns(bool extra) {
  std::vector<std::string_view> c(msit_columns().begin(), msit_columns().end());
  if (extra) c.insert(c.end(), extra_columns().begin(), extra_columns().end());
  if (extra) c.insert(c.end(), {"my_op", "golden_op"});
  return c;
}

lxw_error write_sheet(lxw_worksheet* ws, std::span<const ReportRow> rows, const std::vector<std::string_view>& cols,
                      bool extra) {
  for (size_t c = 0; c < cols.size(); ++c) {
    std::string name(cols[c]);
    if (lxw_error e = worksheet_write_string(ws, 0, static_cast<lxw_col_t>(c), name.c_str(), nullptr)) return e;
  }
  for (size_t r = 0; r < rows.size(); ++r) {
    auto cells = row_cells(rows[r], extra);
    if (extra) {
      cells.push_back(label_text(rows[r].my_label));
      cells.push_back(label_text(rows[r].golden_label));
    }
    auto row = static_cast<lxw_row_t>(r + 1);
    for (size_t c = 0; c < cells.size() && c < cols.size(); ++c) {
      const std::string& v = cells[c];
      if (v.empty()) continue;
      constexpr size_t kMaxCellChars = 32767;  // Excel's cell limit; libxlsxwriter refuses longer strings
      std::string cut;
      if (v.size() > kMaxCellChars) cut = v.substr(0, kMaxCellChars);
      auto col = static_cast<lxw_col_t>(c);
      bool number = (is_float_column(cols[c]) && v != "inf" && v != "-inf") ||
                    (is_integer_column(cols[c]) && v.find_first_not_of("0123456789-") == std::string::npos);
      lxw_error e = number ? worksheet_write_number(ws, row, col, std::strtod(v.c_str(), nullptr), nullptr)
                           : worksheet_write_string(ws, row, col, cut.empty() ? v.c_str() : cut.c_str(), nullptr);
      if (e) return e;
    }
  }
  return LXW_NO_ERROR;
}

}  // namespace

std::vector<XlsxSheetPart> xlsx_sheet_parts(const std::vector<AtbSheet>& sheets, size_t rows_per_sheet) {
  std::vector<XlsxSheetPart> out;
  rows_per_sheet = std::max<size_t>(1, rows_per_sheet);
  for (size_t s = 0; s < sheets.size(); ++s) {
    const size_t n = sheets[s].rows.size();
    for (size_t first = 0, part = 1; part == 1 || first < n; first += rows_per_sheet, ++part) {
      std::string name = part == 1 ? sheets[s].name : sheets[s].name + " (" + std::to_string(part) + ")";
      out.push_back(XlsxSheetPart{std::move(name), s, first, std::min(rows_per_sheet, n - first)});
    }
  }
  return out;
}

Status write_xlsx_report(const std::string& path, const std::vector<AtbSheet>& sheets, bool extra_columns) {
  // libxlsxwriter 1.1.4 (Debian 12) writes the ZIP with fopen(filename, "wb") and has no
  // in-memory or fd output (output_buffer came in 1.1.5): it is given the /proc/self/fd path of
  // our own O_EXCL|O_NOFOLLOW temp, so it can reach no other file (a predictable temp name was
  // followed through a planted symlink). Its row temps (constant_memory) are tmpfile()s:
  // unnamed, nothing to plant.
  MSIT_ASSIGN_OR_RETURN(OutputFile out, OutputFile::create(path));
  lxw_workbook_options wo{};
  wo.constant_memory = LXW_TRUE;  // rows are streamed to disk: 100,000-row sheets stay small in memory
  const std::string target = out.fd_path();
  lxw_workbook* wb = workbook_new_opt(target.c_str(), &wo);
  if (!wb) return make_error(path, Stage::kWrite, "cannot create the xlsx workbook");
  auto cols = columns(extra_columns);
  for (const XlsxSheetPart& p : xlsx_sheet_parts(sheets)) {
    lxw_worksheet* ws = workbook_add_worksheet(wb, p.name.c_str());
    const std::span<const ReportRow> rows(sheets[p.sheet].rows.data() + p.first, p.count);
    lxw_error e = ws ? write_sheet(ws, rows, cols, extra_columns) : LXW_ERROR_MEMORY_MALLOC_FAILED;
    if (e) {
      workbook_close(wb);
      return make_error(path, Stage::kWrite, std::string("xlsx sheet ") + p.name + ": " + lxw_strerror(e));
    }
  }
  if (lxw_error e = workbook_close(wb)) {
    const bool no_proc = e == LXW_ERROR_CREATING_XLSX_FILE && ::access("/proc/self/fd", F_OK) != 0;
    return make_error(path, Stage::kWrite,
                      std::string("xlsx: ") + lxw_strerror(e) +
                          (no_proc ? " (/proc is not mounted; the xlsx writer needs it: use --cl for a CSV)" : ""));
  }
  return out.commit();
}

}  // namespace msit::atb
