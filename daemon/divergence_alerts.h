// Where a live first divergence goes (docs/live-divergence.md): one log line, the status
// (STATUS= and the status file), an append-only JSON-lines events file and an optional
// on_divergence command. Reports are deduplicated by id, also across restarts (the events file
// and the stores are read back at start).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/base/result.h"
#include "daemon/live_settings.h"

namespace msit::daemon {

class Logger;

struct DivergenceEvent {
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
};

class DivergenceAlerts {
 public:
  virtual ~DivergenceAlerts() = default;
  // Logs, appends to the events file, runs on_divergence (rate-limited) and updates the status.
  // Returns false (and does nothing) when an event with this id was already reported.
  virtual bool report(const DivergenceEvent& e) = 0;
  virtual bool already_reported(const std::string& id) const = 0;
  virtual uint64_t count() const = 0;                     // events reported since start or found at start
  virtual std::optional<DivergenceEvent> last() const = 0;  // for STATUS= and the status file
};

// The production sink. Reads ids already in the events file (restart: never duplicated). Errors
// name the events file and what is wrong (not writable, not a regular file, ...).
Result<std::unique_ptr<DivergenceAlerts>> open_divergence_alerts(const LiveSettings& s, Logger& log);

}  // namespace msit::daemon
