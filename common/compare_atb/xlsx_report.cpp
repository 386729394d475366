// The three-sheet workbook through libxlsxwriter: same columns and cells as the CSV, numbers as
// numbers; msit's filters are not applied here (msit computes them on a copy in this mode). A
// sheet of more rows than Excel holds goes on in "NAME (2)", ... (xlsx_sheet_parts).
#include "common/compare_atb/xlsx_report.h"

#include <xlsxwriter.h>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <span>
#include <utility>

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

lxw_error write_header(lxw_worksheet* ws, const std::vector<std::string_view>& cols) {
  for (size_t c = 0; c < cols.size(); ++c) {
    std::string name(cols[c]);
    if (lxw_error e = worksheet_write_string(ws, 0, static_cast<lxw_col_t>(c), name.c_str(), nullptr)) return e;
  }
  return LXW_NO_ERROR;
}

// Row `at` of the sheet (1: the first after the header).
lxw_error write_row(lxw_worksheet* ws, size_t at, const ReportRow& r, const std::vector<std::string_view>& cols,
                    bool extra) {
  auto cells = row_cells(r, extra);
  if (extra) {
    cells.push_back(label_text(r.my_label));
    cells.push_back(label_text(r.golden_label));
  }
  auto row = static_cast<lxw_row_t>(at);
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

// libxlsxwriter 1.1.4 (Debian 12) writes the ZIP with fopen(filename, "wb") and has no in-memory
// or fd output (output_buffer came in 1.1.5): it is given the /proc/self/fd path of our own
// O_EXCL|O_NOFOLLOW temp, so it can reach no other file (a predictable temp name was followed
// through a planted symlink). Its row temps (constant_memory) are tmpfile()s: unnamed, nothing to
// plant.
struct XlsxReportWriter::Book {
  std::optional<OutputFile> out;
  lxw_workbook* wb = nullptr;
  lxw_worksheet* ws = nullptr;  // the current part
  std::vector<std::string_view> cols;
};

XlsxReportWriter::XlsxReportWriter(std::string path, bool extra_columns, size_t rows_per_sheet)
    : path_(std::move(path)), extra_(extra_columns), per_sheet_(std::max<size_t>(1, rows_per_sheet)) {}

XlsxReportWriter::~XlsxReportWriter() {
  if (book_ && book_->wb) workbook_close(book_->wb);  // its temp is then removed, unpublished
}

Status XlsxReportWriter::open() {
  if (book_) return ok_status();
  MSIT_ASSIGN_OR_RETURN(OutputFile out, OutputFile::create(path_));
  auto book = std::make_unique<Book>();
  book->out.emplace(std::move(out));
  lxw_workbook_options wo{};
  wo.constant_memory = LXW_TRUE;  // rows are streamed to disk as they are written
  const std::string target = book->out->fd_path();
  book->wb = workbook_new_opt(target.c_str(), &wo);
  if (!book->wb) return make_error(path_, Stage::kWrite, "cannot create the xlsx workbook");
  book->cols = columns(extra_);
  book_ = std::move(book);
  // The sheets begun before any row: each whole and empty, the current one's first part last.
  std::vector<std::string> waiting = std::move(waiting_);
  waiting_.clear();
  for (size_t i = 0; i < waiting.size(); ++i) {
    sheet_ = waiting[i];
    part_ = 0;
    MSIT_TRY(add_part());
  }
  return ok_status();
}

// The next part of the current sheet: "NAME", then "NAME (2)", ...; its header written.
Status XlsxReportWriter::add_part() {
  ++part_;
  in_part_ = 0;
  std::string name = part_ == 1 ? sheet_ : sheet_ + " (" + std::to_string(part_) + ")";
  book_->ws = workbook_add_worksheet(book_->wb, name.c_str());
  names_.push_back(name);
  lxw_error e = book_->ws ? write_header(book_->ws, book_->cols) : LXW_ERROR_MEMORY_MALLOC_FAILED;
  if (e) return make_error(path_, Stage::kWrite, std::string("xlsx sheet ") + name + ": " + lxw_strerror(e));
  return ok_status();
}

Status XlsxReportWriter::begin_sheet(const std::string& name) {
  if (!book_) {
    waiting_.push_back(name);
    sheet_ = name;
    return ok_status();
  }
  sheet_ = name;
  part_ = 0;
  return add_part();
}

Status XlsxReportWriter::rows(std::span<const ReportRow> rows) {
  if (rows.empty()) return ok_status();
  MSIT_TRY(open());
  for (const ReportRow& r : rows) {
    if (in_part_ == per_sheet_) MSIT_TRY(add_part());
    if (lxw_error e = write_row(book_->ws, ++in_part_, r, book_->cols, extra_)) {
      std::string name = part_ == 1 ? sheet_ : sheet_ + " (" + std::to_string(part_) + ")";
      return make_error(path_, Stage::kWrite, std::string("xlsx sheet ") + name + ": " + lxw_strerror(e));
    }
  }
  return ok_status();
}

Status XlsxReportWriter::commit() {
  MSIT_TRY(open());
  lxw_workbook* wb = std::exchange(book_->wb, nullptr);
  if (lxw_error e = workbook_close(wb)) {
    const bool no_proc = e == LXW_ERROR_CREATING_XLSX_FILE && ::access("/proc/self/fd", F_OK) != 0;
    return make_error(path_, Stage::kWrite,
                      std::string("xlsx: ") + lxw_strerror(e) +
                          (no_proc ? " (/proc is not mounted; the xlsx writer needs it: use --cl for a CSV)" : ""));
  }
  return book_->out->commit();
}

Status write_xlsx_report(const std::string& path, const std::vector<AtbSheet>& sheets, bool extra_columns) {
  XlsxReportWriter w(path, extra_columns);
  for (const AtbSheet& s : sheets) {
    MSIT_TRY(w.begin_sheet(s.name));
    MSIT_TRY(w.rows(s.rows));
  }
  return w.commit();
}

}  // namespace msit::atb
