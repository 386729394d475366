// `msit-compact restore PATH...`: archives (NAME.zst) back to their byte-identical raw files.
// SIGINT/SIGTERM stop the run between archives: the one in flight is finished, no temp is
// left, one line is printed and the exit status is 128 + the signal (130 / 143).
#include <signal.h>

#include <atomic>
#include <cstdio>
#include <cstring>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/human.h"
#include "common/archive/restore.h"
#include "common/base/printable.h"

namespace msit::cli {
namespace {

struct RestoreArgs {
  std::vector<std::string> paths;
  bool keep_archive = false;
  bool json = false;
  bool force = false;
  Verbosity verbosity = Verbosity::kNormal;
};

std::atomic<int> g_signal{0};
static_assert(std::atomic<int>::is_always_lock_free, "the handler may only touch lock-free atomics");

extern "C" void on_stop_signal(int sig) { g_signal.store(sig, std::memory_order_relaxed); }

void install_stop_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;  // the file in flight finishes: its syscalls must not fail with EINTR
  ::sigaction(SIGINT, &sa, nullptr);
  ::sigaction(SIGTERM, &sa, nullptr);
}

int run(const RestoreArgs& a) {
  for (const auto& p : a.paths) require_exists(p, "an archive or a directory");
  install_stop_handlers();
  archive::RestoreOptions opts;
  opts.keep_archive = a.keep_archive;
  opts.force = a.force;
  opts.cancelled = [] { return g_signal.load(std::memory_order_relaxed) != 0; };
  archive::RestoreRun r = archive::restore_paths(a.paths, opts);
  const int sig = g_signal.load();
  // A signal during the last archive still means "interrupted": the caller asked to stop.
  const bool interrupted = r.cancelled || sig != 0;
  nlohmann::json restored = nlohmann::json::array();
  uint64_t bytes = 0;
  for (const auto& o : r.restored) {
    bytes += o.raw_bytes;
    restored.push_back({{"archive", o.archive_path},
                        {"raw", o.raw_path},
                        {"bytes", o.raw_bytes},
                        {"already_present", o.already_present},
                        {"archive_removed", o.archive_removed}});
  }
  if (a.json) {
    nlohmann::json j = {{"restored", restored}, {"failures", nlohmann::json::array()}};
    for (const auto& e : r.errors) j["failures"].push_back({{"path", e.path}, {"reason", e.to_string()}});
    if (interrupted) j["interrupted_by"] = sig == SIGTERM ? "SIGTERM" : "SIGINT";
    std::printf("%s\n", j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
  } else {
    if (a.verbosity == Verbosity::kVerbose) {
      for (const auto& o : r.restored) {
        std::printf("%s -> %s (%s)%s\n", printable(o.archive_path).c_str(), printable(o.raw_path).c_str(),
                    human_bytes(o.raw_bytes).c_str(), o.already_present ? ", already present" : "");
      }
    }
    if (a.verbosity != Verbosity::kQuiet) {
      std::printf("restored %zu of %zu archives (%s)%s\n", r.restored.size(), r.archives, human_bytes(bytes).c_str(),
                  a.keep_archive ? ", archives kept" : "");
    }
    for (const auto& e : r.errors) std::fprintf(stderr, "FAILED: %s\n", printable(e.to_string()).c_str());
  }
  for (const auto& w : r.warnings) print_warning("restore", w);
  if (r.archives == 0 && r.errors.empty()) print_warning("restore", "no archives found");
  if (interrupted) {
    std::fprintf(stderr, "restore interrupted by %s: %zu of %zu archives restored, the rest left as they were\n",
                 sig == SIGTERM ? "SIGTERM" : "SIGINT", r.restored.size(), r.archives);
    return kExitSignalBase + sig;
  }
  return r.errors.empty() ? kExitOk : kExitFailures;
}

}  // namespace

CLI::App* register_restore(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<RestoreArgs>();
  CLI::App* cmd = app.add_subcommand(
      "restore", "Turn archives made by --archive (NAME.zst) back into the byte-identical raw files");
  cmd->add_option("paths", args->paths, "Archives, or directories searched for them (links never followed)")
      ->required();
  cmd->add_flag("--keep-archive", args->keep_archive, "Keep the archives after restoring");
  cmd->add_flag("--json", args->json, "Print the result as JSON");
  cmd->add_flag("--force", args->force, "Restore in a tree that a running msit-compact (watch) owns");
  add_verbosity(cmd, args->verbosity, "One line per archive restored");
  cmd->callback([args, &exit_code] { exit_code = run(*args); });
  return cmd;
}

}  // namespace msit::cli
