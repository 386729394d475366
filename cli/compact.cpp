// `msit-compact compact DIR...`: one-shot compaction with progress and a final report.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <map>
#include <stdexcept>
#include <thread>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/human.h"
#include "common/base/printable.h"
#include "common/compaction/compact_run.h"
#include "common/compaction/compact_settings.h"
#include "common/compaction/summary_format.h"
#include "common/safety/quarantine.h"

namespace msit::cli {
namespace {

struct CompactArgs {
  std::vector<std::string> dirs;
  unsigned jobs = 0;         // 0: one per core
  std::string format;        // empty: default_summary_format()
  CompactSettings settings;  // format filled from `format` at run
  bool dry_run = false;
  bool json = false;
  bool force = false;
  Verbosity verbosity = Verbosity::kNormal;
  std::string quarantine;
};

// SIGINT/SIGTERM: workers finish the files in flight (their temps are removed or published),
// then the run stops and says so.
std::atomic<bool> g_cancel{false};
std::atomic<int> g_signal{0};

void on_signal(int sig) {
  g_signal.store(sig);
  g_cancel.store(true);
}

void install_signal_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  ::sigaction(SIGINT, &sa, nullptr);
  ::sigaction(SIGTERM, &sa, nullptr);
}

// Throttled to 10 Hz and only on a terminal, so logs and pipes stay clean.
class ProgressLine {
 public:
  explicit ProgressLine(bool wanted) : enabled_(wanted && ::isatty(STDERR_FILENO) != 0) {}
  void update(const CompactProgress& p) {
    if (!enabled_) return;
    auto now = std::chrono::steady_clock::now();
    if (p.done != p.total && now - last_ < std::chrono::milliseconds(100)) return;
    last_ = now;
    std::fprintf(stderr, "\r[compact] %zu/%zu files, %s -> %s, %zu failed   ", p.done, p.total,
                 human_bytes(p.bytes_before).c_str(), human_bytes(p.bytes_after).c_str(), p.failed);
    shown_ = true;
  }
  ~ProgressLine() {
    if (shown_) std::fputc('\n', stderr);
  }

 private:
  bool enabled_;
  bool shown_ = false;
  std::chrono::steady_clock::time_point last_{};
};

nlohmann::json report_json(const CompactReport& r) {
  nlohmann::json j;
  j["candidates"] = r.candidates;
  j["compacted"] = r.compacted;
  j["verified_existing"] = r.verified;
  j["dry_run"] = r.dry_run;
  j["raw_removed"] = r.raw_removed;
  j["temp_removed"] = r.temp_removed;
  j["bytes_before"] = r.bytes_before;
  j["bytes_after"] = r.bytes_after;
  j["failures"] = nlohmann::json::array();
  for (const auto& f : r.failures) {
    j["failures"].push_back({{"path", f.path}, {"reason", f.reason}, {"stage", std::string(stage_name(f.stage))}});
    if (!f.moved_to.empty()) j["failures"].back()["moved_to"] = f.moved_to;
  }
  j["quarantined"] = r.quarantined;
  j["quarantined_before"] = r.quarantined_before;
  j["claims_restored"] = r.claims_restored;
  j["dump_roots"] = r.dump_roots;
  j["cancelled"] = r.cancelled;
  j["left_alone"] = nlohmann::json::array();
  for (const auto& l : r.left_alone)
    j["left_alone"].push_back({{"path", l.path}, {"reason", std::string(left_alone_reason(l.reason))}});
  j["symlinks_skipped"] = r.symlinks;
  j["notes"] = r.notes;
  return j;
}

// One line per reason; every path only with -v (a wrong directory must not print 6,000 lines).
void print_left_alone(const CompactReport& r, bool verbose) {
  std::map<LeftAlone, size_t> counts;
  for (const auto& l : r.left_alone) ++counts[l.reason];
  for (auto [reason, n] : counts)
    std::printf("left alone: %zu file%s %s\n", n, n == 1 ? "" : "s", std::string(left_alone_reason(reason)).c_str());
  if (!r.symlinks.empty())
    std::printf("left alone: %zu symlink%s (never followed)\n", r.symlinks.size(), r.symlinks.size() == 1 ? "" : "s");
  if (verbose) {
    for (const auto& l : r.left_alone)
      std::printf("  %s: %s\n", printable(l.path).c_str(), std::string(left_alone_reason(l.reason)).c_str());
    for (const auto& s : r.symlinks) std::printf("  %s: symlink\n", printable(s).c_str());
  } else if (!r.left_alone.empty() || !r.symlinks.empty()) {
    std::printf("(-v lists them)\n");
  }
}

// Failures grouped by stage (header, payload, ...), each with its first few examples in path
// order; every one only with -v, so that a wrong tree does not print thousands of lines.
constexpr size_t kExamplesPerReason = 3;

void print_failures(const CompactReport& r, Verbosity v) {
  if (r.failures.empty()) return;
  std::map<std::string, std::vector<const CompactFailure*>> by_stage;
  for (const auto& f : r.failures)
    by_stage[f.stage == Stage::kNone ? "other" : std::string(stage_name(f.stage))].push_back(&f);
  bool hidden = false;
  for (auto& [stage, list] : by_stage) {
    std::sort(list.begin(), list.end(), [](auto* a, auto* b) { return a->path < b->path; });
    std::fprintf(stderr, "FAILED: %zu file%s at stage %s\n", list.size(), list.size() == 1 ? "" : "s", stage.c_str());
    const size_t shown = v == Verbosity::kVerbose ? list.size() : std::min(kExamplesPerReason, list.size());
    for (size_t i = 0; i < shown; ++i) {
      const CompactFailure& f = *list[i];
      std::fprintf(stderr, "  %s%s%s\n", printable(f.reason).c_str(), f.moved_to.empty() ? "" : "; moved to ",
                   printable(f.moved_to).c_str());
    }
    if (shown < list.size()) std::fprintf(stderr, "  ... and %zu more\n", list.size() - shown);
    hidden |= shown < list.size();
  }
  const size_t in_place = r.failures.size() - r.quarantined;
  std::fprintf(stderr, "%zu file%s failed", r.failures.size(), r.failures.size() == 1 ? "" : "s");
  if (r.quarantined)
    std::fprintf(stderr, ": %zu moved to the quarantine (a rerun does not look at them)", r.quarantined);
  if (r.quarantined == 0) std::fprintf(stderr, " and were left in place");
  else if (in_place) std::fprintf(stderr, ", %zu left in place", in_place);
  std::fprintf(stderr, "%s\n", hidden ? " (-v lists every one)" : "");
}

void print_report(const CompactReport& r, bool dry_run, Verbosity v) {
  if (v != Verbosity::kQuiet) {
    std::printf("%s %zu of %zu dump files (%zu new summaries, %zu verified existing), raw removed: %zu\n",
                dry_run ? "would compact" : "compacted", r.compacted + r.verified + r.dry_run, r.candidates,
                r.compacted, r.verified, r.raw_removed);
    std::printf("bytes before: %s, after: %s", human_bytes(r.bytes_before).c_str(), human_bytes(r.bytes_after).c_str());
    if (r.bytes_after > 0 && r.bytes_before >= r.bytes_after)
      std::printf(" (%.1fx smaller)", double(r.bytes_before) / double(r.bytes_after));
    std::printf("\n");
    if (r.temp_removed) std::printf("removed %zu stale temp files of an interrupted run\n", r.temp_removed);
    if (r.claims_restored)
      std::printf("gave %zu raw files claimed by an interrupted run their names back\n", r.claims_restored);
    print_left_alone(r, v == Verbosity::kVerbose);
    if (r.quarantined_before)
      std::printf("quarantine: %zu file%s set aside by an earlier run, not looked at\n", r.quarantined_before,
                  r.quarantined_before == 1 ? "" : "s");
    for (const auto& n : r.notes) std::printf("note: %s\n", n.c_str());
  }
  print_failures(r, v);
}

int run(const CompactArgs& a) {
  for (const auto& d : a.dirs) require_directory(d);
  install_signal_handlers();
  CompactRunOptions opts;
  opts.jobs = a.jobs ? a.jobs : std::max(1u, std::thread::hardware_concurrency());
  auto format = a.format.empty() ? default_summary_format() : parse_summary_format(a.format);
  if (!format.ok()) throw InputError(format.error().to_string());
  CompactSettings settings = a.settings;
  settings.format = *format;
  opts.file = compact_options(settings);
  opts.file.dry_run = a.dry_run;
  opts.force = a.force;
  opts.quarantine = a.quarantine;
  opts.cancel = &g_cancel;
  CompactReport report;
  std::vector<RootProblem> problems;
  {
    ProgressLine progress(a.verbosity != Verbosity::kQuiet);
    report = run_compact(
        a.dirs, opts, [&progress](const CompactProgress& p) { progress.update(p); }, &problems);
  }
  if (a.json)
    std::printf("%s\n", report_json(report).dump(2, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
  else print_report(report, a.dry_run, a.verbosity);
  for (const auto& p : problems) print_error("compact", p.root + ": " + p.message);
  if (report.cancelled) {
    const int sig = g_signal.load();
    std::fprintf(stderr,
                 "msit-compact compact: interrupted by %s: files in flight finished, temps removed; run "
                 "compact again to continue\n",
                 sig == SIGTERM ? "SIGTERM" : "SIGINT");
    return kExitSignalBase + (sig == SIGTERM ? SIGTERM : SIGINT);
  }
  if (!problems.empty()) return kExitBadInput;
  return report.failures.empty() ? kExitOk : kExitFailures;
}

}  // namespace

CLI::App* register_compact(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<CompactArgs>();
  CLI::App* cmd =
      app.add_subcommand("compact", "Summarise every finished dump file under DIR once, then remove the raw data");
  cmd->add_option("dirs", args->dirs, "Dump trees (msit_ge_dump, msit_fx_dump, data_dump, or their parent)")
      ->required();
  add_jobs(cmd, args->jobs, "Parallel workers");
  cmd->add_option("--summary-format", args->format,
                  "store (one msit-summary.db per dump root; default), json (NAME.summary.json) or msit "
                  "(_min_max.npy/.npz); default from MSIT_COMPACT_SUMMARY_FORMAT if set")
      ->check(CLI::IsMember({"store", "json", "rich", "msit"}));
  add_sketch_bits(cmd, args->settings.sketch_bits);
  auto* keep = cmd->add_flag("--keep-raw", args->settings.keep_raw, "Write summaries but keep the raw files");
  cmd->add_flag("--archive", args->settings.archive,
                "Replace each raw file by a verified lossless archive (NAME.zst) instead of deleting it")
      ->excludes(keep);
  add_int_setting(cmd, kZstdLevel, args->settings.zstd_level, "zstd level of --archive");
  add_int_setting(cmd, kZstdWorkers, args->settings.zstd_workers,
                  "Threads compressing one file's blocks with --archive");
  cmd->add_flag("--dry-run", args->dry_run, "Read and report only; write and delete nothing");
  cmd->add_flag("--json", args->json, "Print the report as JSON");
  cmd->add_flag("--force", args->force,
                "Compact a tree that a running msit-compact (watch) owns; its temps and claims are then left alone");
  cmd->add_option("--quarantine", args->quarantine,
                  "Move files whose content is bad (corrupt, truncated) to this directory, relative to each DIR and "
                  "mirroring their paths; never replaces a file, and later runs do not look inside it")
      ->check(CLI::Validator(
          [](std::string& d) {
            Status st = check_quarantine_dir(d);
            return st.ok() ? std::string() : st.error().message;
          },
          "RELATIVE_DIR"));
  add_verbosity(cmd, args->verbosity, "List every file left alone and every failure, with its reason");
  add_sketch_width(cmd, args->settings.sketch_width, "Sketch buckets");
  cmd->callback([args, &exit_code] { exit_code = run(*args); });
  return cmd;
}

}  // namespace msit::cli
