// msit HEAD's default report (docs/formats/atb-torch.md §3.8): one .xlsx with sheets layer, module, api.
#pragma once

#include <cstddef>
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

// Written through an OutputFile (common/io/output_file.h): O_EXCL temp, no-replace publication.
// libxlsxwriter's constant-memory mode streams each sheet's rows to a temp file as they are
// written.
Status write_xlsx_report(const std::string& path, const std::vector<AtbSheet>& sheets, bool extra_columns);

}  // namespace msit::atb
