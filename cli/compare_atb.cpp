// ATB / torch compare front end: options, report files (CSV with -cl, else three-sheet xlsx),
// terminal summary and exit code.
#include "cli/compare_atb.h"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <filesystem>

#include "cli/commands.h"
#include "common/compare/dump_index.h"
#include "common/compare/engine.h"
#include "common/compare/file_cache.h"
#include "common/compare/recompute.h"
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

Status write_csv(const std::string& path, const std::vector<ReportRow>& rows, const CsvOptions& co) {
  MSIT_ASSIGN_OR_RETURN(OutputFile out, OutputFile::create(path));
  MSIT_TRY(write_report_csv(rows, co, [&](std::string_view part) { return out.write(part); }));
  return out.commit();
}

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

// The rows the ATB flow's HTML report shows: the --cl CSV's, else the api sheet (the finest
// of the xlsx's three; docs/compare.md).
const std::vector<ReportRow>* html_rows(const atb::AtbCompareResult& res, const std::vector<ReportRow>& kept, bool cl) {
  if (cl) return &kept;
  for (const auto& sheet : res.sheets)
    if (sheet.name == "api") return &sheet.rows;
  return res.sheets.empty() ? &kept : &res.sheets.back().rows;
}

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
  auto res = atb::run_atb_compare(r.golden_path, r.my_path, o);
  if (!res.ok()) {
    print_error("compare", res.error().to_string());
    print_dir_hints(FlowFamily::kAtbTorch, r.golden_path, r.my_path);
    return kExitBadInput;
  }
  mark_phase(r.timer, "pair and compare");
  if (r.recompute) {  // each sheet's first divergences (docs/opcheck.md "compare --recompute")
    RecomputeOptions ro;
    ro.ops_before = r.recompute_before;
    for (auto& sheet : res->sheets) recompute_rows(sheet.rows, ro);
    mark_phase(r.timer, "recompute");
  }
  print_warnings("compare", res->warnings, r.verbosity);
  RowTally t;
  for (const auto& sheet : res->sheets) t.add(sheet.rows);
  if (t.pairs == 0) {
    std::string sheets;
    for (const auto& sheet : res->sheets) sheets += (sheets.empty() ? "" : ", ") + sheet.name;
    return no_pairs_error(
        FlowFamily::kAtbTorch, r.golden_path, r.my_path,
        "tensor files of the nodes matched by msit's " + sheets + " policies in the token directories of both paths");
  }
  CsvOptions co;
  co.extra_columns = !r.msit_columns;
  co.jobs = r.jobs;
  std::time_t now = std::time(nullptr);
  Status st = ok_status();
  std::string path;
  std::vector<ReportRow> kept;
  if (o.level) {
    // msit filters the -cl CSV; as in the torchair mode, rows stay unless --msit-filters
    // (or --msit-compat, which reproduces msit's files).
    const auto& rows = res->sheets.front().rows;
    kept = r.msit_filters || a.msit_compat ? apply_msit_filters(rows) : rows;
    for (auto& row : kept) {  // rows msit's CSV would not have say why
      std::string drop = msit_drop_reason(row);
      if (!drop.empty()) row.note = row.note.empty() ? drop : row.note + "; " + drop;
    }
    path = (std::filesystem::path(r.output) /
            report_file_name("msit_cmp_report", std::nullopt, now, r.json ? "json" : "csv"))
               .string();
    st = r.json ? write_output_file(path, report_json(kept, co)) : write_csv(path, kept, co);
  } else {
    path = (std::filesystem::path(r.output) / report_file_name("msit_cmp_report", std::nullopt, now, "xlsx")).string();
    st = atb::write_xlsx_report(path, res->sheets, co.extra_columns);
  }
  if (!st.ok()) {
    print_error("compare", st.error().to_string());
    return kExitBadInput;
  }
  mark_phase(r.timer, o.level ? (r.json ? "write JSON report" : "write CSV report") : "write xlsx report");
  if (!r.quiet) { std::printf("Saved comparing results: %s\nmode: %s\n", path.c_str(), res->description.c_str()); }
  for (const auto& sheet : res->sheets) {
    if (!r.quiet) std::printf("[%s] %s", sheet.name.c_str(), terminal_summary(sheet.rows, std::nullopt).c_str());
  }
  for (const std::string& gap : res->coverage.lines()) print_warning("compare", gap);
  return finish(r, FlowFamily::kAtbTorch, {html_rows(*res, kept, o.level.has_value())}, t, &res->coverage);
}

}  // namespace msit::cli
