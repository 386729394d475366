// The msProbe flow: two dump.json files -> msProbe's table, streamed to a sink in chunks of whole
// entries, real-data pairs evaluated on the one engine (common/compare/engine.h) and the first
// divergence from its post-pass (docs/formats/msprobe-compare.md §8).
#pragma once

#include <array>
#include <atomic>
#include <optional>
#include <string>
#include <vector>

#include "common/base/result.h"
#include "common/compare/coverage.h"
#include "common/compare_msprobe/mapping_file.h"
#include "common/compare_msprobe/report.h"
#include "common/compare_msprobe/side.h"
#include "common/report/report_row.h"

namespace msit {

struct MsCompareOptions {
  MsMatchOptions match;
  // -lm: the layer mapping (empty for -lm without a file); on a MindSpore target it replaces -dm.
  std::optional<MsLayerMapping> layer_mapping;
  MsGeneration generation = MsGeneration::k26;  // whose report: 26.x's Result, or 8.x's (-i compare.json)
  unsigned jobs = 2;
  std::atomic<size_t>* pairs_done = nullptr;  // progress: real-data pairs evaluated
};

// A first divergence: the entry (API or module call) and the NPU row the engine's post-pass named.
struct MsDivergence {
  std::string entry, row;
  std::vector<std::string> modules;  // construct.json's modules around the entry, innermost first
  ReportRow level;                   // the post-pass's row: cosine, red, error level and jump
};

// What one rank pair gave: rows by Result, and the first divergence of the forward pass and of
// the backward pass (each its own flow: backward entries and parameter gradients).
struct MsRankTally {
  MsMode mode = MsMode::kSummary;
  size_t rows = 0, unmatched = 0;
  // Real-data pairs whose file could not be read (gone without a stored summary: a file being
  // compacted while the pass listed the stores; corrupt): the live comparer asks again.
  size_t unreadable = 0;
  std::array<size_t, 3> by_result{};  // pass, warning, error (26.x)
  std::optional<MsDivergence> forward, backward;
  // Each pass's first suspect before its first divergence (if any): a name the rule would not
  // confirm (a thin margin, or statistics only with upstream statistics moved too): inconclusive.
  std::optional<MsDivergence> forward_suspect, backward_suspect;
  // The target's rows as coverage (docs/compare.md "Coverage"): those without a bench partner, or
  // with one of another shape (rank not set: the caller knows it).
  RankCoverage coverage;
};

// Where a compare's rows go: per rank pair, the head, then chunks of rows (each chunk holds whole
// entries, in the report's order), then the tally.
class MsRowSink {
 public:
  virtual ~MsRowSink() = default;
  virtual Status begin(const MsTable& head) = 0;  // rows empty; mode, generation, both sides' items
  virtual Status rows(const MsTable& chunk) = 0;
  virtual Status end(const MsRankTally& tally) = 0;
};

// One pair of dump.json files. Memory: both sides' rows packed (MsItemStore: msProbe matches over
// whole files), unpacked one chunk at a time, and one chunk of report rows; each matched pair with
// an error level keeps the first-divergence rule's row (JumpRow, ~200 B) until the rule has run.
Result<MsRankTally> ms_compare_pair(const std::string& npu_json, const std::string& bench_json,
                                    const MsCompareOptions& o, MsRowSink& sink);

// The whole table in memory (tests, small files).
struct MsCompareResult {
  MsMode mode = MsMode::kSummary;
  MsprobeSide npu, bench;
  std::vector<MsRow> rows;
  MsRankTally tally;
};
Result<MsCompareResult> ms_compare_files(const std::string& npu_json, const std::string& bench_json,
                                         const MsCompareOptions& o);

}  // namespace msit
