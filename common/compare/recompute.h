// compare --recompute (docs/opcheck.md "compare --recompute"): after a token's first divergence
// is decided, opcheck recomputes the named op and the ops before it from their own dumped
// inputs, on both sides where a side's file carries inputs, and notes the verdicts on the row.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "common/compare/row_sink.h"
#include "common/formats/graph_text.h"
#include "common/opcheck/op_call.h"

namespace msit {

struct RecomputeOptions {
  size_t ops_before = 3;  // ops recomputed before the first divergence's, in report order
  opcheck::OpcheckOptions opcheck;
};

// Recomputes the first divergence of every token in rows (rows in report order, a token's rows
// together) and the ops_before distinct ops before it; fills ReportRow::recompute of the first
// divergence's row, one line per op and side. `graphs`: the rank's graph texts (GE attributes).
void recompute_first_divergences(std::vector<ReportRow>& rows, const std::vector<GraphDef>& graphs,
                                 const RecomputeOptions& o);

// A RowSink that runs recompute_first_divergences() on each batch before passing it on.
class RecomputeSink : public RowSink {
 public:
  RecomputeSink(RowSink& next, RecomputeOptions o) : next_(next), o_(std::move(o)) {}
  Status begin_compare(const std::string& report_prefix) override { return next_.begin_compare(report_prefix); }
  Status begin_rank(const RankInfo& rank) override;
  Status rows(std::vector<ReportRow>& rows) override;
  Status end_rank(const RankInfo& rank) override { return next_.end_rank(rank); }

 private:
  RowSink& next_;
  RecomputeOptions o_;
  std::vector<GraphDef> graphs_;  // of the current rank
};

}  // namespace msit
