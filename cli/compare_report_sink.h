// The torchair compare's reports written as its rows arrive (docs/compare.md "Streaming"): the
// CSV or JSON of each rank streamed into its output file (--msit-filters applied on the way), the
// terminal summary and the tally built on the way; nothing keeps a rank's rows (--html streams
// its own pages: cli/compare_html_sink.h).
#pragma once

#include <ctime>
#include <optional>
#include <string>
#include <vector>

#include "common/base/phase_timer.h"
#include "common/compare/compare.h"
#include "common/compare/outcome.h"
#include "common/compare/row_sink.h"
#include "common/compare/terminal_summary.h"
#include "common/io/output_file.h"
#include "common/report/csv.h"

namespace msit::cli {

struct ReportSinkOptions {
  std::string output = ".";  // report directory
  bool json = false;
  bool msit_filters = false;
  CsvOptions csv;
  SummaryOptions summary;
  std::time_t now = 0;  // the report names' time
};

class ReportSink : public RowSink {
 public:
  explicit ReportSink(ReportSinkOptions o) : o_(std::move(o)) {}

  Status begin_compare(const std::string& report_prefix) override;
  Status begin_rank(const RankInfo& rank) override;
  Status rows(std::vector<ReportRow>& rows) override;
  Status end_rank(const RankInfo& rank) override;

  // After the compare: every report written and published, in rank order (nothing is published
  // before the whole compare succeeded). Returns the paths.
  Result<std::vector<std::string>> publish(PhaseTimer* timer);

  // The error of the sink itself (an output file), which the compare then returned.
  const std::optional<Error>& failed() const { return failed_; }
  const RowTally& tally() const { return tally_; }
  struct Rank {
    RankInfo info;
    SummaryBuilder summary;
    std::optional<OutputFile> stream;  // the streamed report, published by publish()
    std::string path;
    MsitFilter filter;     // --msit-filters: its state runs across the rank's batches
    uint64_t written = 0;  // rows written (JSON: the first element opens the array)
  };
  const std::vector<Rank>& ranks() const { return ranks_; }

 private:
  Status fail(Status st);
  Status open_stream(Rank& r);
  Status write_rows(Rank& r, std::vector<ReportRow>& rows);
  Status close_stream(Rank& r);

  ReportSinkOptions o_;
  std::string prefix_;
  std::vector<Rank> ranks_;
  RowTally tally_;
  std::optional<Error> failed_;
};

}  // namespace msit::cli
