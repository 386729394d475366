// msit HEAD's default report (docs/formats/atb-torch.md §3.8): one .xlsx with sheets layer, module, api.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "common/base/result.h"
#include "common/compare_atb/atb_compare.h"

namespace msit::atb {

// An Excel sheet holds at most 1,048,576 rows: the header and 1,048,575 rows of the report.
inline constexpr size_t kXlsxSheetRows = 1048575;

// A workbook sheet: `count` rows of sheets[sheet] from row `first` on, named `name`.
struct XlsxSheetPart {
  std::string name;
  size_t sheet = 0, first = 0, count = 0;
};
// The sheets of the workbook: each report sheet whole when it fits; else its rows split in
// order over "NAME", "NAME (2)", "NAME (3)", ... of rows_per_sheet rows each (every part with the
// header), so that no row is lost and report order is kept across the parts.
std::vector<XlsxSheetPart> xlsx_sheet_parts(const std::vector<AtbSheet>& sheets,
                                            size_t rows_per_sheet = kXlsxSheetRows);

// The workbook written as its rows arrive, sheet by sheet (the streamed compare's sink): each
// sheet's rows in report order; a sheet goes on in "NAME (2)", ... after rows_per_sheet rows, as
// xlsx_sheet_parts splits a held sheet. The file is created with the first rows (or at commit)
// and published by commit(); dropped uncommitted, it leaves nothing.
class XlsxReportWriter {
 public:
  XlsxReportWriter(std::string path, bool extra_columns, size_t rows_per_sheet = kXlsxSheetRows);
  ~XlsxReportWriter();
  XlsxReportWriter(const XlsxReportWriter&) = delete;
  XlsxReportWriter& operator=(const XlsxReportWriter&) = delete;

  Status begin_sheet(const std::string& name);
  Status rows(std::span<const ReportRow> rows);
  Status commit();
  // The worksheets added so far, in workbook order.
  const std::vector<std::string>& sheet_names() const { return names_; }

 private:
  struct Book;
  Status open();
  Status add_part();
  std::string path_;
  bool extra_;
  size_t per_sheet_;
  std::vector<std::string> waiting_;  // sheets begun before the workbook was opened
  std::string sheet_;                 // the current sheet's name
  size_t part_ = 0, in_part_ = 0;     // its part (1 = NAME) and that part's rows
  std::vector<std::string> names_;
  std::unique_ptr<Book> book_;
};

// Written through an OutputFile (common/io/output_file.h): O_EXCL temp, no-replace publication.
// libxlsxwriter's constant-memory mode streams each sheet's rows to a temp file as they are
// written.
Status write_xlsx_report(const std::string& path, const std::vector<AtbSheet>& sheets, bool extra_columns);

}  // namespace msit::atb
