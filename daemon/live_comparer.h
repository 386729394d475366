// LiveComparer: the comparer thread of a running watch, its pass schedule and the raw files it
// holds back (docs/live-divergence.md "A pass", "Keeping the evidence").
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/base/stage_thread.h"
#include "daemon/divergence_alerts.h"
#include "daemon/live_root_compare.h"
#include "daemon/live_settings.h"
#include "daemon/token_finality.h"
#include "daemon/token_verdict.h"

namespace msit::daemon {

class Logger;

// The comparer thread of a running watch: woken when files are summarised, polls while tokens
// are not final, reports through the alert sink.
class LiveComparer {
 public:
  LiveComparer(const LiveSettings& s, DivergenceAlerts& alerts, Logger& log, Finality f = {});
  ~LiveComparer();
  void start();
  void stop();
  // A file under a watched root was summarised (any thread).
  void note_summarised(const std::string& path);
  // The watcher's hold policy (CandidatePolicy::hold; loop thread): with
  // keep_raw_near_divergence > 0, a complete file under a watched root with a golden stays raw
  // until its token's verdict releases it; the files of a diverging op and of the N ops before
  // it stay raw for good. Bounded by held_raw_cap_bytes: beyond it files are not held (logged).
  bool hold(const std::string& path, uint64_t bytes);
  // Files released since the last call (loop thread, after the wake callback).
  std::vector<std::string> take_releases();
  // Called (from the comparer thread) when take_releases() has something.
  void set_wake(std::function<void()> wake) { wake_ = std::move(wake); }
  bool holds_files() const { return keep_n_ > 0; }

 private:
  // The comparer thread and its schedule (daemon/live_comparer.cpp).
  void run();
  // When root i's next pass may start: the comparer's rest after its last pass, and at least a
  // minimum gap after its start.
  int64_t gate(size_t i) const;
  // When a pass that can answer a token may run before its gate (none: it waits for its gate).
  // Under mu_.
  std::optional<int64_t> early_at(size_t i) const;
  // Root i has work at `now` and may start it (at its gate, or early). Under mu_.
  bool pass_due(size_t i, int64_t now) const;
  // Runs root i's pass (unlocking mu_ meanwhile): logs its notes, reports its events, settles
  // the held files, and sets the root's next gate.
  void run_pass(size_t i, int64_t now, std::unique_lock<std::mutex>& lock);
  // When the comparer must look again at the earliest, on the steady clock. Under mu_.
  int64_t next_wake_ns(int64_t now) const;

  // The held raw files (daemon/live_comparer_holds.cpp).
  // Applies a pass's verdicts and releases held files the index does not place in a token.
  void settle_holds(size_t root, const std::vector<TokenVerdict>& verdicts, const std::set<std::string>& indexed,
                    int64_t now_ns);
  // Keeps the files of a verdict near its divergence raw for good, releases the token's others.
  // Under mu_.
  void apply_verdict(const TokenVerdict& v);
  void release(const std::string& path);  // a held file goes to compaction (under mu_)

  size_t root_of(const std::string& path) const;  // index into roots_, or roots_.size()
  // Notes a summary (or a held file) under root `root` (under mu_): true when the comparer must
  // be woken, i.e. the root was clean. Later ones only move last_summary_: the comparer, which
  // already waits for the root's gate or its burst's end, reads it when it wakes (one wake per
  // pass, not one per file at 5,000 files/s).
  bool mark_dirty(size_t root);

  std::vector<std::unique_ptr<LiveRootCompare>> roots_;
  std::vector<char> dirty_;            // per root, under mu_
  uint64_t wakes_ = 0;                 // summaries (and held files) noted so far, under mu_
  std::vector<int64_t> last_summary_;  // per root, the last one's time (steady clock), under mu_
  // Per root, when its passes ran (the comparer's thread only).
  struct Schedule {
    int64_t last_pass = 0, quiet_until = 0;
    int64_t last_start = std::numeric_limits<int64_t>::min() / 2;
    int early = 0;  // passes run before their gate in a row
  };
  std::vector<Schedule> sched_;
  // Held files (under mu_): path -> bytes and when held; kept for good; released, not yet claimed.
  struct Held {
    uint64_t bytes = 0;
    int64_t since_ns = 0;
  };
  std::map<std::string, Held> held_;
  std::set<std::string> kept_, released_;
  std::vector<std::string> releases_;
  uint64_t held_bytes_ = 0;
  bool cap_logged_ = false;
  uint32_t keep_n_ = 0;
  uint64_t cap_bytes_ = 0;
  std::function<void()> wake_;
  DivergenceAlerts& alerts_;
  Logger& log_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::unique_ptr<StageThread> thread_;  // runs run() from start() to stop()
};

}  // namespace msit::daemon
