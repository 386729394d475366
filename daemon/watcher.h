// The watcher's decisions, free of libuv: which files are candidates, when a candidate has
// settled (quiet, no writer, complete), what is handed to the workers, and what a result means.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "daemon/bad_files.h"
#include "daemon/counters.h"
#include "daemon/event_source.h"
#include "daemon/jobs.h"
#include "daemon/log.h"
#include "daemon/watch_tree.h"

namespace msit::daemon {

struct WatcherOptions {
  int64_t settle_ns = 200'000'000;  // quiet time after the last event
  // The first look after a close/rename event (docs/safety.md K1): a file a read lease proves
  // nobody holds open for writing is claimed then; without that proof the look starts the
  // settle_ns stability window, and a busy file is looked at again settle_ns later.
  // Negative: settle_ns (the first look is the full quiet time).
  int64_t first_look_ns = -1;
  int64_t rescan_interval_ns = 30'000'000'000;
  int64_t backoff_cap_ns = 30'000'000'000;  // longest wait between two attempts
  uint32_t incomplete_attempts = 8;         // "never completes" after this many re-arms
  size_t max_in_flight = 64;                // jobs handed to workers and not yet returned
  int64_t root_poll_ns = 250'000'000;       // missing roots
  int64_t unwatched_rescan_ns = 2'000'000'000;
  size_t max_watches_per_root = 65'536;  // beyond: periodic rescans (WatchTree)
  WatchShare watch_share;                // all roots together (WatchTree)
  BadFileLimits bad_files;
};

// What the owner of the roots (the service: tree locks, stores) does when a root is pinned or let go.
struct RootHooks {
  std::function<bool(const std::shared_ptr<const RootHandle>& root)> attached;  // false: refused (another owner)
  std::function<void(const RootHandle& root, const std::string& why)> dropped;
};

class Watcher {
 public:
  Watcher(WatcherOptions opts, std::vector<std::string> roots, EventSource& source, Clock& clock, FileProbe& probe,
          JobSink& sink, Logger& log, CandidatePolicy policy, RootHooks root_hooks = {});

  // Pins the roots that exist (before start()); false when the hooks refused one.
  bool attach_roots() { return tree_.attach_roots(); }
  // The start-up scan (also recovers leftovers of an earlier run: common/safety/leftovers.h),
  // then the first dispatch. A `stop` that turns true (SIGTERM during the scan) ends the scan
  // between two files and dispatches nothing: false, and the watcher claims nothing from then on.
  bool start(const ScanStopFn& stop = {});
  // Lets a root go with all its pending work (the service lost the root's lock).
  void drop_root(const std::string& path, const std::string& why) { tree_.drop_root(path, why); }
  // Drains the event source.
  void on_events();
  // Periodic: rescans, missing roots, dispatch of settled candidates.
  void on_tick();
  void on_results(std::vector<JobResult> results);
  // At shutdown: the summary lines of failures not yet logged one by one.
  void flush_failure_lines();
  // A file the hold policy held back (CandidatePolicy::hold) may be claimed now: it is claimed
  // at the next dispatch as any settled file (its writer and identity are checked again).
  void release_held(const std::string& path);
  // SIGTERM: nothing new is handed to the workers.
  void stop_claiming() { stopping_ = true; }
  void set_options(const WatcherOptions& o) { opts_ = o; }

  // When the earliest waiting file is due (INT64_MAX when none): the service's timer fires
  // then, so a settled file does not wait for the next periodic tick.
  int64_t next_due_ns() const;
  size_t pending() const { return pending_.size() - in_flight_; }
  size_t in_flight() const { return in_flight_; }
  // Counters with the gauges (pending, watches, ...) refreshed.
  const Counters& counters();
  // The live divergence part of the counters, kept by the service's alert sink.
  void set_divergences(uint64_t n, std::optional<DivergenceEvent> last, uint64_t not_compared = 0) {
    counters_.live_divergence = true;
    counters_.divergences = n;
    counters_.not_compared = not_compared;
    counters_.last_divergence = std::move(last);
  }
  WatchTree& tree() { return tree_; }

 private:
  struct Pending {
    int64_t due_ns = 0;
    int64_t event_ns = 0;     // last close/rename event, for latency
    int64_t look_due_ns = 0;  // latency stages: the look that claimed it was due then,
    int64_t claimed_ns = 0;   // and claimed it then
    uint32_t attempts = 0;
    bool in_flight = false;
    bool dirty = false;    // an event arrived while in flight
    bool has_obs = false;  // lease-less fallback: last size/mtime and when it was seen
    bool error_logged = false;
    bool root_dropped = false;  // in flight when its root was let go: forgotten when it returns
    bool held = false;          // complete, but the hold policy keeps it raw until released
    FileIdentity obs;
    int64_t obs_ns = 0;
  };
  using Map = std::unordered_map<std::string, Pending>;

  void on_candidate(const std::string& path, bool from_event);
  void on_leftover(const std::string& path);
  void on_root_dropped(const RootHandle& root, const std::string& why);
  bool owned_by_other(const std::string& path) const;
  void warn_unknown_writer_once(const std::string& path);
  void dispatch();
  // Returns false when the entry must be erased.
  bool try_claim(const std::string& path, Pending& p, int64_t now);
  void rearm(Pending& p, int64_t now);
  int64_t first_look_ns() const { return opts_.first_look_ns < 0 ? opts_.settle_ns : opts_.first_look_ns; }
  // A close/rename event: look again after the first look, and a lease-less stability window
  // observed before it no longer counts (the file was written meanwhile).
  void after_event(Pending& p, int64_t now);
  void enqueue(Map::iterator it) { queue_.emplace(it->second.due_ns, &it->first); }
  void dequeue(Map::iterator it) { queue_.erase({it->second.due_ns, &it->first}); }
  void handle_result(JobResult& r);
  void abandon(Map::iterator it, const FileIdentity& id);
  // The failure's line, in full or counted for the window's summary (bounded log volume).
  void log_failure(LogLevel level, const std::string& reason, const std::string& path, const std::string& line);
  void log_failure_summaries(bool force);

  WatcherOptions opts_;
  Clock& clock_;
  FileProbe& probe_;
  JobSink& sink_;
  Logger& log_;
  CandidatePolicy policy_;
  RootHooks root_hooks_;
  WatchTree tree_;
  EventSource& source_;
  Map pending_;
  BadFiles abandoned_;            // left alone until they change: bounded memory per file
  RefusedStores refused_stores_;  // stores refused for another user's side file
  int64_t next_refused_check_ns_ = 0;
  std::set<std::string> reported_leftovers_;  // other users' temp/claim names, warned about once
  size_t in_flight_ = 0;
  bool stopping_ = false;
  bool initial_scan_ = false;  // the start-up scan: every temp found is a dead predecessor's
  bool scan_paused_ = false;   // the test pause of the start-up scan was taken (common/base/test_hooks.h)
  bool unknown_writer_warned_ = false;
  int64_t start_wall_ns_ = 0;
  int64_t next_rescan_ns_ = 0;
  int64_t next_root_poll_ns_ = 0;
  int64_t next_unwatched_ns_ = 0;
  Counters counters_;
  std::vector<FsEvent> events_;
  std::vector<Job> claimed_;
  // Entries waiting (not in flight), ordered by due time; keys point into pending_ (node-based,
  // so they stay valid until the entry is erased).
  std::set<std::pair<int64_t, const std::string*>> queue_;
};

}  // namespace msit::daemon
