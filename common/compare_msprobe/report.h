// msProbe's compare table as a CSV or an .xlsx (docs/formats/msprobe-compare.md §4): the
// columns of each mode and generation, each cell as msProbe writes it.
#pragma once

#include <ctime>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/base/result.h"
#include "common/compare_msprobe/row.h"

namespace msit {

struct MsTable {
  MsMode mode = MsMode::kSummary;
  MsGeneration generation = MsGeneration::k26;
  const std::vector<MsprobeItem>* npu = nullptr;
  const std::vector<MsprobeItem>* bench = nullptr;
  const std::vector<MsRow>* rows = nullptr;
};

// The header, in msProbe's order.
std::vector<std::string_view> ms_header(MsMode mode, MsGeneration generation);
// Every cell of row i, as text, in header order.
std::vector<std::string> ms_row_cells(const MsTable& t, size_t i);
// Header and rows as pandas' to_csv writes them (quoted where needed), piece by piece to `sink`.
Status write_ms_csv(const MsTable& t, const std::function<Status(std::string_view)>& sink);
// The same table as an .xlsx file at `path` (one sheet).
Status write_ms_xlsx(const MsTable& t, const std::string& path);

// The report's file name: compare_result[_rank{R}]_{local YYYYmmddHHMMSS}.csv|.xlsx.
std::string ms_report_file_name(std::optional<int64_t> rank, std::time_t when, bool xlsx);

}  // namespace msit
