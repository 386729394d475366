// ReportSink: a rank's CSV or JSON formatted and written while the next rows are compared; the
// files are published together once the compare has succeeded.
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
  Rank& r = ranks_.emplace_back(Rank{rank, SummaryBuilder(o_.summary), std::nullopt, {}, {}, 0});
  std::string name = report_file_name(prefix_, rank.rank, o_.now, o_.json ? "json" : "csv");
  r.path = (std::filesystem::path(o_.output) / name).string();
  return ok_status();
}

// The rank's report file, created with its first rows (a compare that pairs nothing leaves no
// directory behind) or at publish() for a rank without rows.
Status ReportSink::open_stream(Rank& r) {
  if (r.stream) return ok_status();
  if (auto dir = open_output_dir(o_.output); !dir.ok()) return dir.error();
  MSIT_ASSIGN_OR_RETURN(OutputFile out, OutputFile::create(r.path));
  r.stream.emplace(std::move(out));
  return o_.json ? ok_status() : r.stream->write(report_csv_header(o_.csv));
}

// The bytes of write_report_csv / report_json over the rank's rows, a batch at a time.
Status ReportSink::write_rows(Rank& r, std::vector<ReportRow>& rows) {
  if (rows.empty()) return ok_status();
  MSIT_TRY(open_stream(r));
  auto sink = [&](std::string_view part) { return r.stream->write(part); };
  if (!o_.json) {
    r.written += rows.size();
    return write_report_csv_rows(rows, o_.csv, sink);
  }
  std::string buf;
  for (const ReportRow& row : rows) {
    buf += r.written++ ? ",\n" : "[\n";
    buf += report_json_element(row, o_.csv);
    if (buf.size() >= (1u << 20)) {
      MSIT_TRY(sink(buf));
      buf.clear();
    }
  }
  return sink(buf);
}

Status ReportSink::close_stream(Rank& r) {
  MSIT_TRY(open_stream(r));
  if (o_.json) MSIT_TRY(r.stream->write(r.written ? "\n]\n" : "[]\n"));
  MSIT_TRY(r.stream->commit());
  r.stream.reset();
  return ok_status();
}

Status ReportSink::rows(std::vector<ReportRow>& rows) {
  Rank& r = ranks_.back();
  tally_.add(rows, true);
  r.summary.add(rows);
  if (!o_.msit_filters) return fail(write_rows(r, rows));
  std::vector<ReportRow> kept;
  for (ReportRow& row : rows) {
    if (r.filter.keep(row)) kept.push_back(std::move(row));
  }
  return fail(write_rows(r, kept));
}

Status ReportSink::end_rank(const RankInfo& rank) {
  ranks_.back().info = rank;
  return ok_status();
}

Result<std::vector<std::string>> ReportSink::publish(PhaseTimer* timer) {
  if (auto dir = open_output_dir(o_.output); !dir.ok()) return dir.error();
  std::vector<std::string> paths;
  for (Rank& r : ranks_) {
    MSIT_TRY(close_stream(r));
    mark_phase(timer, o_.json ? "publish JSON report" : "publish CSV report");
    paths.push_back(r.path);
  }
  return paths;
}

}  // namespace msit::cli
