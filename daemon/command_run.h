// One run of a user command (low_space_hook, on_divergence): what daemon/command_runner.h starts.
// Apart from the runner so that what asks for a run needs no libuv.
#pragma once

#include <string>
#include <vector>

namespace msit::daemon {

struct CommandRun {
  std::string slot;   // one run at a time per slot: a still-running one is not doubled
  std::string what;   // for log lines: "low_space_hook", "on_divergence"
  std::string about;  // " for /data/d": "WHAT started ABOUT (pid N)", "WHAT ABOUT exited with status N"
  std::vector<std::string> argv;
  std::vector<std::string> env;  // NAME=VALUE added to (or replacing in) the daemon's environment
  bool log_success = false;      // also log exit status 0
};

}  // namespace msit::daemon
