// Where a live first divergence goes (docs/live-divergence.md): one log line, the status
// (STATUS= and the status file), an append-only JSON-lines events file and an optional
// on_divergence command. Reports are deduplicated by id, also across restarts (the events file
// and the stores are read back at start).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "common/base/result.h"
#include "daemon/command_run.h"
#include "daemon/live_settings.h"

namespace msit::daemon {

class Logger;
class Clock;

// What an event says: a first divergence, or part of the watched dump that has no golden
// counterpart and is not compared (docs/live-divergence.md "Coverage": it could hold the
// divergence, as compare's coverage gaps make a compare inconclusive).
enum class EventKind : uint8_t { kDivergence, kNotCompared };

struct DivergenceEvent {
  EventKind kind = EventKind::kDivergence;
  // Stable over restarts: derived from (watched root, rank, token, op) by the live comparer.
  std::string id;
  int64_t time = 0;   // Unix seconds, set by report() when 0
  int64_t rank = -1;  // -1: the dump has no rank layout
  std::string token;  // token id as the dump names it ("0", "warmup", ...)
  std::string op, op_type;
  // Metrics of the diverging output (unset ones are omitted from the JSON line).
  std::optional<double> cosine, red, max_abs, max_rel, mean_abs, kl;
  double error_level = 0, error_jump = 0;
  std::string my_path, golden_path;  // the diverging output's files on both sides
  std::string root, golden_root;     // the watched root and its golden
  std::string not_compared;          // kNotCompared: what was not compared, and why
  // watch --recompute: opcheck's verdict on the op and the ops before it, one line per op and
  // side (common/compare/recompute.h); empty when not asked for. Not part of the id.
  std::vector<std::string> recompute;
};

class DivergenceAlerts {
 public:
  virtual ~DivergenceAlerts() = default;
  // Logs, appends to the events file, runs on_divergence (rate-limited; not for a kNotCompared
  // event: a missing golden rank is no reason to stop the run) and updates the status.
  // Returns false (and does nothing) when an event with this id was already reported.
  virtual bool report(const DivergenceEvent& e) = 0;
  virtual bool already_reported(const std::string& id) const = 0;
  virtual uint64_t count() const = 0;  // divergences reported since start or found at start
  // Not-compared events (coverage gaps) reported since start or found at start.
  virtual uint64_t not_compared() const { return 0; }
  virtual std::optional<DivergenceEvent> last() const = 0;  // for STATUS= and the status file
  // SIGHUP: the on_divergence command and its interval (the rest is read at start).
  virtual void set_command(const std::string& on_divergence, uint32_t interval_s) {
    (void)on_divergence;
    (void)interval_s;
  }
};

// What the production sink needs from the daemon: a monotonic clock (the command's rate limit)
// and a way to start the command without blocking (the service's CommandRunner::post).
struct AlertHooks {
  const Clock* clock = nullptr;         // null: steady_clock()
  std::function<void(CommandRun)> run;  // null: the command is never run (said once at open)
};

// The production sink with the daemon's hooks (the two-argument form has none: tools, tests).
Result<std::unique_ptr<DivergenceAlerts>> open_divergence_alerts(const LiveSettings& s, Logger& log, AlertHooks hooks);

// One home for how an event is written: the events file's object (and the status file's
// "last_divergence"), read back at start; the log line; the command's environment.
nlohmann::json divergence_json(const DivergenceEvent& e);
std::optional<DivergenceEvent> divergence_from_json(const nlohmann::json& j);
std::string divergence_log_line(const DivergenceEvent& e);
std::vector<std::string> divergence_environment(const DivergenceEvent& e);  // MSIT_DIVERGENCE_*=...

// The production sink. Reads ids already in the events file (restart: never duplicated). Errors
// name the events file and what is wrong (not writable, not a regular file, ...).
Result<std::unique_ptr<DivergenceAlerts>> open_divergence_alerts(const LiveSettings& s, Logger& log);

}  // namespace msit::daemon
