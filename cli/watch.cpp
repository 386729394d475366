// `watch` (the daemon in the foreground) and `status` (a running daemon's counters).
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/human.h"
#include "daemon/config.h"
#include "daemon/service.h"

namespace msit::cli {
namespace {

namespace d = msit::daemon;

struct WatchArgs {
  std::vector<std::string> dirs;
  std::string config;
  std::string summary_format;
  uint32_t settle_ms = 0, jobs = 0, rescan_s = 0;
  bool keep_raw = false, archive = false;
  Verbosity verbosity = Verbosity::kNormal;
  int zstd_level = static_cast<int>(kZstdLevel.def);
  int zstd_workers = static_cast<int>(kZstdWorkers.def);
  uint32_t sketch_width = kDefaultSketchWidth;
  unsigned sketch_bits = 32;
  std::string json_status;
  std::string min_free;
  std::string golden, events;  // minimal live-divergence options (t30-live; t30-alerts has the full set)
  uint32_t keep_near = 0;
  CLI::Option *settle_opt = nullptr, *jobs_opt = nullptr, *rescan_opt = nullptr, *format_opt = nullptr,
              *keep_opt = nullptr, *json_opt = nullptr, *archive_opt = nullptr, *level_opt = nullptr,
              *workers_opt = nullptr, *width_opt = nullptr, *bits_opt = nullptr, *min_free_opt = nullptr;
};

// Absolute, without trailing slashes; a root given as a symlink is resolved once, explicitly
// (inside the tree nothing is ever followed).
std::string normalize_root(std::string dir, d::Logger& log) {
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  if (!dir.empty() && dir.front() != '/') {
    char cwd[PATH_MAX];
    if (::getcwd(cwd, sizeof cwd) != nullptr) dir = std::string(cwd) + "/" + dir;
  }
  struct stat st {};
  if (::lstat(dir.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
    char real[PATH_MAX];
    if (::realpath(dir.c_str(), real) != nullptr) {
      log.info(dir + ": root is a symlink; watching its target " + real);
      return real;
    }
  }
  return dir;
}

d::SettingOverrides overrides_of(const WatchArgs& a) {
  d::SettingOverrides o;
  o.dirs = a.dirs;
  if (a.settle_opt->count()) o.settle_ms = a.settle_ms;
  if (a.jobs_opt->count()) o.jobs = a.jobs;
  if (a.rescan_opt->count()) o.rescan_interval_s = a.rescan_s;
  if (a.format_opt->count()) o.format = *parse_summary_format(a.summary_format);  // checked by IsMember
  if (a.keep_opt->count()) o.keep_raw = a.keep_raw;
  if (a.archive_opt->count()) o.archive = a.archive;
  if (a.level_opt->count()) o.zstd_level = a.zstd_level;
  if (a.workers_opt->count()) o.zstd_workers = a.zstd_workers;
  if (a.width_opt->count()) o.sketch_width = a.sketch_width;
  if (a.bits_opt->count()) o.sketch_bits = a.sketch_bits;
  if (a.verbosity == Verbosity::kVerbose) o.verbose = true;
  if (a.json_opt->count()) o.json_status = a.json_status;
  if (a.min_free_opt->count()) o.min_free = a.min_free;
  return o;
}

int run_watch(const WatchArgs& a) {
  d::Logger log(d::Logger::stderr_is_journal());
  log.set_quiet(a.verbosity == Verbosity::kQuiet);
  d::SettingOverrides o = overrides_of(a);
  auto load = [&a, o, &log]() -> Result<d::WatchSettings> {
    Result<d::WatchSettings> s = d::load_settings(a.config, o);
    if (s.ok())
      for (auto& dir : s->dirs) dir = normalize_root(dir, log);
    if (s.ok() && !a.golden.empty() && !s->dirs.empty()) {
      s->live.goldens = {d::LiveGolden{s->dirs.front(), a.golden}};
      s->live.events_file = a.events;
      s->live.keep_raw_near_divergence = a.keep_near;
    }
    return s;
  };
  Result<d::WatchSettings> s = load();
  if (!s.ok()) {
    log.error(s.error().to_string());
    return kExitConfig;
  }
  return d::run_watch_service(*s, load, log);
}

}  // namespace

CLI::App* register_watch(CLI::App& app, int& exit_code) {
  auto a = std::make_shared<WatchArgs>();
  CLI::App* cmd = app.add_subcommand(
      "watch",
      "Compact dump files as soon as they are complete, while the model is still dumping (runs until SIGTERM/Ctrl-C)");
  cmd->add_option("dirs", a->dirs, "Dump roots or their parents; they may not exist yet");
  a->settle_opt =
      add_int_setting(cmd, kSettleMs, a->settle_ms, "Quiet time in ms after a file's last event before it is claimed");
  a->jobs_opt = add_jobs(cmd, a->jobs, "Worker threads");
  a->format_opt = cmd->add_option("--summary-format", a->summary_format,
                                  "store (one msit-summary.db per dump root; default), json (NAME.summary.json) or "
                                  "msit (_min_max.npy/.npz); default from MSIT_COMPACT_SUMMARY_FORMAT if set")
                      ->check(CLI::IsMember({"store", "json", "rich", "msit"}));
  a->keep_opt = cmd->add_flag("--keep-raw", a->keep_raw, "Write summaries but keep the raw files");
  a->archive_opt =
      cmd->add_flag("--archive", a->archive,
                    "Replace each raw file by a verified lossless archive (NAME.zst) instead of deleting it");
  a->level_opt = add_int_setting(cmd, kZstdLevel, a->zstd_level, "zstd level of --archive");
  a->workers_opt =
      add_int_setting(cmd, kZstdWorkers, a->zstd_workers, "Threads compressing one file's blocks with --archive");
  a->width_opt = add_sketch_width(cmd, a->sketch_width, "Sketch buckets");
  a->bits_opt = add_sketch_bits(cmd, a->sketch_bits);
  a->rescan_opt =
      add_int_setting(cmd, kRescanIntervalS, a->rescan_s, "Full rescan period in s, the safety net for lost events");
  cmd->add_option("--config", a->config,
                  "Config file of `key = value` lines (command-line options win); re-read on SIGHUP");
  a->json_opt =
      cmd->add_option("--json-status", a->json_status, "Write counters to this JSON file every second (atomically)");
  add_verbosity(cmd, a->verbosity, "Debug log lines too");
  a->min_free_opt = cmd->add_option("--min-free", a->min_free,
                                    "Warn (log, STATUS=, low_space_hook) when a watched filesystem has less free space "
                                    "than this: bytes with K/M/G/T suffix or a percent (default 5%; 0 turns it off)");
  cmd->add_option("--golden", a->golden, "Compare the dump with this golden dump while it is written");
  cmd->add_option("--events", a->events, "Append live divergence events to this JSON-lines file");
  cmd->add_option("--keep-raw-near-divergence", a->keep_near,
                  "Keep raw the files of the first diverging op and of the N ops before it");
  cmd->callback([a, &exit_code] { exit_code = run_watch(*a); });
  return cmd;
}

namespace {

std::vector<std::string> default_status_files() {
  std::vector<std::string> out;
  const std::string base = "/run/msit-compact";
  if (DIR* dir = ::opendir(base.c_str())) {
    while (struct dirent* de = ::readdir(dir)) {
      std::string n = de->d_name;
      if (n == "." || n == "..") continue;
      std::string f = base + "/" + n + "/status.json";
      if (::access(f.c_str(), R_OK) == 0) out.push_back(f);
    }
    ::closedir(dir);
  }
  return out;
}

// One line per watched filesystem: free space against the watch's min_free watermark.
void print_filesystems(const nlohmann::json& j) {
  if (!j.contains("filesystems") || !j["filesystems"].is_array()) return;
  for (const auto& fs : j["filesystems"]) {
    if (!fs.is_object()) continue;
    std::string roots;
    if (fs.contains("roots") && fs["roots"].is_array())
      for (const auto& r : fs["roots"])
        if (r.is_string()) roots += (roots.empty() ? "" : ", ") + r.get<std::string>();
    uint64_t min_free = fs.value("min_free_bytes", uint64_t{0});
    std::string state = min_free == 0            ? std::string("no watermark")
                        : fs.value("low", false) ? "LOW (under min_free " + human_bytes(min_free) + ")"
                                                 : "ok (min_free " + human_bytes(min_free) + ")";
    std::printf("  free space          %s: %s of %s, %s\n", roots.c_str(),
                human_bytes(fs.value("free_bytes", uint64_t{0})).c_str(),
                human_bytes(fs.value("total_bytes", uint64_t{0})).c_str(), state.c_str());
  }
}

struct StatusArgs {
  std::string file;
  bool json = false;
  Verbosity verbosity = Verbosity::kNormal;
};

void print_status_text(const std::string& file, const nlohmann::json& j, const std::string& state, Verbosity v) {
  auto u = [&j](const char* k) { return static_cast<unsigned long long>(j.value(k, uint64_t{0})); };
  auto bytes = [&j](const char* k) { return human_bytes(j.value(k, uint64_t{0})); };
  std::printf("%s: pid %d, %s\n", file.c_str(), j.value("pid", 0), state.c_str());
  std::printf("  files compacted     %llu (+%llu verified existing summaries)\n", u("files_compacted"),
              u("verified_existing"));
  std::printf("  bytes freed         %s (raw %s, summaries %s)\n", bytes("bytes_freed").c_str(),
              bytes("raw_bytes").c_str(), bytes("summary_bytes").c_str());
  std::printf("  pending             %llu (in flight %llu)\n", u("pending"), u("in_flight"));
  std::printf("  errors              %llu (files %llu, never completed %llu)\n", u("errors"), u("files_failed"),
              u("incomplete_given_up"));
  std::printf("  watches             %llu (unwatched dirs %llu, missing roots %llu)\n", u("watches"),
              u("unwatched_dirs"), u("missing_roots"));
  print_filesystems(j);
  if (j.contains("latency_ms") && j["latency_ms"].is_object()) {
    const auto& l = j["latency_ms"];
    std::printf("  close->deleted      p50 %s, p99 %s, max %s over %llu files\n",
                human_duration_ms(l.value("p50", 0.0)).c_str(), human_duration_ms(l.value("p99", 0.0)).c_str(),
                human_duration_ms(l.value("max", 0.0)).c_str(),
                static_cast<unsigned long long>(l.value("count", uint64_t{0})));
  }
  if (v != Verbosity::kVerbose) return;
  std::printf("  updated             %s\n",
              human_time_ns(j.value("updated_unix_s", int64_t{0}) * 1'000'000'000).c_str());
  std::printf("  rescans             %llu (inotify overflows %llu)\n", u("rescans"), u("overflows"));
  std::printf("  stale temps removed %llu\n", u("temp_cleaned"));
}

// kExitOk when the daemon is running, kExitFailures when it is not, kExitBadInput when the
// file cannot be read.
int print_status(const std::string& file, const StatusArgs& a) {
  std::ifstream in(file);
  if (!in) {
    print_error("status", file + ": open: cannot read status file (is `watch --json-status` running?)");
    return kExitBadInput;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  nlohmann::json j = nlohmann::json::parse(ss.str(), nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    print_error("status", file + ": parse: not a status JSON file");
    return kExitBadInput;
  }
  int pid = j.value("pid", 0);
  bool alive = pid > 0 && (::kill(pid, 0) == 0 || errno == EPERM);
  std::string state = j.value("state", std::string("unknown"));
  if (state == "running" && !alive) state = "not running (stale status file)";
  const bool running = state == "running";
  if (a.json) {
    j["alive"] = alive;
    if (a.verbosity != Verbosity::kQuiet) std::printf("%s\n", j.dump(2).c_str());
  } else if (a.verbosity != Verbosity::kQuiet) {
    print_status_text(file, j, state, a.verbosity);
  }
  return running ? kExitOk : kExitFailures;
}

}  // namespace

CLI::App* register_status(CLI::App& app, int& exit_code) {
  auto a = std::make_shared<StatusArgs>();
  CLI::App* cmd = app.add_subcommand("status", "Print a running watch daemon's counters (from its --json-status file)");
  cmd->add_option("--json-status", a->file, "Status file (default: every /run/msit-compact/*/status.json)");
  cmd->add_flag("--json", a->json, "Print the status as JSON");
  add_verbosity(cmd, a->verbosity, "Also the update time, rescans and overflows");
  cmd->callback([a, &exit_code] {
    std::vector<std::string> files = a->file.empty() ? default_status_files() : std::vector<std::string>{a->file};
    if (files.empty()) {
      print_error("status",
                  "no status file found under /run/msit-compact/ (no watch running?); pass --json-status FILE");
      exit_code = kExitFailures;
      return;
    }
    exit_code = kExitOk;
    for (const auto& f : files) exit_code = std::max(exit_code, print_status(f, *a));
  });
  return cmd;
}

}  // namespace msit::cli
