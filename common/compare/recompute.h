// compare --recompute (docs/opcheck.md "compare --recompute"): after a token's first divergence
// is decided, opcheck recomputes the named op and the ops before it from their own dumped
// inputs, on both sides where a side's file carries inputs, and notes the verdicts on the row.
#pragma once

#include <cstddef>
#include <deque>
#include <string>
#include <vector>

#include "common/compare/row_sink.h"
#include "common/formats/graph_text.h"
#include "common/opcheck/op_call.h"

namespace msit {

struct RecomputeOptions {
  size_t ops_before = 3;  // ops recomputed before the first divergence's, in report order
  size_t max_tokens = 8;  // first divergences recomputed per rank (the summary details a few)
  opcheck::OpcheckOptions opcheck;
};

// What opcheck reads for a report path cell's file: a GE dump file as it is, an ATB tensor
// file's op directory (the parent of before/ or after/), a torch .pth file's API directory;
// empty when the file holds no op's inputs (an FX .npy, a summary).
std::string recompute_path_of(const std::string& file);

// One side's verdict as the reports print it: "my MatMul_3 (MatMulV2): the kernel disagrees with
// its own inputs; output 0: 412 of 8192 beyond the bound".
std::string recompute_line(const char* side, const opcheck::OpCheckResult& r);

// msProbe pairs (the msProbe flow's first divergence: a dump.json entry): the entry and the
// ops_before forward API entries of the recomputed set before it in the target's dump.json, on
// the target's rank folder and on the golden's (same entry names), one line per op and side.
std::vector<std::string> recompute_msprobe(const std::string& npu_rank_dir, const std::string& bench_rank_dir,
                                           const std::string& entry, const RecomputeOptions& o);

// One first divergence, rows[first] (marked kFirst), of rows held whole in report order: the
// lines recompute_rows() would give it (its op and the ops_before distinct ops of its token
// before it). `watch --golden --recompute` puts them in the divergence event.
std::vector<std::string> recompute_first_divergence(const std::vector<ReportRow>& rows, size_t first,
                                                    const RecomputeOptions& o);

// The same over rows held whole (the ATB/torch flows' sheets): one rank, one batch.
void recompute_rows(std::vector<ReportRow>& rows, const RecomputeOptions& o);

// A RowSink in front of the report writers: on each first divergence (ReportRow::Jump::kFirst)
// of the first max_tokens tokens of a rank, recomputes its op and the ops_before distinct ops of
// its token before it, and fills the row's `recompute` lines (one per op and side). Ops before
// it may have been handed on in an earlier batch: the op paths of the last kWindow rows are kept.
class RecomputeSink : public RowSink {
 public:
  RecomputeSink(RowSink& next, const RecomputeOptions& o) : next_(next), o_(o) {}
  Status begin_compare(const std::string& report_prefix) override { return next_.begin_compare(report_prefix); }
  Status begin_rank(const RankInfo& rank) override;
  Status rows(std::vector<ReportRow>& rows) override;
  Status end_rank(const RankInfo& rank) override { return next_.end_rank(rank); }

  static constexpr size_t kWindow = 1024;  // rows remembered across batches (bounded memory)

 private:
  struct Seen {  // a row's token and the op paths of its two sides
    int64_t token_id = 0;
    std::string token_text, my, golden;
  };
  void recompute_one(ReportRow& first, const std::vector<Seen>& batch, size_t at);
  std::string side_line(const char* side, const std::string& path);

  RowSink& next_;
  RecomputeOptions o_;
  std::vector<GraphDef> graphs_;  // of the current rank
  std::deque<Seen> window_;       // the last rows of earlier batches of the rank, oldest first
  size_t tokens_done_ = 0;        // first divergences recomputed in the rank
};

}  // namespace msit
