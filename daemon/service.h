// The running daemon: libuv loop (inotify poll, timers, signals, worker wake-ups), sd_notify,
// status file and log lines around one Watcher.
#pragma once

#include <functional>

#include "common/base/result.h"
#include "daemon/config.h"
#include "daemon/log.h"

namespace msit::daemon {

// Re-reads the configuration (SIGHUP); an error keeps the current settings.
using ReloadFn = std::function<Result<WatchSettings>()>;

// Runs until SIGTERM/SIGINT; returns the process exit code (0 after a clean stop).
int run_watch_service(const WatchSettings& settings, const ReloadFn& reload, Logger& log);

}  // namespace msit::daemon
