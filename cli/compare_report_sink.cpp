// ReportSink: a rank's CSV formatted and written while the next rows are compared; the files are
// published together once the compare has succeeded.
#include "cli/compare_report_sink.h"

#include <filesystem>

namespace msit::cli {

Status ReportSink::fail(Status st) {
  if (!st.ok() && !failed_) failed_ = st.error();
  return st;
}

Status ReportSink::begin_compare(const std::string& report_prefix) {
  prefix_ = report_prefix;
  return ok_status();
}

Status ReportSink::begin_rank(const RankInfo& rank) {
  Rank& r = ranks_.emplace_back(Rank{rank, SummaryBuilder(o_.summary), {}, std::nullopt, {}});
  std::string name = report_file_name(prefix_, rank.rank, o_.now, o_.json ? "json" : "csv");
  r.path = (std::filesystem::path(o_.output) / name).string();
  return ok_status();
}

Status ReportSink::rows(std::vector<ReportRow>& rows) {
  Rank& r = ranks_.back();
  tally_.add(rows, true);
  r.summary.add(rows);
  if (!streamed()) {
    r.rows.insert(r.rows.end(), std::make_move_iterator(rows.begin()), std::make_move_iterator(rows.end()));
    return ok_status();
  }
  if (!r.stream) {
    // Created with the rank's first rows: a compare that pairs nothing leaves no directory behind.
    if (auto dir = open_output_dir(o_.output); !dir.ok()) return fail(dir.error());
    auto out = OutputFile::create(r.path);
    if (!out.ok()) return fail(out.error());
    r.stream.emplace(std::move(*out));
    MSIT_TRY(fail(r.stream->write(report_csv_header(o_.csv))));
  }
  return fail(write_report_csv_rows(rows, o_.csv, [&](std::string_view part) { return r.stream->write(part); }));
}

Status ReportSink::end_rank(const RankInfo& rank) {
  ranks_.back().info = rank;
  return ok_status();
}

Result<std::vector<std::string>> ReportSink::publish(PhaseTimer* timer) {
  if (auto dir = open_output_dir(o_.output); !dir.ok()) return dir.error();
  std::vector<std::string> paths;
  for (Rank& r : ranks_) {
    if (streamed()) {
      if (!r.stream) {  // a rank without rows: its report is the header alone
        MSIT_ASSIGN_OR_RETURN(OutputFile out, OutputFile::create(r.path));
        r.stream.emplace(std::move(out));
        MSIT_TRY(r.stream->write(report_csv_header(o_.csv)));
      }
      MSIT_TRY(r.stream->commit());
      r.stream.reset();
      mark_phase(timer, "publish CSV report");
    } else {
      std::vector<ReportRow> filtered;  // copied only when filtering
      if (o_.msit_filters) filtered = apply_msit_filters(r.rows);
      const std::vector<ReportRow>& rows = o_.msit_filters ? filtered : r.rows;
      MSIT_ASSIGN_OR_RETURN(OutputFile out, OutputFile::create(r.path));
      if (o_.json) MSIT_TRY(out.write(report_json(rows, o_.csv)));
      else MSIT_TRY(write_report_csv(rows, o_.csv, [&](std::string_view part) { return out.write(part); }));
      MSIT_TRY(out.commit());
      mark_phase(timer, o_.json ? "write JSON report" : "format and write CSV report");
    }
    paths.push_back(r.path);
  }
  return paths;
}

}  // namespace msit::cli
