// compare for ATB / torch-hook dumps (docs/formats/atb-torch.md §3): ATB vs torch, torch vs torch, ATB vs ATB,
// on raw, summarised or mixed trees. Streams each sheet's rows to a RowSink (docs/compare.md
// "Streaming"), or returns them as one row list per report sheet; writes nothing itself.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/base/result.h"
#include "common/compare/coverage.h"
#include "common/compare/evaluate.h"
#include "common/compare/row_sink.h"
#include "common/compare_atb/match.h"
#include "common/report/report_row.h"

namespace msit::atb {

// Rows already evaluated, kept by a caller that compares the same growing trees again and again
// (the live comparer, docs/live-divergence.md "ATB and torch"). A pair whose key (sheet, both
// cells, what stands for each side, rank files, rope fix-up) has a row is not read again; a row
// with a fail reason is never kept (a side may have been caught mid-write or mid-compaction).
// Rows of pairs no longer matched are dropped at each run.
struct AtbRowCache {
  std::map<std::string, ReportRow> rows;
  size_t hits = 0, evaluated = 0;  // of the last run
};

struct AtbCompareOptions {
  std::optional<PolicySet> level;  // -cl layer|module|api (logits = api); none: all three sheets
  bool msit_compat = false;        // reproduce msit's accidents (docs/compare.md)
  bool robust_dirs = false;        // 2.4 robust node -> directory rule
  std::optional<std::string> op_mapping_dir;
  unsigned jobs = 2;
  // Pairs expanded and evaluated together (whole token pairs, at least one): enough to keep the
  // workers busy, few enough that their jobs and rows stay a few MB (tests make it 1).
  size_t chunk_jobs = 4096;
  EvalOptions eval;
  AtbRowCache* row_cache = nullptr;  // none: every pair is evaluated
  // Token pairs left out before any file of them is listed or read (the live comparer's answered
  // tokens, docs/live-divergence.md "ATB and torch"): called with the token key and both token
  // directories; true leaves the pair out. None: every pair is compared.
  std::function<bool(const std::string& key, const std::string& golden_dir, const std::string& my_dir)> skip_token;
};

struct AtbSheet {
  std::string name;             // "layer", "module", "api"
  std::vector<ReportRow> rows;  // report order; data_id counts across sheets
};

struct AtbCompareResult {
  std::vector<AtbSheet> sheets;
  std::vector<std::string> warnings;
  // Tokens of one side that the other lacks (docs/compare.md "Coverage"), when neither path names
  // a token directory: not compared.
  Coverage coverage;
  std::string description;  // "torch vs ATB", for the terminal
};

// True when both paths are ATB or torch dumps (3.1) — the CLI then takes this mode.
bool is_atb_torch_compare(const std::string& golden_path, const std::string& my_path);

// Every sheet's rows held (the live comparer, tests): stream_atb_compare into row lists.
Result<AtbCompareResult> run_atb_compare(const std::string& golden_path, const std::string& my_path,
                                         const AtbCompareOptions& opts);

// The compare streamed: sheet by sheet (one sink rank each, RankInfo::sheet naming it), the
// tokens of a sheet a few thousand pairs at a time are expanded, evaluated and post-passed, and
// their rows handed to `sink` in report order, then dropped (a token whose id comes again later,
// e.g. "warmup" after token 0, is held until its last part). The result has no sheets. A sink
// error stops the compare and is returned.
Result<AtbCompareResult> stream_atb_compare(const std::string& golden_path, const std::string& my_path,
                                            const AtbCompareOptions& opts, RowSink& sink);

}  // namespace msit::atb
