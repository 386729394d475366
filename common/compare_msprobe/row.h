// A row of msProbe's compare report (docs/formats/msprobe-compare.md §4-§6): the matched pair,
// the cells msProbe computes from it in each mode, and the verdict of its rule checkers.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/compare_msprobe/item.h"
#include "common/compare_msprobe/match.h"
#include "common/report/row_cells.h"

namespace msit {

// msProbe's three compare modes: real data (tensor files), statistics, CRC-32.
enum class MsMode : uint8_t { kTensor, kSummary, kMd5 };
// Which msProbe's report is written: 26.x (Result by rule checkers) or 8.x (Accuracy Reached
// or Not, summary Warning, md5 pass/Different).
enum class MsGeneration : uint8_t { k26, k8 };
// 26.x's Result, ranked pass < warning < error.
enum class MsResult : uint8_t { kPass, kWarning, kError };
std::string_view ms_result_name(MsResult r);

struct MsRow {
  size_t npu = 0;
  std::optional<size_t> bench;
  std::array<std::string, 8> summary;  // statistics mode: Max diff .. L2norm diff, MaxRelativeErr .. NormRelativeErr
  std::array<MsCell, 6> metrics;       // real-data mode: Cosine, EucDist, MaxAbsErr, MaxRelativeErr, 1/1000, 5/1000
  std::string metric_message;          // what the real-data compare said (8.x keeps it; 26.x's checkers replace it)
  // Where the real-data cells came from: kExact (both files, or summaries keeping every value),
  // kHash, kSketch (estimates) or kStats (none) when a side was compacted; kNone without files.
  MetricSource source = MetricSource::kNone;
  MsResult result = MsResult::kPass;
  std::vector<std::string> messages;  // 26.x: the checkers' messages
  std::string legacy_result;          // 8.x: Accuracy Reached or Not / Result
};

// A statistic as msProbe's table holds it: NaN is the text "Nan" before anything compares it.
MsCell ms_table_cell(const MsCell& c);

// The statistics-mode cells of one pair (msProbe's CalcStatsDiff): signed differences and
// relative errors in percent, with its rules for NaN, inf, N/A, device texts and equal values.
std::array<std::string, 8> ms_summary_cells(const MsprobeItem& npu, const MsprobeItem* bench);
// The same cells as msProbe 8.x wrote them (-i compare.json): N/A for a zero bench and for
// anything not a number, "Nan" for a NaN difference, equal values as 0.0 and 0.0%.
std::array<std::string, 8> ms_summary_cells8(const MsprobeItem& npu, const MsprobeItem* bench);

// 26.x: every row of one entry (an API or module call) judged together by msProbe's rule
// checkers for `mode`; rows of `rows` are grouped by their NPU entry.
void ms_apply_checkers(std::vector<MsRow>& rows, const std::vector<MsprobeItem>& npu,
                       const std::vector<MsprobeItem>& bench, MsMode mode);

// 8.x: each row's verdict as msProbe 8.x wrote it (legacy_result: Accuracy Reached or Not for real
// data, Warning or "" for statistics, pass / Different for md5; metric_message its Err_message),
// and `result` the level it stands for (No, Unmatched, Different: error; Warning: warning).
void ms_apply_legacy_verdict(std::vector<MsRow>& rows, const std::vector<MsprobeItem>& npu,
                             const std::vector<MsprobeItem>& bench, MsMode mode);
// 8.x's Accuracy Reached or Not of one real-data row from its Cosine and MaxAbsErr cells.
std::string ms_accuracy_reached(const MsCell& cosine, const MsCell& max_abs);

// Python's float() of msProbe's percent texts ("12.5%" -> 0.125), 0 when it is no number.
double ms_percent_value(std::string_view text);

}  // namespace msit
