// ATB / torch compare front end: options, report files (CSV with -cl, else three-sheet xlsx),
// terminal summary and exit code.
#include "cli/compare_atb.h"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <optional>

#include "cli/commands.h"
#include "common/compare/dump_index.h"
#include "common/compare/engine.h"
#include "common/compare/file_cache.h"
#include "common/compare/recompute.h"
#include "common/compare/row_sink.h"
#include "common/compare/terminal_summary.h"
#include "common/compare_atb/atb_compare.h"
#include "common/compare_atb/file_label.h"
#include "common/compare_atb/legacy.h"
#include "common/compare_atb/mindie.h"
#include "common/compare_atb/stats_compare.h"
#include "common/compare_atb/weight_compare.h"
#include "common/compare_atb/xlsx_report.h"
#include "common/io/output_file.h"
#include "common/report/csv.h"

namespace msit::cli {
namespace {

// The end of every flow here: the HTML report when asked for, then the one exit-status table.
int finish(const AtbRunArgs& r, FlowFamily flow, const std::vector<const std::vector<ReportRow>*>& html_rows,
           const RowTally& t, const Coverage* coverage = nullptr) {
  if (!r.html.empty()) {
    std::vector<HtmlRank> ranks;
    for (const auto* rows : html_rows) ranks.push_back(HtmlRank{std::nullopt, rows});
    std::string title = std::string(family_name(flow)) + ": " + r.my_path + " vs " + r.golden_path;
    if (int rc = write_html_file(r.html, ranks, title, r.quiet); rc != kExitOk) return rc;
    mark_phase(r.timer, "write HTML report");
  }
  return compare_exit_status(t, r.quiet, coverage);
}

// MindIE Torch (docs/formats/atb-torch.md §4): {out}/comparison_results.csv.
int run_mindie(const AtbRunArgs& r, const AtbCliArgs& a) {
  EvalOptions eo;
  if (r.sketch_width) eo.stats.sketch_width = r.sketch_width;
  auto res = atb::run_mindie_compare(r.golden_path, r.my_path, a.ops_json, eo);
  if (!res.ok()) {
    print_error("compare", res.error().to_string());
    return kExitBadInput;
  }
  mark_phase(r.timer, "pair and compare");
  print_warnings("compare", res->warnings, r.verbosity);
  std::vector<ReportRow> rows;
  for (const auto& mr : res->rows) rows.push_back(mr.row);
  RowTally t;
  t.add(rows);
  if (t.pairs == 0) {
    return no_pairs_error(FlowFamily::kMindie, r.golden_path, r.my_path,
                          "the " + std::to_string(res->ops) + " ops of " + a.ops_json +
                              "/mindie_rt_op_mapping.json: NPU dump files named {fusion_op}.{digit} under --my-path "
                              "and CPU outputs in --golden-path/root.{module}/");
  }
  // --json: the rows as every row-report flow writes them (report_json), beside msit's file name.
  std::string path =
      (std::filesystem::path(r.output) / (r.json ? "comparison_results.json" : "comparison_results.csv")).string();
  if (Status st = write_output_file(path, r.json ? report_json(rows, CsvOptions{}) : atb::mindie_csv(res->rows));
      !st.ok()) {
    print_error("compare", st.error().to_string());
    return kExitBadInput;
  }
  mark_phase(r.timer, r.json ? "write JSON report" : "write CSV report");
  if (!r.quiet) {
    std::printf("Saved comparing results: %s\nmode: MindIE Torch (CPU golden vs NPU)\n%s", path.c_str(),
                terminal_summary(rows, std::nullopt).c_str());
  }
  return finish(r, FlowFamily::kMindie, {&rows}, t);
}

// --stats: {out}/statstics_cmp_report_{UTC}.csv (msit's spelling).
int run_stats(const AtbRunArgs& r, const atb::AtbCompareOptions& o) {
  auto res = atb::run_stats_compare(r.golden_path, r.my_path, o);
  if (!res.ok()) {
    print_error("compare", res.error().to_string());
    print_dir_hints(FlowFamily::kAtbStats, r.golden_path, r.my_path);
    return kExitBadInput;
  }
  mark_phase(r.timer, "pair and compare");
  print_warnings("compare", res->warnings, r.verbosity);
  RowTally t;
  t.add(res->rows);
  if (t.pairs == 0) {
    return no_pairs_error(FlowFamily::kAtbStats, r.golden_path, r.my_path,
                          "golden statistics.csv and my statistics of the api matches (" +
                              std::to_string(res->dropped) + " pairs without statistics on one side)");
  }
  std::string path = (std::filesystem::path(r.output) / report_file_name("statstics_cmp_report", std::nullopt,
                                                                         std::time(nullptr), r.json ? "json" : "csv"))
                         .string();
  if (Status st =
          write_output_file(path, r.json ? report_json(res->rows, CsvOptions{}) : atb::stats_report_csv(res->rows));
      !st.ok()) {
    print_error("compare", st.error().to_string());
    return kExitBadInput;
  }
  mark_phase(r.timer, r.json ? "write JSON report" : "write CSV report");
  if (!r.quiet) {
    std::printf("Saved comparing results: %s\n%zu rows (%llu pairs without statistics on one side dropped)\n",
                path.c_str(), res->rows.size(), static_cast<unsigned long long>(res->dropped));
    if (t.fail) {
      std::printf("fail %zu: a max, min or mean differs by more than 1 (a lower bound of the max absolute error)\n",
                  t.fail);
    }
    std::printf("mode: %s\n%s", std::string(flow_name(Flow::kAtbStats)).c_str(),
                terminal_summary(res->rows, std::nullopt).c_str());
  }
  return finish(r, FlowFamily::kAtbStats, {&res->rows}, t);
}

// ait's file name: local time, not UTC.
std::string ait_report_name(std::time_t now, const char* ext) {
  std::tm tm{};
  localtime_r(&now, &tm);
  char ts[32];
  std::strftime(ts, sizeof ts, "%Y%m%d%H%M%S", &tm);
  return std::string("ait_cmp_report_") + ts + "." + ext;
}

// The legacy ait flows (docs/formats/atb-torch.md §3.9, §3.10): {out}/ait_cmp_report_{local time}.csv.
int run_legacy(const AtbRunArgs& r, const AtbCliArgs& a, bool manual) {
  atb::LegacyOptions lo;
  lo.token_level = a.level == "token";
  if (!a.op_mapping_dir.empty()) lo.op_mapping_dir = a.op_mapping_dir;
  lo.msit_compat = a.msit_compat;
  lo.jobs = r.jobs;
  if (r.sketch_width) lo.eval.stats.sketch_width = r.sketch_width;
  auto res =
      manual ? atb::run_manual_mapping(r.golden_path, lo) : atb::run_legacy_compare(r.golden_path, r.my_path, lo);
  if (!res.ok()) {
    print_error("compare", res.error().to_string());
    return kExitBadInput;
  }
  mark_phase(r.timer, "pair and compare");
  print_warnings("compare", res->warnings, r.verbosity);
  const FlowFamily flow = manual ? FlowFamily::kManualMapping : FlowFamily::kLegacyAit;
  if (res->rows.empty()) {
    return no_pairs_error(flow, r.golden_path, r.my_path,
                          manual ? "entries in golden_tensor/metadata.json"
                                 : "tensor files of the built-in and op_mapping_file.json matches of each layer pair "
                                   "(golden: torch token dir, my: ATB token dir)");
  }
  auto rows = r.msit_filters || a.msit_compat ? atb::legacy_int8_filter(res->rows) : res->rows;
  for (auto& row : rows) {
    if (is_int8(row.golden_dtype) != is_int8(row.my_dtype)) {
      row.note = row.note.empty() ? "ait drops int8-vs-non-int8 rows" : row.note + "; ait drops int8-vs-non-int8 rows";
    }
  }
  CsvOptions co;
  co.extra_columns = !r.msit_columns;
  std::string path =
      (std::filesystem::path(r.output) / ait_report_name(std::time(nullptr), r.json ? "json" : "csv")).string();
  Status st = write_output_file(path, r.json ? report_json(rows, co) : atb::legacy_csv(rows, co.extra_columns));
  if (!st.ok()) {
    print_error("compare", st.error().to_string());
    return kExitBadInput;
  }
  mark_phase(r.timer, r.json ? "write JSON report" : "write CSV report");
  if (!r.quiet) {
    std::printf("Saved comparing results: %s\nmode: %s\n%s", path.c_str(), res->description.c_str(),
                terminal_summary(rows, std::nullopt).c_str());
  }
  RowTally t;
  t.add(rows);
  return finish(r, flow, {&rows}, t);
}

// -w (msit cmp_weight.py): {out}/msit_cmp_report_{UTC}.csv with msit's weight columns.
int run_weight(const AtbRunArgs& r, const AtbCliArgs& a) {
  auto res = atb::run_weight_compare(r.golden_path, r.my_path, a.msit_compat, r.jobs);
  if (!res.ok()) {
    print_error("compare", res.error().to_string());
    return kExitBadInput;
  }
  mark_phase(r.timer, "pair and compare");
  print_warnings("compare", res->warnings, r.verbosity);
  if (res->rows.empty()) {
    return no_pairs_error(FlowFamily::kWeight, r.golden_path, r.my_path,
                          "golden float weights (*.safetensors, names ending in weight) with an int8 weight and its "
                          "weight_offset and weight_scale in my *.safetensors (" +
                              std::to_string(res->skipped) + " golden weights without them)");
  }
  auto rows = res->rows;
  if (r.msit_filters || a.msit_compat) {  // msit drops shape-only mismatches
    std::erase_if(rows, [](const atb::WeightRow& w) {
      return w.row.fail_reason == FailReason::kShapeMismatch && !w.row.problem.any();
    });
  }
  std::vector<ReportRow> plain;
  for (const auto& w : rows) plain.push_back(w.row);
  std::string path = (std::filesystem::path(r.output) /
                      report_file_name("msit_cmp_report", std::nullopt, std::time(nullptr), r.json ? "json" : "csv"))
                         .string();
  CsvOptions co;
  co.extra_columns = !r.msit_columns;
  if (Status st =
          write_output_file(path, r.json ? report_json(plain, co) : atb::weight_report_csv(rows, !r.msit_columns));
      !st.ok()) {
    print_error("compare", st.error().to_string());
    return kExitBadInput;
  }
  mark_phase(r.timer, r.json ? "write JSON report" : "write CSV report");
  if (!r.quiet) {
    std::printf(
        "Saved comparing results: %s\nmode: weights (golden float vs my int8 dequantised)\n%zu weights compared, "
        "%zu golden weights without int8 weight/offset/scale in my files\n%s",
        path.c_str(), rows.size(), res->skipped, terminal_summary(plain, std::nullopt).c_str());
  }
  RowTally t;
  t.add(plain);
  return finish(r, FlowFamily::kWeight, {&plain}, t);
}

}  // namespace

AtbOptions add_atb_options(CLI::App* cmd, AtbCliArgs& a) {
  AtbOptions o{};
  // msit spells it -cl/--cmp-level (-cl is rewritten before parsing: cli/msit_spellings.h).
  o.level = cmd->add_option("--cmp-level,--compare-level,--cl", a.level,
                            "ATB/torch dumps: layer, module, api or logits -> one CSV (default: xlsx with sheets "
                            "layer, module, api; a sheet over 1,048,575 rows goes on in 'layer (2)', ...); with "
                            "--legacy-ait: layer (default) or token (msit: -cl)")
                ->check(CLI::IsMember({"layer", "module", "api", "logits", "token"}));
  o.op_mapping = cmd->add_option("--op-mapping-file", a.op_mapping_dir,
                                 "ATB/torch dumps: directory holding op_mapping_file.json (msit: -mf)");
  o.dir_rule = cmd->add_option("--atb-dir-rule", a.dir_rule,
                               "ATB node -> tensor dir: msit (opId from the topology) or robust "
                               "(by type and order of the dump's dirs)")
                   ->check(CLI::IsMember({"msit", "robust"}));
  o.stats = cmd->add_flag("--stats", a.stats,
                          "ATB/torch dumps: compare golden statistics.csv values with my statistics .bin "
                          "files (statstics_cmp_report_*.csv)");
  o.ops_json = cmd->add_option("--ops-json", a.ops_json,
                               "MindIE Torch: directory of mindie_torch_op_mapping.json and "
                               "mindie_rt_op_mapping.json (golden: CPU torch token dir, my: NPU dump dir)");
  o.weight = cmd->add_flag("--weight,-w", a.weight,
                           "Compare the float weights of the golden model dir with my int8 weights "
                           "dequantised by weight_offset/weight_scale (.safetensors)");
  o.legacy_ait = cmd->add_flag("--legacy-ait", a.legacy_ait,
                               "ATB/torch dumps: the older ait compare (golden: torch token dir, my: "
                               "ATB token dir; --cl layer or token; ait_cmp_report_*.csv)");
  o.msit_compat = cmd->add_flag("--msit-compat", a.msit_compat,
                                "ATB/torch dumps: reproduce msit's accidental behaviours "
                                "(docs/compare.md, ATB and torch dumps)");
  return o;
}

namespace {

int compare_two_files(const AtbRunArgs& r) {
  std::vector<SourceFile> files;
  for (const auto* p : {&r.golden_path, &r.my_path}) {
    auto raw = raw_name_of(std::filesystem::path(*p).filename().string());
    if (!raw) {  // tensor_file() accepted both; this guards against a caller that did not ask
      print_error("compare", *p + ": not a tensor file (.pth, .bin, .npy or its summary or archive)");
      return kExitBadInput;
    }
    std::string abs = absolute_path(*p);
    std::string raw_path = (std::filesystem::path(abs).parent_path() / raw->first).string();
    files.push_back(SourceFile{abs, raw_path, raw->second, 0, nullptr, -1});
  }
  PairSpec spec;
  spec.golden = TensorSlot{SlotKind::kFxFile, &files[0], Role::kOutput, 0};
  spec.my = TensorSlot{SlotKind::kFxFile, &files[1], Role::kOutput, 0};
  spec.golden_cell = files[0].raw_path;
  spec.my_cell = files[1].raw_path;
  // Labelled from the files' own place and names (docs/compare.md "Op labels"), like every flow.
  spec.golden_label = atb::two_file_label(files[0].raw_path);
  spec.my_label = atb::two_file_label(files[1].raw_path);
  // The one evaluator and post-pass, with a list of one pair.
  FileCache cache;
  EngineOptions eo;
  eo.jobs = 1;
  if (r.sketch_width) eo.eval.stats.sketch_width = r.sketch_width;
  std::vector<ReportRow> rows(1);
  std::vector<EvalItem> items{EvalItem{&spec, &rows[0], false}};
  evaluate_items(items, cache, eo);
  post_pass(rows, RowGraph::kIndependent);
  mark_phase(r.timer, "compare");
  const ReportRow& row = rows[0];
  if (!r.quiet) std::printf("%s", terminal_summary(rows, std::nullopt).c_str());
  auto cell = [](const std::optional<double>& v) { return v ? python_float_repr(*v) : std::string("-"); };
  std::string reason = msit_reason_cell(row);
  std::printf(
      "cosine_similarity=%s max_relative_error=%s mean_relative_error=%s max_absolute_error=%s "
      "mean_absolute_error=%s kl_divergence=%s relative_euclidean_distance=%s%s%s\n",
      cell(row.cosine).c_str(), cell(row.max_rel).c_str(), cell(row.mean_rel).c_str(), cell(row.max_abs).c_str(),
      cell(row.mean_abs).c_str(), cell(row.kl).c_str(), cell(row.red).c_str(),
      reason.empty() ? "" : " cmp_fail_reason=", reason.c_str());
  RowTally t;
  t.add(rows);
  return finish(r, FlowFamily::kTwoFiles, {&rows}, t);
}

}  // namespace

FlowSelectors flow_selectors(const AtbCliArgs& a) { return FlowSelectors{a.ops_json, a.weight, a.legacy_ait, a.stats}; }

namespace {

int usage(const char* message) {
  print_error("compare", message);
  return kExitUsage;
}

// The ATB/torch reports written as each sheet's rows arrive (docs/compare.md "Streaming"): the
// --cl CSV or JSON (msit's filters and the notes of the rows msit would drop on the way) or the
// workbook's sheets; each sheet's terminal summary and the tally built on the way. Only --html
// holds rows: the page's (the --cl report's, else the api sheet, the finest of the three).
class AtbReportSink : public RowSink {
 public:
  struct Options {
    std::string path;
    bool csv_level = false;  // --cl: one sheet, CSV or JSON
    bool json = false;
    bool msit_filters = false;
    CsvOptions csv;
    bool html = false;
  };
  struct Sheet {
    std::string name;
    SummaryBuilder summary;
  };

  explicit AtbReportSink(Options o) : o_(std::move(o)) {
    if (!o_.csv_level) xlsx_.emplace(o_.path, o_.csv.extra_columns);
  }

  Status begin_rank(const RankInfo& rank) override {
    sheets_.push_back(Sheet{rank.sheet, SummaryBuilder{}});
    return xlsx_ ? fail(xlsx_->begin_sheet(rank.sheet)) : ok_status();
  }
  Status rows(std::vector<ReportRow>& rows) override {
    tally_.add(rows);
    sheets_.back().summary.add(rows);
    if (xlsx_) {
      if (o_.html && sheets_.back().name == "api") html_.insert(html_.end(), rows.begin(), rows.end());
      return fail(xlsx_->rows(rows));
    }
    std::vector<ReportRow> kept;
    for (ReportRow& row : rows) {
      if (o_.msit_filters && !filter_.keep(row)) continue;
      std::string drop = msit_drop_reason(row);  // rows msit's CSV would not have say why
      if (!drop.empty()) row.note = row.note.empty() ? drop : row.note + "; " + drop;
      kept.push_back(std::move(row));
    }
    if (o_.html) html_.insert(html_.end(), kept.begin(), kept.end());
    return fail(write(kept));
  }
  Status end_rank(const RankInfo&) override { return ok_status(); }

  // After the compare: the report closed and published under its name.
  Status publish() {
    if (xlsx_) return xlsx_->commit();
    MSIT_TRY(open());
    if (o_.json) MSIT_TRY(out_->write(written_ ? "\n]\n" : "[]\n"));
    return out_->commit();
  }

  const RowTally& tally() const { return tally_; }
  const std::vector<Sheet>& sheets() const { return sheets_; }
  const std::vector<ReportRow>& html_rows() const { return html_; }
  bool failed() const { return failed_; }  // the compare stopped on a report file's error

 private:
  Status fail(Status st) {
    failed_ = failed_ || !st.ok();
    return st;
  }
  Status open() {
    if (out_) return ok_status();
    MSIT_ASSIGN_OR_RETURN(OutputFile f, OutputFile::create(o_.path));
    out_.emplace(std::move(f));
    return o_.json ? ok_status() : out_->write(report_csv_header(o_.csv));
  }
  // The bytes of write_report_csv / report_json over the sheet's kept rows, a batch at a time.
  Status write(const std::vector<ReportRow>& rows) {
    if (rows.empty()) return ok_status();
    MSIT_TRY(open());
    auto to_file = [&](std::string_view part) { return out_->write(part); };
    if (!o_.json) return write_report_csv_rows(rows, o_.csv, to_file);
    std::string buf;
    for (const ReportRow& row : rows) {
      buf += written_++ ? ",\n" : "[\n";
      buf += report_json_element(row, o_.csv);
    }
    return to_file(buf);
  }

  Options o_;
  std::optional<atb::XlsxReportWriter> xlsx_;
  std::optional<OutputFile> out_;
  uint64_t written_ = 0;  // JSON elements written
  MsitFilter filter_;
  RowTally tally_;
  std::vector<Sheet> sheets_;
  std::vector<ReportRow> html_;
  bool failed_ = false;
};

}  // namespace

int run_atb_compare_cli(FlowFamily flow, const AtbRunArgs& r, const AtbCliArgs& a) {
  if (a.level == "token" && !a.legacy_ait) return usage("--cl token needs --legacy-ait (ait's token compare)");
  switch (flow) {
    case FlowFamily::kMindie: return run_mindie(r, a);
    case FlowFamily::kWeight: return run_weight(r, a);
    case FlowFamily::kManualMapping: return run_legacy(r, a, true);
    case FlowFamily::kLegacyAit:
      if (!a.level.empty() && a.level != "layer" && a.level != "token")
        return usage("--legacy-ait takes --cl layer or token");
      return run_legacy(r, a, false);
    case FlowFamily::kTwoFiles: return compare_two_files(r);
    default: break;
  }
  if (r.json && a.level.empty() && flow == FlowFamily::kAtbTorch) {
    return usage("--json needs --cl for ATB/torch dumps (the default report is the xlsx)");
  }
  atb::AtbCompareOptions o;
  if (a.level == "layer") o.level = atb::PolicySet::kLayer;
  else if (a.level == "module") o.level = atb::PolicySet::kModule;
  else if (!a.level.empty()) o.level = atb::PolicySet::kApi;  // api, logits
  o.msit_compat = a.msit_compat;
  o.robust_dirs = a.dir_rule == "robust";
  if (!a.op_mapping_dir.empty()) o.op_mapping_dir = a.op_mapping_dir;
  o.jobs = r.jobs;
  if (r.sketch_width) o.eval.stats.sketch_width = r.sketch_width;
  if (a.stats) return run_stats(r, o);
  CsvOptions co;
  co.extra_columns = !r.msit_columns;
  co.jobs = r.jobs;
  const std::time_t now = std::time(nullptr);
  const std::string path =
      (std::filesystem::path(r.output) /
       report_file_name("msit_cmp_report", std::nullopt, now, o.level ? (r.json ? "json" : "csv") : "xlsx"))
          .string();
  AtbReportSink reports(
      AtbReportSink::Options{path, o.level.has_value(), r.json, r.msit_filters || a.msit_compat, co, !r.html.empty()});
  std::optional<RecomputeSink> recompute;  // each sheet's first divergences (docs/opcheck.md "compare --recompute")
  if (r.recompute) {
    RecomputeOptions ro;
    ro.ops_before = r.recompute_before;
    recompute.emplace(reports, ro);
  }
  RowSink& sink = recompute ? static_cast<RowSink&>(*recompute) : reports;
  auto res = atb::stream_atb_compare(r.golden_path, r.my_path, o, sink);
  if (!res.ok()) {
    print_error("compare", res.error().to_string());
    if (!reports.failed()) print_dir_hints(FlowFamily::kAtbTorch, r.golden_path, r.my_path);
    return kExitBadInput;
  }
  // The rows are written (unpublished) as they come: this phase includes --recompute and the rows'
  // writing, and the write phase below the closing and publishing.
  mark_phase(r.timer, "pair and compare");
  print_warnings("compare", res->warnings, r.verbosity);
  const RowTally& t = reports.tally();
  if (t.pairs == 0) {
    std::string sheets;
    for (const auto& sheet : reports.sheets()) sheets += (sheets.empty() ? "" : ", ") + sheet.name;
    return no_pairs_error(
        FlowFamily::kAtbTorch, r.golden_path, r.my_path,
        "tensor files of the nodes matched by msit's " + sheets + " policies in the token directories of both paths");
  }
  if (Status st = reports.publish(); !st.ok()) {
    print_error("compare", st.error().to_string());
    return kExitBadInput;
  }
  mark_phase(r.timer, o.level ? (r.json ? "write JSON report" : "write CSV report") : "write xlsx report");
  if (!r.quiet) { std::printf("Saved comparing results: %s\nmode: %s\n", path.c_str(), res->description.c_str()); }
  for (const auto& sheet : reports.sheets()) {
    if (!r.quiet) std::printf("[%s] %s", sheet.name.c_str(), sheet.summary.text(std::nullopt).c_str());
  }
  for (const std::string& gap : res->coverage.lines()) print_warning("compare", gap);
  return finish(r, FlowFamily::kAtbTorch, {&reports.html_rows()}, t, &res->coverage);
}

}  // namespace msit::cli
