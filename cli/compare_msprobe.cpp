// `compare` on msProbe dumps (docs/formats/msprobe-compare.md): the pairs msProbe would compare,
// each streamed into its report file (msProbe's name and columns), then a summary per pair.
#include "cli/compare_msprobe.h"

#include <ctime>
#include <fstream>
#include <memory>

#include <nlohmann/json.hpp>

#include "cli/compare_outcome.h"
#include "common/compare/recompute.h"
#include "common/compare/terminal_summary.h"
#include "common/compare_msprobe/flow.h"
#include "common/compare_msprobe/mapping_file.h"
#include "common/compare_msprobe/pairs.h"
#include "common/compare_msprobe/stack.h"
#include "common/formats/msprobe_names.h"
#include "common/io/atomic_write.h"
#include "common/io/output_file.h"
#include "common/io/path_name.h"
#include "common/resolve/msprobe_pairs.h"
#include "common/store/store_catalog.h"

namespace msit::cli {
namespace {

// One pair's report, written as its chunks arrive.
class ReportSink : public MsRowSink {
 public:
  ReportSink(const MsprobeRunArgs& r, const MsprobeCliArgs& a, const MsRankPair& p, const MsStackInfo* stack,
             std::time_t now)
      : r_(r), a_(a), p_(p), stack_(stack), now_(now) {}

  Status begin(const MsTable& head) override {
    std::string dir = p_.subdir.empty() ? r_.output : r_.output + "/" + p_.subdir;
    // Missing components are created, none followed as a link (the fd itself is not needed).
    MSIT_ASSIGN_OR_RETURN(UniqueFd dir_fd, open_output_dir(dir));
    path_ = dir + "/" + ms_report_file_name(p_.suffix, now_, a_.xlsx);
    MSIT_ASSIGN_OR_RETURN(
        file_, MsReportFile::create(path_, head.mode, head.generation, {stack_ != nullptr, head.sources}, a_.xlsx));
    return ok_status();
  }
  Status rows(const MsTable& chunk) override {
    MsTable t = chunk;
    if (stack_) {
      // msProbe puts an entry's stack on its first row only.
      t.stack = [&](size_t i) {
        const std::string& entry = (*chunk.npu)[(*chunk.rows)[i].npu].entry;
        if (entry == last_entry_) return std::string("N/A");
        last_entry_ = entry;
        return stack_->cell(entry);
      };
    }
    return file_->add(t);
  }
  Status end(const MsRankTally&) override { return file_->commit(); }
  const std::string& path() const { return path_; }

 private:
  const MsprobeRunArgs& r_;
  const MsprobeCliArgs& a_;
  const MsRankPair& p_;
  const MsStackInfo* stack_;
  std::time_t now_;
  std::string path_, last_entry_;
  std::unique_ptr<MsReportFile> file_;
};

Result<MsMatchOptions> match_options(const MsprobeCliArgs& a, bool cell_mapping_given) {
  MsMatchOptions m;
  m.fuzzy = a.fuzzy;
  if (!a.data_mapping.empty()) { MSIT_ASSIGN_OR_RETURN(m.data_mapping, read_ms_mapping_file(a.data_mapping)); }
  m.cell_mapping_on = cell_mapping_given;
  if (!a.cell_mapping.empty()) { MSIT_ASSIGN_OR_RETURN(m.cell_mapping, read_ms_mapping_file(a.cell_mapping)); }
  return m;
}

std::string_view mode_text(MsMode m) {
  switch (m) {
    case MsMode::kTensor: return "real data";
    case MsMode::kSummary: return "statistics";
    case MsMode::kMd5: return "md5";
  }
  return "";
}

void print_pair(const MsRankPair& p, const MsRankTally& t, const std::string& report, const MsprobeRunArgs& r) {
  std::printf("%s vs %s (%s): %zu rows, %zu pass, %zu warning, %zu error, %zu unmatched\n", p.npu_json.c_str(),
              p.bench_json.c_str(), std::string(mode_text(t.mode)).c_str(), t.rows, t.by_result[0], t.by_result[1],
              t.by_result[2], t.unmatched);
  for (const auto* d : {&t.forward, &t.backward, &t.forward_suspect, &t.backward_suspect}) {
    if (!*d) continue;
    const bool backward = d == &t.backward || d == &t.backward_suspect;
    const bool suspect = d == &t.forward_suspect || d == &t.backward_suspect;
    // The line scripts read keeps its form; margin, floor and why a suspect is one follow it.
    std::printf("%s%s: %s (%s)\n", suspect ? "suspect" : "first divergence", backward ? " (backward)" : "",
                (*d)->entry.c_str(), (*d)->row.c_str());
    const ReportRow& level = (*d)->level;
    std::string why = margin_text(level);
    if (!level.note.empty()) why += "; " + level.note;
    if (!why.empty()) std::printf("  %s\n", why.substr(2).c_str());
    if (!(*d)->modules.empty()) std::printf("  in %s\n", (*d)->modules.front().c_str());
    if (r.recompute && d == &t.forward) {  // backward entries compute gradients: not recomputed
      RecomputeOptions ro;
      ro.ops_before = r.recompute_before;
      for (const auto& line : recompute_msprobe(parent_dir(p.npu_json), parent_dir(p.bench_json), (*d)->entry, ro))
        std::printf("  recomputed: %s\n", line.c_str());
    }
  }
  std::printf("Saved comparing results: %s\n", report.c_str());
}

// One pair's APIs without a bench partner (or with one of another shape) into the compare's
// coverage, by the target's rank: the steps of a rank add up.
void add_api_coverage(Coverage& c, const MsRankPair& p, RankCoverage apis) {
  const auto rank = parse_msprobe_rank_dir(base_name(parent_dir(p.npu_json)));
  if (rank && rank->kind == MsprobeRankKind::kRank) apis.rank = static_cast<int64_t>(rank->number);
  auto same = std::find_if(c.ranks.begin(), c.ranks.end(), [&](const RankCoverage& r) { return r.rank == apis.rank; });
  if (same == c.ranks.end()) c.ranks.push_back(std::move(apis));
  else same->add_counts(apis);
}

}  // namespace

MsprobeOptions add_msprobe_options(CLI::App* cmd, MsprobeCliArgs& a) {
  MsprobeOptions o{};
  // msProbe spells them -fm, -dm, -cm, -lm, -da (rewritten before parsing: cli/msit_spellings.h).
  o.fuzzy = cmd->add_flag("--fuzzy-match,--fuzzy_match", a.fuzzy,
                          "msProbe dumps: match rows ignoring call counters (msProbe: -fm)");
  o.data_mapping = cmd->add_option("--data-mapping,--data_mapping", a.data_mapping,
                                   "msProbe dumps: YAML of target row name: golden row name (msProbe: -dm)");
  o.cell_mapping = cmd->add_option("--cell-mapping,--cell_mapping", a.cell_mapping,
                                   "msProbe dumps, MindSpore vs PyTorch: Cell names as Module names, mapped by this "
                                   "YAML when given (msProbe: -cm [FILE])")
                       ->expected(0, 1);
  o.layer_mapping = cmd->add_option("--layer-mapping,--layer_mapping", a.layer_mapping,
                                    "msProbe dumps, MindSpore target: pair APIs by their place in the layers "
                                    "(construct.json, stack.json), layer names mapped per class by this YAML when "
                                    "given (msProbe: -lm [FILE])")
                        ->expected(0, 1);
  o.diff_analyze = cmd->add_flag("--diff-analyze,--diff_analyze", a.diff_analyze,
                                 "msProbe dumps: accepted (msProbe: -da); the first divergence is always reported");
  o.xlsx = cmd->add_flag("--xlsx", a.xlsx, "msProbe dumps: write the report as .xlsx instead of CSV");
  o.input = cmd->add_option(
      "--input,-i", a.input_json,
      "msProbe 8.x's compare.json (npu_path, bench_path, stack_path) instead of the paths; 8.x's verdict columns");
  return o;
}

MsprobeInput read_msprobe_input_json(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(path + ": cannot open the compare.json");
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(path + ": not JSON (" + e.what() + "); expected {\"npu_path\": ..., \"bench_path\": ...}");
  }
  auto field = [&](const char* key, bool required) -> std::string {
    if (!j.is_object() || !j.contains(key) || j[key].is_null()) {
      if (required) throw InputError(path + ": no \"" + key + "\"; expected {\"npu_path\": ..., \"bench_path\": ...}");
      return "";
    }
    if (!j[key].is_string()) throw InputError(path + ": \"" + key + "\" is not a path");
    return j[key].get<std::string>();
  };
  return {field("npu_path", true), field("bench_path", true), field("stack_path", false)};
}

int run_msprobe_compare_cli(const MsprobeRunArgs& r, const MsprobeCliArgs& a, MsprobeGiven given) {
  auto mo = match_options(a, given.cell_mapping);
  if (!mo.ok()) {
    print_error("compare", mo.error().to_string());
    return kExitBadInput;
  }
  MsCompareOptions o;
  if (given.layer_mapping) {
    auto lm = a.layer_mapping.empty() ? Result<MsLayerMapping>(MsLayerMapping{})
                                      : read_ms_layer_mapping_file(a.layer_mapping);
    if (!lm.ok()) {
      print_error("compare", lm.error().to_string());
      return kExitBadInput;
    }
    o.layer_mapping = std::move(*lm);
  }
  // The resolver's pairing (docs/resolve.md "msProbe trees"): said in one line; what one side
  // lacks is part of the verdict.
  auto plan = resolve::plan_msprobe_pair(r.my_path, r.golden_path, r.command);
  if (!plan.ok()) {
    print_error("compare", plan.error().to_string());
    return kExitBadInput;
  }
  plan->coverage.unlike_hint =
      ", or pair APIs named differently on the two sides with --fuzzy-match, --data-mapping or --layer-mapping";
  if (r.verbosity != Verbosity::kQuiet) std::printf("%s\n", plan->line.c_str());
  print_warnings("compare", plan->notes, r.verbosity);
  const std::vector<MsRankPair>* pairs = &plan->pairs;
  o.match = *mo;
  o.jobs = r.jobs;
  // 8.x users (-i compare.json) get 8.x's report: Accuracy Reached or Not, its Warning, its md5 table.
  o.generation = a.input_json.empty() ? MsGeneration::k26 : MsGeneration::k8;
  const std::time_t now = std::time(nullptr);
  RowTally all;
  for (const MsRankPair& p : *pairs) {
    std::optional<MsStackInfo> stack;
    const std::string& stack_path = r.stack_path.empty() ? p.stack_json : r.stack_path;
    if (!stack_path.empty()) {
      auto s = MsStackInfo::read(stack_path);
      if (!s.ok()) {
        print_error("compare", s.error().to_string());
        return kExitBadInput;
      }
      stack = std::move(*s);
    }
    ReportSink sink(r, a, p, stack ? &*stack : nullptr, now);
    auto t = ms_compare_pair(p.npu_json, p.bench_json, o, sink);
    if (!t.ok()) {
      print_error("compare", t.error().to_string());
      return kExitBadInput;
    }
    if (r.verbosity != Verbosity::kQuiet) print_pair(p, *t, sink.path(), r);
    all.rows += t->rows;
    all.pairs += t->rows - t->unmatched;
    all.fail += t->by_result[2];
    all.jump += (t->forward ? 1 : 0) + (t->backward ? 1 : 0);
    all.suspect += (t->forward_suspect ? 1 : 0) + (t->backward_suspect ? 1 : 0);
    add_api_coverage(plan->coverage, p, t->coverage);
    // This pair's stores (its rank folders') are read by no later pair; kept open, a dump_path of
    // 70 steps held 140 stores' page caches (758 MB at 504,000 pairs, docs/benchmarks.md).
    store::StoreCatalog::instance().close_idle();
  }
  // What one side lacks (ranks, steps, APIs of mine without a bench partner), after the reports.
  for (const std::string& gap : plan->coverage.lines()) print_warning("compare", gap);
  return compare_exit_status(all, r.verbosity == Verbosity::kQuiet, &plan->coverage);
}

}  // namespace msit::cli
