// What every compare flow shares at its end: the flow's name, the one exit-status decision
// (cli/options.h table), and the zero-pairs error that says where the dump probably is.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/report/html_report.h"
#include "common/report/report_row.h"

namespace msit::cli {

// The compare flows `compare` dispatches to (docs/compare.md, "Flows").
enum class CompareFlow : uint8_t {
  kTorchair,  // GE vs FX, GE vs GE, FX vs FX
  kAtbTorch,  // ATB / torch-hook dumps, msit HEAD's policies (xlsx or --cl CSV)
  kAtbStats,  // --stats over ATB / torch-hook dumps
  kLegacyAit,
  kManualMapping,  // golden_tensor/metadata.json
  kWeight,         // -w
  kMindie,         // --ops-json
  kTwoFiles,       // two tensor files
};
inline constexpr size_t kFlowCount = 8;
std::string_view flow_name(CompareFlow f);  // "ATB/torch dumps", ...

// Rows counted by verdict, over every sheet / rank of one compare.
struct RowTally {
  size_t rows = 0, pairs = 0, fail = 0, jump = 0, error = 0, inconclusive = 0;
  // pairs: rows that compare two tensors (diagnostic rows, which have no data_id in the
  // torchair flow, are rows but not pairs).
  void add(const std::vector<ReportRow>& rs, bool diagnostic_rows_possible = false);
};

// Exit status (first that applies): 1 a fail or an error jump, 3 rows whose files could not be
// read, 4 inconclusive rows (statistics only), 0. Prints the `result: inconclusive` line unless
// quiet.
int compare_exit_status(const RowTally& t, bool quiet);

// A compare that paired nothing (exit 3): prints what `looked_for` under which paths, what the
// two paths hold instead, and the directory the user probably meant.
int no_pairs_error(CompareFlow flow, const std::string& golden, const std::string& my, std::string_view looked_for);

// "hint: did you mean --golden-path DIR?" for each side whose probable_dir() differs from it.
void print_dir_hints(CompareFlow flow, const std::string& golden, const std::string& my);

// What a directory tree holds, in one line ("12 dump files (3 summarised), 2 summary stores;
// dump directories: msit_ge_dump, ..."), for error messages. Bounded walk, no symlink followed.
std::string describe_tree(const std::string& path);

// The directory below or beside `path` (BFS, a few levels) that the flow expects for this side,
// empty when `path` itself is it or none is found. golden: which side.
std::string probable_dir(CompareFlow flow, const std::string& path, bool golden);

// The self-contained HTML report (--html) of any flow's rows; kExitOk or kExitBadInput.
int write_html_file(const std::string& path, const std::vector<HtmlRank>& ranks, const std::string& title, bool quiet);

}  // namespace msit::cli
