// The daemon's user commands (low_space_hook, on_divergence): started from the libuv loop
// without a shell, stdin /dev/null, stdout and stderr into the daemon's log, one run at a time
// per slot, exit status logged. One home for how the daemon runs a program.
#pragma once

#include <uv.h>

#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "daemon/command_run.h"
#include "daemon/log.h"

namespace msit::daemon {

class CommandRunner {
 public:
  CommandRunner(uv_loop_t* loop, Logger& log) : loop_(loop), log_(log) {}
  CommandRunner(const CommandRunner&) = delete;
  CommandRunner& operator=(const CommandRunner&) = delete;

  // On the loop thread: starts now. False (logged) when the slot's previous run is still going
  // or the program cannot be started.
  bool start(const CommandRun& run);
  // From any thread: started by the loop soon (after init_async()).
  void post(CommandRun run);
  // Wires post() to the loop; the handle is closed by close().
  void init_async();
  // SIGTERM to every run still going (its exit is still logged); closes the async handle.
  void close(int signum);

 private:
  static void on_exit(uv_process_t* p, int64_t exit_status, int term_signal);

  uv_loop_t* loop_;
  Logger& log_;
  std::map<std::string, uv_process_t*> running_;  // by slot; freed by their close callback
  std::map<uv_process_t*, CommandRun> runs_;
  uv_async_t async_{};
  bool async_ready_ = false;
  std::mutex mu_;  // guards posted_
  std::vector<CommandRun> posted_;
};

}  // namespace msit::daemon
