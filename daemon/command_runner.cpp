// The daemon's user commands: uv_spawn without a shell, exit status logged.
#include "daemon/command_runner.h"

#include <unistd.h>

#include <set>

#include "common/base/printable.h"

extern char** environ;

namespace msit::daemon {
namespace {

// The daemon's environment with `extra` added; a name in `extra` replaces the inherited one.
std::vector<std::string> environment_with(const std::vector<std::string>& extra) {
  std::set<std::string> names;
  for (const auto& e : extra) names.insert(e.substr(0, e.find('=')));
  std::vector<std::string> out;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    std::string s(*e);
    if (names.count(s.substr(0, s.find('='))) == 0) out.push_back(std::move(s));
  }
  out.insert(out.end(), extra.begin(), extra.end());
  return out;
}

void free_process(uv_handle_t* h) { delete reinterpret_cast<uv_process_t*>(h); }

}  // namespace

bool CommandRunner::start(const CommandRun& run) {
  if (run.argv.empty()) return false;
  if (running_.count(run.slot) != 0) {
    log_.warning(run.what + run.about + " is still running; not started again");
    return false;
  }
  std::vector<char*> args;
  for (const auto& a : run.argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::vector<std::string> env_text = environment_with(run.env);
  std::vector<char*> env;
  for (auto& e : env_text) env.push_back(e.data());
  env.push_back(nullptr);
  uv_stdio_container_t stdio[3];
  stdio[0].flags = UV_IGNORE;  // /dev/null
  for (int fd : {1, 2}) {
    stdio[fd].flags = UV_INHERIT_FD;
    stdio[fd].data.fd = 2;  // the daemon's log (the journal under systemd)
  }
  uv_process_options_t o{};
  o.file = args[0];
  o.args = args.data();
  o.env = env.data();
  o.stdio_count = 3;
  o.stdio = stdio;
  o.exit_cb = &CommandRunner::on_exit;
  auto* proc = new uv_process_t{};
  proc->data = this;
  int rc = uv_spawn(loop_, proc, &o);
  if (rc != 0) {
    log_.warning(run.what + run.about + ": cannot start " + printable(run.argv[0]) + ": " + uv_strerror(rc));
    uv_close(reinterpret_cast<uv_handle_t*>(proc), free_process);
    return false;
  }
  running_[run.slot] = proc;
  runs_[proc] = run;
  log_.info(run.what + " started" + run.about + " (pid " + std::to_string(proc->pid) + ")");
  return true;
}

void CommandRunner::on_exit(uv_process_t* p, int64_t exit_status, int term_signal) {
  auto* self = static_cast<CommandRunner*>(p->data);
  auto it = self->runs_.find(p);
  if (it != self->runs_.end()) {
    const CommandRun& run = it->second;
    std::string line = run.what + run.about + " exited with status " + std::to_string(exit_status) +
                       (term_signal != 0 ? ", signal " + std::to_string(term_signal) : "");
    if (exit_status != 0 || term_signal != 0) self->log_.warning(line);
    else if (run.log_success) self->log_.info(line);
    self->running_.erase(run.slot);
    self->runs_.erase(it);
  }
  uv_close(reinterpret_cast<uv_handle_t*>(p), free_process);
}

void CommandRunner::init_async() {
  uv_async_init(loop_, &async_, [](uv_async_t* h) {
    auto* self = static_cast<CommandRunner*>(h->data);
    std::vector<CommandRun> runs;
    {
      std::lock_guard<std::mutex> lock(self->mu_);
      runs.swap(self->posted_);
    }
    for (const auto& r : runs) self->start(r);
  });
  async_.data = this;
  async_ready_ = true;
}

void CommandRunner::post(CommandRun run) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!async_ready_) {
    log_.warning(run.what + run.about + ": not started (the daemon is not running its loop)");
    return;
  }
  posted_.push_back(std::move(run));
  uv_async_send(&async_);
}

void CommandRunner::close(int signum) {
  for (auto& [slot, proc] : running_) uv_process_kill(proc, signum);
  std::lock_guard<std::mutex> lock(mu_);
  if (async_ready_ && !uv_is_closing(reinterpret_cast<uv_handle_t*>(&async_)))
    uv_close(reinterpret_cast<uv_handle_t*>(&async_), nullptr);
  async_ready_ = false;
}

}  // namespace msit::daemon
