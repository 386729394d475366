// The older ait compare of a torch token dir against an ATB token dir (docs/formats/atb-torch.md §3.9, seed
// 004), the manual mapping of golden_tensor/metadata.json (3.10), and their ait CSV report.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/base/result.h"
#include "common/compare/evaluate.h"
#include "common/report/report_row.h"

namespace msit::atb {

struct LegacyOptions {
  bool token_level = false;  // -cl token (else layer)
  std::optional<std::string> op_mapping_dir;
  bool msit_compat = false;  // a string mapping value iterated letter by letter
  unsigned jobs = 2;
  EvalOptions eval;
};

struct LegacyResult {
  std::vector<ReportRow> rows;
  std::vector<std::string> warnings;
  std::string description;
};

// ait's layer (built-in then custom mapping rows per layer pair) or token flow.
Result<LegacyResult> run_legacy_compare(const std::string& golden_path, const std::string& my_path,
                                        const LegacyOptions& o);

// A golden path holding golden_tensor/ is a manual-mapping dump (msit's dump_data).
bool has_manual_mapping(const std::string& golden_path);
Result<LegacyResult> run_manual_mapping(const std::string& golden_path, const LegacyOptions& o);

// metadata.json: {data_id: {token_id: [golden_path, my_path]}}, in file order. Structural
// problems are errors naming the file; unusable entries are skipped with a warning (as ait).
struct ManualEntry {
  uint64_t data_id = 0;
  std::string token;
  std::string golden, my;
};
inline constexpr size_t kMaxManualEntries = 1'000'000;
inline constexpr size_t kMaxManualPath = 4096;
Result<std::vector<ManualEntry>> parse_manual_metadata(std::string_view text, const std::string& path,
                                                       std::vector<std::string>& warnings);

// ait's CSV: docs/formats/report.md §2 without the two *_op_type columns (then ours unless msit_columns).
std::string legacy_csv(const std::vector<ReportRow>& rows, bool extra);
// ait's only filter: int8-vs-non-int8 rows dropped, skipping the row after each removal.
std::vector<ReportRow> legacy_int8_filter(const std::vector<ReportRow>& rows);

}  // namespace msit::atb
