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
#include <list>
#include <memory>
#include <optional>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/human.h"
#include "common/base/printable.h"
#include "daemon/config.h"
#include "daemon/service.h"
#include "daemon/setting_table.h"

namespace msit::cli {
namespace {

namespace d = msit::daemon;

// The command line's values: the options come from the settings table (daemon/setting_table.h).
// A flag keeps CLI11's bool semantics (`--keep-raw=false` is false and wins over the file);
// given when its option was.
struct FlagArg {
  const d::WatchSetting* setting;
  CLI::Option* opt;
  bool value;
};

struct WatchArgs {
  std::string config;
  d::SettingOverrides given;
  std::list<FlagArg> flags;  // stable addresses: CLI11 writes to `value`
  Verbosity verbosity = Verbosity::kNormal;
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
  d::SettingOverrides o = a.given;
  for (const FlagArg& f : a.flags)
    if (f.opt->count() > 0) *std::get<std::optional<bool>*>(f.setting->given(o)) = f.value;
  if (a.verbosity == Verbosity::kVerbose) o.verbose = true;
  return o;
}

int run_watch(const WatchArgs& a) {
  d::Logger log(d::Logger::stderr_is_journal());
  log.set_quiet(a.verbosity == Verbosity::kQuiet);
  d::SettingOverrides o = overrides_of(a);
  auto load = [&a, o, &log]() -> Result<d::WatchSettings> {
    Result<d::WatchSettings> s = d::load_settings(a.config, o);
    if (!s.ok()) return s;
    for (auto& dir : s->dirs) dir = normalize_root(dir, log);
    // A golden's ROOT names a watched root the way the roots are named: normalized alike.
    for (auto& g : s->live.goldens)
      if (!g.root.empty()) g.root = normalize_root(g.root, log);
    d::LiveCheck check;
    check.source = a.given.goldens.empty() ? a.config + ": golden =" : std::string("--golden");
    check.skip_other_roots = !a.given.dirs.empty() && a.given.goldens.empty();
    MSIT_TRY(d::check_live_settings(s->live, s->dirs, check));
    return s;
  };
  Result<d::WatchSettings> s = load();
  if (!s.ok()) {
    log.error(s.error().to_string());
    return kExitConfig;
  }
  return d::run_watch_service(*s, load, log);
}

std::string help_of(const d::WatchSetting& s) {
  std::string help(s.help);
  const bool ranged =
      s.kind == d::SettingKind::kCount || s.kind == d::SettingKind::kRanged || s.kind == d::SettingKind::kSketchWidth;
  if (!s.default_note.empty()) help += " " + std::string(s.default_note);
  else if (ranged) help += " (default " + std::to_string(s.def) + ")";
  return help;
}

// A numeric option of type T into its std::optional<T>, with the setting's range (and the
// kind's extra check).
template <class T>
CLI::Option* add_number(CLI::App* cmd, const d::WatchSetting& s, std::optional<T>* out) {
  CLI::Option* opt = cmd->add_option_function<T>(
      std::string(s.flags), [out](const T& v) { *out = v; }, help_of(s));
  if (s.kind == d::SettingKind::kSketchBits) return opt->check(CLI::IsMember({32u, 64u}));
  opt->check(CLI::Range(static_cast<T>(s.min), static_cast<T>(s.max)));
  if (s.kind == d::SettingKind::kSketchWidth) opt->check(power_of_two());
  return opt;
}

CLI::Option* add_text(CLI::App* cmd, const d::WatchSetting& s, std::optional<std::string>* out) {
  return cmd->add_option_function<std::string>(
      std::string(s.flags), [out](const std::string& v) { *out = v; }, help_of(s));
}

// One option of the settings table; null for a setting the command line does not have.
CLI::Option* add_setting_option(CLI::App* cmd, const d::WatchSetting& s, WatchArgs& a) {
  const std::string flags(s.flags);
  switch (s.kind) {
    case d::SettingKind::kConfigFile: return cmd->add_option(flags, a.config, help_of(s));
    case d::SettingKind::kVerbosity: add_verbosity(cmd, a.verbosity, help_of(s)); return nullptr;
    case d::SettingKind::kDirectory: return cmd->add_option(flags, a.given.dirs, help_of(s));
    case d::SettingKind::kGolden:
      return cmd->add_option(flags, a.given.goldens, help_of(s))
          ->allow_extra_args(false)  // one value per --golden: the directories after it stay DIRs
          ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
    case d::SettingKind::kBool: {
      a.flags.push_back(FlagArg{&s, nullptr, false});
      a.flags.back().opt = cmd->add_flag(flags, a.flags.back().value, help_of(s));
      return a.flags.back().opt;
    }
    case d::SettingKind::kFormat: {
      auto* out = std::get<std::optional<SummaryFormat>*>(s.given(a.given));
      return cmd
          ->add_option_function<std::string>(
              flags, [out](const std::string& v) { *out = *parse_summary_format(v); }, help_of(s))
          ->check(CLI::IsMember({"store", "json", "rich", "msit"}));
    }
    default: break;
  }
  const d::OverrideField given = s.given(a.given);
  if (auto* n = std::get_if<std::optional<uint32_t>*>(&given)) return add_number(cmd, s, *n);
  if (auto* i = std::get_if<std::optional<int>*>(&given)) return add_number(cmd, s, *i);
  return add_text(cmd, s, std::get<std::optional<std::string>*>(given));
}

}  // namespace

CLI::App* register_watch(CLI::App& app, int& exit_code) {
  auto a = std::make_shared<WatchArgs>();
  CLI::App* cmd = app.add_subcommand(
      "watch",
      "Compact dump files as soon as they are complete, while the model is still dumping (runs until SIGTERM/Ctrl-C)");
  for (const d::WatchSetting& s : d::kWatchSettings) {
    if (s.flags.empty() || (s.given == nullptr && s.kind != d::SettingKind::kConfigFile)) continue;
    CLI::Option* opt = add_setting_option(cmd, s, *a);
    if (opt != nullptr && !s.type_name.empty()) opt->type_name(std::string(s.type_name));
  }
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

// With --golden: how many first divergences, and the last one, and the coverage gaps
// (docs/live-divergence.md).
void print_divergences(const nlohmann::json& j) {
  if (!j.value("live_divergence", false)) return;
  const uint64_t n = j.value("divergences", uint64_t{0});
  // Coverage gaps (docs/live-divergence.md "Coverage"): parts of the dump that were not compared.
  if (const uint64_t gaps = j.value("not_compared", uint64_t{0}); gaps != 0)
    std::printf("  not compared        %llu (see the log or the events file)\n", static_cast<unsigned long long>(gaps));
  if (n == 0) {
    std::printf("  divergences         none so far\n");
    return;
  }
  std::string last;
  if (j.contains("last_divergence") && j["last_divergence"].is_object()) {
    const auto& d = j["last_divergence"];
    auto text = [&d](const char* k) { return printable(d.value(k, std::string())); };
    std::string rank = d.contains("rank") && d["rank"].is_number_integer() ? std::to_string(d["rank"].get<int64_t>())
                                                                           : std::string("-");
    last = "; last: rank " + rank + ", token " + text("token") + ", " + text("op") + " (" + text("op_type") + ")";
    auto num = [](double v) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.6g", v);
      return std::string(buf);
    };
    if (d.contains("cosine") && d["cosine"].is_number()) last += ", cosine " + num(d["cosine"].get<double>());
    last += ", error jump " + num(d.value("error_jump", 0.0));
    last += ", at " + human_time_ns(d.value("time", int64_t{0}) * 1'000'000'000);
  }
  std::printf("  divergences         %llu%s\n", static_cast<unsigned long long>(n), last.c_str());
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
  // Stores refused for another user's side file: every raw file they would take is kept.
  if (j.contains("refused_store_files") && j["refused_store_files"].is_array()) {
    for (const auto& r : j["refused_store_files"]) {
      if (!r.is_object()) continue;
      std::printf(
          "  STORE REFUSED       %s belongs to uid %llu, not the store's (uid %llu): raw files kept; "
          "remove it\n",
          printable(r.value("file", std::string())).c_str(),
          static_cast<unsigned long long>(r.value("owner_uid", uint64_t{0})),
          static_cast<unsigned long long>(r.value("store_owner_uid", uint64_t{0})));
    }
  }
  print_filesystems(j);
  print_divergences(j);
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
