// msProbe's compare table as a CSV or an .xlsx (docs/formats/msprobe-compare.md §4): the
// columns of each mode and generation, each cell as msProbe writes it.
#pragma once

#include <ctime>
#include <functional>
#include <memory>
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
  // NPU_Stack_Info (stack.json beside the target): the cell of row i, written when set.
  std::function<std::string(size_t i)> stack;
  // Compare_mode, last: where each row's real-data cells came from (exact, hash, sketch, stats),
  // written when a side's tensor files were compacted (docs/formats/msprobe-compare.md §10).
  bool sources = false;
};

// The columns msit-compact may add to msProbe's: NPU_Stack_Info (msProbe's own, optional) and
// Compare_mode (ours, only for compacted sides).
struct MsExtraColumns {
  bool stack = false;
  bool sources = false;
};

// The header, in msProbe's order (with the extra columns asked for).
std::vector<std::string_view> ms_header(MsMode mode, MsGeneration generation, MsExtraColumns extra = {});
// Every cell of row i, as text, in header order.
std::vector<std::string> ms_row_cells(const MsTable& t, size_t i);
// Header and rows as pandas' to_csv writes them (quoted where needed), piece by piece to `sink`.
Status write_ms_csv(const MsTable& t, const std::function<Status(std::string_view)>& sink);
// The same table as an .xlsx file at `path` (one sheet).
Status write_ms_xlsx(const MsTable& t, const std::string& path);

// The table written as its rows arrive, into a temp published by commit(): CSV as write_ms_csv,
// or .xlsx in libxlsxwriter's constant-memory mode (a row is gone once written).
class MsReportFile {
 public:
  virtual ~MsReportFile() = default;
  static Result<std::unique_ptr<MsReportFile>> create(const std::string& path, MsMode mode, MsGeneration generation,
                                                      MsExtraColumns extra, bool xlsx);
  virtual Status add(const MsTable& chunk) = 0;
  virtual Status commit() = 0;
};

// The report's file name: compare_result{suffix}_{local YYYYmmddHHMMSS}.csv|.xlsx, suffix "" or
// msProbe's "_rank3" / "_proc1234" for a rank of a step folder.
std::string ms_report_file_name(const std::string& suffix, std::time_t when, bool xlsx);

}  // namespace msit
