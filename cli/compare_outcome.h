// What every compare flow shares at its end: printing the one exit-status decision
// (common/compare/outcome.h), and the zero-pairs error that says where the dump probably is.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/compare/flow.h"
#include "common/compare/outcome.h"
#include "common/report/html_report.h"
#include "common/report/report_row.h"

namespace msit::cli {

// The exit status of common/compare/outcome.h's table; prints its `result:` line unless quiet.
int compare_exit_status(const RowTally& t, bool quiet, const Coverage* coverage = nullptr);

// A compare that paired nothing (exit 3): prints what `looked_for` under which paths, what the
// two paths hold instead, and the directory the user probably meant.
int no_pairs_error(FlowFamily flow, const std::string& golden, const std::string& my, std::string_view looked_for);

// "hint: did you mean --golden-path DIR?" for each side whose probable_dir() differs from it.
void print_dir_hints(FlowFamily flow, const std::string& golden, const std::string& my);

// What a directory tree holds, in one line ("12 dump files (3 summarised), 2 summary stores;
// dump directories: msit_ge_dump, ..."), for error messages. Bounded walk, no symlink followed.
std::string describe_tree(const std::string& path);

// The directory below or beside `path` (BFS, a few levels) that the flow expects for this side,
// empty when `path` itself is it or none is found. golden: which side.
std::string probable_dir(FlowFamily flow, const std::string& path, bool golden);

// The self-contained HTML report (--html) of any flow's rows; kExitOk or kExitBadInput.
int write_html_file(const std::string& path, const std::vector<HtmlRank>& ranks, const std::string& title, bool quiet);

}  // namespace msit::cli
