// The one compare engine (docs/compare.md "Flows"): every flow builds a list of pairs; this
// evaluates them (batched reads in store order, progress, --jobs) and runs the one post-pass
// (first divergence) over each rank / token / sheet. Flows differ only in their pair builders
// and in the report files they are written to.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "common/base/run_workers.h"
#include "common/compare/evaluate.h"
#include "common/compare/file_cache.h"
#include "common/compare/matching.h"
#include "common/report/report_row.h"

namespace msit {

// One pair to evaluate: the builder's PairSpec (moved from) and where its row goes.
struct EvalItem {
  PairSpec* spec = nullptr;
  ReportRow* row = nullptr;
  // The flow evaluates this pair itself (EngineOptions::custom): ATB rank concatenation and
  // msit's rope fix-ups. Its files are not read in the batches.
  bool custom = false;
};

struct EngineOptions {
  unsigned jobs = 2;
  EvalOptions eval;
  std::atomic<size_t>* pairs_done = nullptr;  // progress: rows evaluated so far
  // For items marked custom: the flow's own evaluation of item i.
  std::function<ReportRow(size_t i, FileCache& cache)> custom;
  // Called on each row once evaluated (on the worker that evaluated it): what the builder knows
  // that evaluate_pair does not (rank, token text, op types, notes).
  std::function<void(size_t i, ReportRow& row)> finish;
};

// Evaluates every item on min(jobs, batches) threads, 32 pairs at a time: the summaries and
// stored rows of a batch are read together (SmallFileBatch), in the order of the store rows they
// read rather than the report's (a store numbers files in the order they were compacted), then
// the batch's rows are evaluated. Each row is written at its own place, so report order stays.
void evaluate_items(std::vector<EvalItem>& items, FileCache& cache, const EngineOptions& o);

// How the rows of a flow relate: ops of one run, where an error flows on from op to op (every
// dump flow), or tensors that do not feed each other (weights, two files, statistics).
enum class RowGraph : uint8_t { kDataFlow, kIndependent };

// The one post-pass, on the rows of one rank / sheet in report order: error levels, and for a
// data flow the jumps and the first divergence per token (common/compare/divergence.h): an error
// jump needs the op's inputs, which independent tensors do not have. Verdicts come with each row.
void post_pass(std::vector<ReportRow>& rows, RowGraph graph = RowGraph::kDataFlow);

// run_workers(): common/base/run_workers.h.

}  // namespace msit
