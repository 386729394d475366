// compare: detect the mode and ranks like msit, index both trees, match, evaluate every pair
// (in parallel) and return the report model. No terminal, no files written here.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/base/phase_timer.h"
#include "common/base/result.h"
#include "common/compare/coverage.h"
#include "common/compare/dump_index.h"
#include "common/compare/evaluate.h"
#include "common/compare/file_cache.h"
#include "common/compare/flow.h"
#include "common/compare/matching.h"
#include "common/compare/row_sink.h"
#include "common/report/report_row.h"

namespace msit {

struct CompareOptions {
  // The torchair flow when the caller detected it (detect_torchair_flow); else run_compare detects it.
  std::optional<Flow> flow;
  std::optional<int64_t> rank;   // only this rank (rank layouts)
  std::optional<int64_t> token;  // only this token (a token folder was given: common/resolve/resolve.h)
  // Said in the note of each rank's first row, before the coverage gaps: what was paired (the
  // resolver's line, common/resolve/resolve.h). Empty: only the gaps.
  std::string report_note;
  unsigned jobs = 2;  // worker threads evaluating pairs (all ranks share them)
  EvalOptions eval;
  PhaseTimer* timer = nullptr;  // phase timings, when asked for (--timings)
  // Progress for a caller's display: pairs to evaluate (set once matched) and evaluated so far.
  std::atomic<size_t>* pairs_total = nullptr;
  std::atomic<size_t>* pairs_done = nullptr;
  // Called for each rank once both trees are indexed, before anything of them is read or
  // matched: the live comparer (daemon/live_compare.h) drops from both trees the tokens it has
  // already answered, so that a pass costs what the unanswered tokens cost. Returns whether it
  // dropped any (then a rank left without pairs is not an error).
  std::function<bool(std::optional<int64_t> rank, DumpTree& my, DumpTree& golden)> prune;
  // Directories both indexes leave out unlisted (dump_index.h SkipDir; the live comparer's
  // unchanged answered tokens). Called from the indexing threads.
  SkipDir skip_dir;
  // How deep match_compare indexes the golden (its watched side is indexed by file). kTokens: a
  // golden of millions of files costs its tokens (the live comparer, whose prune reads the few
  // tokens it compares, docs/live-divergence.md "Cost"); tokens prune leaves unread are read
  // before matching. stream_compare indexes both sides by token unless prune is set.
  IndexDepth golden_depth = IndexDepth::kFiles;
};

struct RankReport {
  std::optional<int64_t> rank;  // set for worldsize*_global_rank* layouts
  std::vector<ReportRow> rows;  // report order: graph groups in order, each in msit order
  std::vector<std::string> graph_files;
  uint64_t ops_without_rows = 0;  // GE ops with no FX counterpart (intermediate ops)
};

struct CompareResult {
  Flow flow = Flow::kGeFx;                        // the torchair flow: kGeFx, kGeGe or kFxFx
  std::string report_prefix = "msit_cmp_report";  // msprobe_cmp_report for msprobe_* trees
  std::vector<RankReport> ranks;
  std::vector<std::string> warnings;
  Coverage coverage;  // what was not paired; coverage.ranks[i] is ranks[i]'s
};

// The pairs of one rank, matched and not evaluated: what the live comparer (daemon/live_compare.h)
// evaluates itself, keeping the rows of pairs it has seen.
struct MatchedRank {
  std::optional<int64_t> rank;
  std::vector<std::string> graph_files;
  uint64_t ops_without_rows = 0;
  std::vector<PairSpec> pairs;  // report order
  DumpTree my, golden;          // the pairs point into these
};
struct MatchedCompare {
  Flow flow = Flow::kGeFx;  // the torchair flow: kGeFx, kGeGe or kFxFx
  std::string report_prefix = "msit_cmp_report";
  std::vector<MatchedRank> ranks;
  std::vector<std::string> warnings;
  Coverage coverage;  // ranks and tokens without counterpart; coverage.ranks[i] is ranks[i]'s
};
// run_compare up to the evaluation: mode, ranks, index, graphs, match. `cache` holds the GE
// files read for matching; evaluate the pairs with the same cache.
Result<MatchedCompare> match_compare(const std::string& my_path, const std::string& golden_path,
                                     const CompareOptions& opts, FileCache& cache);

// What a streamed compare returns; its rows went to the sink.
struct CompareHead {
  Flow flow = Flow::kGeFx;
  std::string report_prefix = "msit_cmp_report";
  std::vector<std::string> warnings;
  Coverage coverage;  // what was not paired; coverage.ranks[i] is the i-th rank streamed
};
// The compare, rank by rank, its rows handed to `sink` in report order as they are ready
// (docs/compare.md "Streaming"): memory bounded by the tokens in flight, not the run.
Result<CompareHead> stream_compare(const std::string& my_path, const std::string& golden_path,
                                   const CompareOptions& opts, RowSink& sink);

// stream_compare into memory: every rank's rows (tests and small runs).
Result<CompareResult> run_compare(const std::string& my_path, const std::string& golden_path,
                                  const CompareOptions& opts);

}  // namespace msit
