// Multi-device rows (3.7): the tensors of every rank concatenated along msit's dimension, then
// compared exactly. Raw files only: statistics of a concatenation are not those of its parts.
#pragma once

#include <string>
#include <vector>

#include "common/compare/dump_index.h"
#include "common/report/report_row.h"

namespace msit::atb {

// Elements one side may hold in memory for a concatenation (floats: 1 GiB).
inline constexpr uint64_t kMaxConcatElements = uint64_t{1} << 28;

// Fills the data cells of r from the concatenated sides; false (r untouched) when the files
// cannot be concatenated (a summary among them, sizes, shapes), with the reason in `why`.
bool evaluate_concat(const std::vector<SourceFile>& golden, const std::vector<SourceFile>& mine, ReportRow& r,
                     std::string& why);

}  // namespace msit::atb
