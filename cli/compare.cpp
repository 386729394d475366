// `msit-compact compare --my-path MY --golden-path GOLDEN`: run the library compare, write one
// msit-compatible report per rank (msProbe dumps: cli/compare_msprobe.cpp), print the summary, map
// the outcome to an exit code.
#ifdef MSIT_MIMALLOC
#include <mimalloc.h>
#else
#include <malloc.h>
#endif

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <memory>
#include <mutex>
#include <thread>

#include "cli/commands.h"
#include "cli/compare_atb.h"
#include "cli/compare_html_sink.h"
#include "cli/compare_msprobe.h"
#include "cli/compare_outcome.h"
#include "cli/compare_report_sink.h"
#include "common/base/stage_thread.h"
#include "common/compare/compare.h"
#include "common/compare/recompute.h"
#include "common/compare/terminal_summary.h"
#include "common/io/output_file.h"
#include "common/report/csv.h"
#include "common/report/html_pages.h"
#include "common/resolve/resolve.h"
#include "common/store/store_catalog.h"

namespace msit::cli {
namespace {

struct CompareArgs {
  std::string my_path, golden_path, output = ".", html;
  std::optional<int64_t> rank;
  unsigned jobs = 0;
  bool json = false;
  bool msit_filters = false;
  bool msit_columns = false;
  Verbosity verbosity = Verbosity::kNormal;
  bool quiet = false;  // verbosity == kQuiet
  bool timings = false;
  uint32_t sketch_width = kDefaultSketchWidth;
  bool recompute = false;       // opcheck over each first divergence (common/compare/recompute.h)
  size_t recompute_before = 3;  // and this many ops before it
  std::string log_level;        // msit's -l/--log-level, mapped onto the verbosity
  AtbCliArgs atb;               // ATB / torch-hook dumps (cli/compare_atb.cpp)
  MsprobeCliArgs msprobe;       // msProbe dumps (cli/compare_msprobe.cpp)
  std::string stack_path;       // msProbe 8.x's compare.json stack_path
  const CLI::Option* cell_mapping = nullptr;
  const CLI::Option* layer_mapping = nullptr;
  // The options that only some flows take (common/compare/flow.h option table).
  struct Limited {
    const CLI::Option* option;
    FlowOption which;
  };
  std::vector<Limited> limited;
};

// An option given for a flow that does not take it is an error naming the flow (exit 2), not a
// silent no-op; exit 3 when it is an ATB-only option and the paths are what is wrong.
int check_flow_options(const CompareArgs& a, FlowFamily family) {
  for (const auto& l : a.limited) {
    if (l.option->count() == 0) continue;
    if (auto refusal = refuse_option(l.which, l.option->get_name(), family)) {
      print_error("compare", refusal->message);
      return refusal->bad_paths ? kExitBadInput : kExitUsage;
    }
  }
  return kExitOk;
}

// The options of the reports and the terminal summary.
ReportSinkOptions sink_options(const CompareArgs& a) {
  ReportSinkOptions so;
  so.output = a.output;
  so.json = a.json;
  so.msit_filters = a.msit_filters;
  so.csv.extra_columns = !a.msit_columns;
  so.csv.jobs = a.jobs ? a.jobs : std::max(1u, std::thread::hardware_concurrency());
  if (a.html.empty()) {
    so.summary.html_command =
        "msit-compact compare -m " + a.my_path + " -g " + a.golden_path + " -q --html compare.html";
  }
  so.now = std::time(nullptr);
  return so;
}

int summarize(const CompareArgs& a, const CompareHead& head, const ReportSink& sink);
struct Paths;
int run_torchair(const CompareArgs& a, const Paths& paths);

// "compared N/M pairs" on stderr while a compare runs longer than a second, on a terminal only;
// the line is cleared when done.
class Progress {
 public:
  Progress(bool enabled, const std::atomic<size_t>& total, const std::atomic<size_t>& done) {
    if (!enabled) return;
    th_ = std::make_unique<StageThread>();
    th_->submit([this, &total, &done] {
      loop(total, done);
      return ok_status();
    });
  }
  ~Progress() {
    if (!th_) return;
    {
      std::lock_guard<std::mutex> l(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    (void)th_->drain();  // loop() returns once it sees stop_
    if (shown_) std::fprintf(stderr, "\r\033[K");
  }
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

 private:
  void loop(const std::atomic<size_t>& total, const std::atomic<size_t>& done) {
    std::unique_lock<std::mutex> l(mu_);
    if (cv_.wait_for(l, std::chrono::seconds(1), [this] { return stop_; })) return;
    while (!stop_) {
      size_t t = total.load(), d = done.load();
      if (t == 0) std::fprintf(stderr, "\rcompare: indexing and matching...\033[K");
      else std::fprintf(stderr, "\rcompare: %zu/%zu pairs (%zu%%)\033[K", d, t, d * 100 / t);
      std::fflush(stderr);
      shown_ = true;
      cv_.wait_for(l, std::chrono::milliseconds(250), [this] { return stop_; });
    }
  }
  std::unique_ptr<StageThread> th_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false, shown_ = false;
};

// The overview page, published after the token pages (written during the compare).
int write_html(const CompareArgs& a, const CompareHead& head, HtmlPages& pages) {
  std::string title = std::string(flow_name(head.flow)) + ": " + a.my_path + " vs " + a.golden_path;
  if (Status st = pages.finish(title, head.coverage.lines()); !st.ok()) {
    print_error("compare", st.error().to_string());
    return kExitBadInput;
  }
  if (!a.quiet) std::printf("HTML report: %s (one page per token in %s)\n", a.html.c_str(), pages.tokens_dir().c_str());
  return kExitOk;
}

// The compare failed after token pages were published: the overview is written over the pages
// that exist and says so, so that no page is left without its overview; nothing is deleted
// (docs/compare.md "HTML report"). No page published yet: nothing to write (the open one's
// temp goes).
void write_failed_html(const CompareArgs& a, HtmlPages& pages, const Error& e) {
  if (pages.pages() == 0) return;
  const std::string title = "compare: " + a.my_path + " vs " + a.golden_path + " (failed)";
  if (Status st = pages.finish(title, {}, e.to_string()); !st.ok()) {
    print_error("compare", st.error().to_string());
    return;
  }
  if (!a.quiet) {
    std::printf("HTML report of the tokens compared before the failure: %s (pages in %s)\n", a.html.c_str(),
                pages.tokens_dir().c_str());
  }
}

// The command line that compares `my` with `golden` (already shell-quoted) with the options
// given that concern the paths: what the resolver's errors tell the user to type.
std::string compare_command(const CompareArgs& a, const std::string& my, const std::string& golden) {
  std::string out = "msit-compact compare -m " + my + " -g " + golden;
  if (a.rank) out += " --rank " + std::to_string(*a.rank);
  if (a.output != ".") out += " -o " + resolve::shell_quote(a.output);
  if (!a.html.empty()) out += " --html " + resolve::shell_quote(a.html);
  return out;
}

// The paths as the flow reads them: the resolver's (common/resolve/resolve.h) for the flows that
// read dump trees, as given for those that read what the user named (models, mapping files).
struct Paths {
  std::string my, golden;
  std::optional<int64_t> rank, token;
  std::string paired;  // the resolver's line, for the reports' note
};

int run(const CompareArgs& a) {
  resolve::PairOptions po;
  po.rank = a.rank;
  po.command = [&a](const std::string& m, const std::string& g) { return compare_command(a, m, g); };
  Result<resolve::ResolvedPair> pair = resolve::resolve_pair(a.my_path, a.golden_path, po);
  if (!pair.ok()) {
    print_error("compare", pair.error().to_string());
    return kExitBadInput;
  }
  const FlowSelectors selectors = flow_selectors(a.atb);
  Paths paths{a.my_path, a.golden_path, a.rank, std::nullopt, {}};
  const FlowFamily family = detect_family(selectors, pair->golden.path, pair->my.path);
  if (family == FlowFamily::kTorchair || family == FlowFamily::kAtbTorch || family == FlowFamily::kAtbStats) {
    // A path the resolver kept is passed on as typed: the flows' messages name it so.
    auto as_read = [](const resolve::ResolvedSide& s) { return s.path == absolute_path(s.given) ? s.given : s.path; };
    paths = Paths{as_read(pair->my), as_read(pair->golden), pair->rank, pair->token, pair->line()};
    if (!a.quiet) std::printf("%s\n", pair->line().c_str());
    print_warnings("compare", pair->notes, a.verbosity);
  }
  const FlowFamily flow = detect_family(selectors, paths.golden, paths.my);
  if (int rc = check_flow_options(a, flow); rc != kExitOk) return rc;
  if (flow == FlowFamily::kMsprobe) {
    unsigned jobs = a.jobs ? a.jobs : std::max(1u, std::thread::hardware_concurrency());
    return run_msprobe_compare_cli(MsprobeRunArgs{a.my_path, a.golden_path, a.output, a.stack_path, jobs, a.verbosity,
                                                  a.recompute, a.recompute_before, po.command},
                                   a.msprobe, {a.cell_mapping->count() > 0, a.layer_mapping->count() > 0});
  }
  if (flow != FlowFamily::kTorchair) {
    std::optional<PhaseTimer> timer;
    if (a.timings) timer.emplace(stderr);
    unsigned jobs = a.jobs ? a.jobs : std::max(1u, std::thread::hardware_concurrency());
    return run_atb_compare_cli(
        flow,
        AtbRunArgs{paths.golden, paths.my, a.output, a.html, jobs, a.msit_filters, a.msit_columns, a.quiet, a.json,
                   a.sketch_width, a.verbosity, timer ? &*timer : nullptr, a.recompute, a.recompute_before},
        a.atb);
  }
  return run_torchair(a, paths);
}

int run_torchair(const CompareArgs& a, const Paths& paths) {
  // A summary compare allocates ~1 KB per tensor pair in small pieces: 300+ MB for 100,000
  // pairs. Where a first touch of a page is expensive (a trapped fault in a VM: ~10 us),
  // faulting that in 4 KB pages took a third of the run; with transparent huge pages for the
  // heap, 100,000 pairs went from 2.5 to 2.0 s (docs/benchmarks.md). Only compare asks for
  // them: the daemon and compact stay at a few MB. The streamed compare frees its rows every
  // few thousand files and its worker threads end after each chunk: memory handed back to the
  // kernel was faulted (and zeroed, 2 MB at a time) again at once, 109,000 faults and ~15% of
  // the CPU time on 100,800 pairs; kept instead, 25,000-33,000 faults (docs/benchmarks.md).
#ifdef MSIT_MIMALLOC
  mi_option_enable(mi_option_large_os_pages);
  mi_option_disable(mi_option_allow_decommit);
#elif defined(__GLIBC__)
  ::mallopt(M_TOP_PAD, 64 << 20);  // sanitizer builds: at least grow the heap in large steps
#endif
  std::optional<PhaseTimer> timer;
  if (a.timings) timer.emplace(stderr);
  CompareOptions o;
  o.timer = timer ? &*timer : nullptr;
  o.rank = paths.rank;
  o.token = paths.token;
  o.report_note = paths.paired;
  o.jobs = a.jobs ? a.jobs : std::max(1u, std::thread::hardware_concurrency());
  o.eval.stats.sketch_width = a.sketch_width;
  std::atomic<size_t> total{0}, done{0};
  o.pairs_total = &total;
  o.pairs_done = &done;
  ReportSink sink(sink_options(a));
  std::optional<HtmlPages> pages;  // --html: its token pages are written as the rows come
  std::optional<HtmlTeeSink> tee;
  if (!a.html.empty()) {
    Result<HtmlPages> p = HtmlPages::create(a.html);
    if (!p.ok()) {
      print_error("compare", p.error().to_string());
      return kExitBadInput;
    }
    tee.emplace(pages.emplace(std::move(*p)), sink);
  }
  RowSink& reports = tee ? static_cast<RowSink&>(*tee) : sink;
  RecomputeOptions ro;
  ro.ops_before = a.recompute_before;
  RecomputeSink recompute(reports, ro);
  Result<CompareHead> res = make_error(a.my_path, Stage::kCompare, "not run");
  {
    Progress progress(!a.quiet && ::isatty(STDERR_FILENO) == 1, total, done);
    res = stream_compare(paths.my, paths.golden, o, a.recompute ? static_cast<RowSink&>(recompute) : reports);
  }
  if (!res.ok()) {
    print_error("compare", res.error().to_string());
    if (!sink.failed() && !(tee && tee->failed())) print_dir_hints(FlowFamily::kTorchair, paths.golden, paths.my);
    if (pages) write_failed_html(a, *pages, res.error());
    return kExitBadInput;
  }
  print_warnings("compare", res->warnings, a.verbosity);
  for (const std::string& gap : res->coverage.lines()) print_warning("compare", gap);
  if (sink.tally().pairs == 0) {
    return no_pairs_error(FlowFamily::kTorchair, paths.golden, paths.my,
                          std::string(flow_name(res->flow)) +
                              " pairs: GE ops of --my-path matched by graph text or name with the tensors of "
                              "--golden-path, token by token");
  }
  auto published = sink.publish(o.timer);
  if (!published.ok()) {
    print_error("compare", published.error().to_string());
    if (pages) write_failed_html(a, *pages, published.error());
    return kExitBadInput;
  }
  if (!a.quiet) {
    for (const auto& p : *published) std::printf("Saved comparing results: %s\n", p.c_str());
  }
  if (pages) {
    if (int rc = write_html(a, *res, *pages); rc != kExitOk) return rc;
    mark_phase(o.timer, "write HTML overview");
  }
  return summarize(a, *res, sink);
}

// The terminal summary per rank, then the exit status of every flow (compare_exit_status).
int summarize(const CompareArgs& a, const CompareHead& head, const ReportSink& sink) {
  if (!a.quiet) std::printf("mode: %s\n", std::string(flow_name(head.flow)).c_str());
  for (const auto& rr : sink.ranks()) {
    if (!a.quiet) {
      std::printf("%s", rr.summary.text(rr.info.rank).c_str());
      if (rr.info.ops_without_rows) {
        std::printf("(%llu GE ops have no FX counterpart: intermediate ops of a converted FX node)\n",
                    static_cast<unsigned long long>(rr.info.ops_without_rows));
      }
    }
  }
  return compare_exit_status(sink.tally(), a.quiet, &head.coverage);
}

// msit's -l/--log-level: debug shows every detail (-v), warning and above only warnings and
// errors (-q); msit's levels below error have no further meaning here.
Verbosity verbosity_of_log_level(const std::string& level, Verbosity given) {
  if (level.empty()) return given;
  if (level == "debug") return Verbosity::kVerbose;
  if (level == "info") return Verbosity::kNormal;
  return Verbosity::kQuiet;
}

}  // namespace

// Summary stores that were refused (another user's WAL beside one, a crafted one: docs/safety.md
// T1-T5) hold summaries this run could not use: each is said once, and the exit status says
// that input was unreadable unless the result already reports something worse.
int with_store_errors(int rc) {
  const std::vector<Error> errors = store::StoreCatalog::instance().take_errors();
  for (const Error& e : errors) print_error("compare", e.to_string() + " (its summaries were left out)");
  if (errors.empty() || (rc != kExitOk && rc != kExitInconclusive)) return rc;
  return kExitBadInput;
}

namespace {
// compare's lines of the exit-status table (cli/options.h, docs/compare.md "Exit status").
std::string compare_exit_statuses() {
  return "Exit status (the first that applies):\n"
         "  " +
         std::to_string(kExitBadInput) +
         "  a path is missing or unusable, the same dump on both sides, trees that are not two runs of one model\n"
         "  " +
         std::to_string(kExitFailures) +
         "  a divergence: a row fails msprobe's thresholds, or an op's error jumps\n"
         "  " +
         std::to_string(kExitBadInput) +
         "  unreadable rows, or nothing paired\n"
         "  " +
         std::to_string(kExitInconclusive) +
         "  inconclusive: rows judged from statistics only, or part of my dump not compared\n"
         "  " +
         std::to_string(kExitOk) +
         "  every row passed\n"
         "  " +
         std::to_string(kExitUsage) + "  bad command line, or an option the detected flow does not take\n";
}
}  // namespace

CLI::App* register_compare(CLI::App& app, int& exit_code) {
  auto a = std::make_shared<CompareArgs>();
  CLI::App* cmd = app.add_subcommand(
      "compare", "Compare two dumps (raw, summarized or mixed) into an msit- or msProbe-compatible report");
  // msit spells these -mp/--my-path and -gp/--golden-path (rewritten before parsing:
  // cli/msit_spellings.h).
  cmd->add_option("--my-path,-m", a->my_path,
                  "My dump: the GE dump (msit_ge_dump / msprobe_ge_dump), an FX dump, an ATB/torch token dir, the "
                  "MindIE NPU dump, a tensor file, or msProbe's target dump.json / rank / step dir (msit: -mp, "
                  "msProbe: -tp); required");
  cmd->add_option("--golden-path,-g", a->golden_path,
                  "Golden dump: FX dump, unfused GE dump, torch/ATB token dir, CPU torch token dir, a tensor file, or "
                  "msProbe's golden dump (msit and msProbe: -gp); required");
  cmd->add_option("--output,-o", a->output, "Directory for the report (default: current directory)");
  auto* rank = cmd->add_option("--rank", a->rank, "Only this rank of a worldsize*_global_rank* layout");
  add_jobs(cmd, a->jobs, "Worker threads");
  auto* sketch = add_sketch_width(cmd, a->sketch_width, "Sketch buckets for raw files summarised on the fly");
  auto* html = cmd->add_option("--html", a->html,
                               "Also write a self-contained HTML report (plots, tables) to this file; GE/FX dumps: an "
                               "overview, a page per token in FILE.tokens beside it");
  auto* json = cmd->add_flag("--json", a->json, "Write the rows as JSON instead of CSV");
  auto* filters = cmd->add_flag("--msit-filters", a->msit_filters,
                                "Drop the rows msit drops (shape-only mismatches, int8 rows, "
                                "diagnostic rows)");
  auto* columns = cmd->add_flag("--msit-columns", a->msit_columns, "Write only msit's 24 columns");
  add_verbosity(cmd, a->verbosity, "Every warning, not only the first " + std::to_string(kWarningsShown));
  cmd->add_option("--log-level,-l", a->log_level,
                  "msit's log level: debug (as -v), info (default), warning, error, fatal or critical (as -q)")
      ->check(CLI::IsMember({"debug", "info", "warning", "warn", "error", "fatal", "critical"}))
      ->excludes("--verbose")
      ->excludes("--quiet");
  cmd->add_flag("--timings", a->timings, "Print the wall time and memory of each phase to stderr");
  auto* recompute = cmd->add_flag("--recompute", a->recompute,
                                  "Recompute each token's first divergence and the ops before it from their own dumped "
                                  "inputs (opcheck): does the kernel disagree with its inputs, or inherit the error?");
  auto* before = cmd->add_option("--recompute-before", a->recompute_before,
                                 "Ops recomputed before the first divergence (default 3)")
                     ->check(CLI::Range(size_t{0}, size_t{64}));
  AtbOptions atb = add_atb_options(cmd, a->atb);
  MsprobeOptions ms = add_msprobe_options(cmd, a->msprobe);
  a->cell_mapping = ms.cell_mapping;
  a->layer_mapping = ms.layer_mapping;
  using O = FlowOption;
  a->limited = {
      {rank, O::kRank},
      {sketch, O::kSketchWidth},
      {html, O::kHtml},
      {json, O::kJson},
      {filters, O::kMsitFilters},
      {columns, O::kMsitColumns},
      {atb.level, O::kCmpLevel},
      {atb.op_mapping, O::kOpMapping},
      {atb.dir_rule, O::kDirRule},
      {atb.stats, O::kStats},
      {atb.msit_compat, O::kMsitCompat},
      {ms.fuzzy, O::kFuzzyMatch},
      {ms.data_mapping, O::kDataMapping},
      {ms.cell_mapping, O::kCellMapping},
      {ms.layer_mapping, O::kLayerMapping},
      {ms.diff_analyze, O::kDiffAnalyze},
      {ms.xlsx, O::kXlsx},
      {recompute, O::kRecompute},
      {before, O::kRecompute},
  };
  cmd->footer(compare_exit_statuses() +
              "\nmsit's and msProbe's command lines run as they are:\n"
              "  msit-compact compare -mp msit_ge_dump -gp msit_fx_dump -o out\n"
              "  msit-compact compare -tp npu/step0 -gp bench/step0 -o out [-fm] [-dm map.yaml] [-cm [map.yaml]]\n"
              "                       [-lm [layer_mapping.yaml]] [-da] [--xlsx]\n"
              "  msit-compact compare -i compare.json -o out          (msProbe 8.x: npu_path, bench_path, stack_path)");
  cmd->callback([a, &exit_code] {
    // Checked here, not by CLI11's required(): CLI11 checks those before unknown arguments,
    // and `compare -gpX Y` style mistakes deserve the hint of the unknown-argument error.
    if (!a->msprobe.input_json.empty()) {
      if (!a->my_path.empty() || !a->golden_path.empty()) {
        throw CLI::ValidationError("-i", "give the paths in compare.json or on the command line, not both");
      }
      MsprobeInput in = read_msprobe_input_json(a->msprobe.input_json);
      a->my_path = in.npu_path;
      a->golden_path = in.bench_path;
      a->stack_path = in.stack_path;
    }
    if (a->my_path.empty()) throw CLI::RequiredError("--my-path");
    if (a->golden_path.empty()) throw CLI::RequiredError("--golden-path");
    a->verbosity = verbosity_of_log_level(a->log_level, a->verbosity);
    a->quiet = a->verbosity == Verbosity::kQuiet;
    exit_code = with_store_errors(run(*a));
  });
  return cmd;
}

}  // namespace msit::cli
