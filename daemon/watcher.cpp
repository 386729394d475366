// The watcher's decisions, free of libuv: which files are candidates, when a candidate has
// settled (quiet, no writer, complete), what is handed to the workers, and what a result means.
#include "daemon/watcher.h"

#include <sys/stat.h>
#include <unistd.h>

#include <fcntl.h>

#include <algorithm>
#include <ctime>
#include <limits>

#include "common/base/human_units.h"
#include "common/base/test_hooks.h"
#include "common/compaction/temp_content.h"
#include "common/io/atomic_write.h"
#include "common/safety/dump_roots.h"
#include "common/safety/leftovers.h"

namespace msit::daemon {

constexpr int64_t kTempMarginNs = 2'000'000'000;
constexpr int64_t kMinRetryNs = 10'000'000;  // even with --settle-ms 0, retries are not a busy loop
// After a full rescan the loop rests at least this many times as long as the walk took
// (docs/benchmarks.md, "Soak with faults": why).
constexpr int64_t kRescanRestFactor = 2;

// Other users' temp and claim names warned about by name; more are possible in a hostile tree.
constexpr size_t kMaxReportedLeftovers = 4096;

static int64_t wall_now_ns() {
  struct timespec ts {};
  ::clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

Watcher::Watcher(WatcherOptions opts, std::vector<std::string> roots, EventSource& source, Clock& clock,
                 FileProbe& probe, JobSink& sink, Logger& log, CandidatePolicy policy, RootHooks root_hooks)
    : opts_(opts), clock_(clock), probe_(probe), sink_(sink), log_(log), policy_(std::move(policy)),
      root_hooks_(std::move(root_hooks)),
      tree_(source, log, std::move(roots), opts.max_watches_per_root,
            TreeHooks{[this](const std::string& p, bool ev) { on_candidate(p, ev); },
                      [this](const std::string& p) { on_leftover(p); }, policy_.is_candidate, root_hooks_.attached,
                      [this](const RootHandle& r, const std::string& why) { on_root_dropped(r, why); }}),
      source_(source), abandoned_(opts.bad_files), start_wall_ns_(wall_now_ns()) {
  tree_.set_share(opts.watch_share);
}

bool Watcher::start(const ScanStopFn& stop) {
  // The service holds the tree's lock before this scan: no other live msit-compact works here.
  initial_scan_ = true;
  tree_.scan_all(stop);
  initial_scan_ = false;
  if (stop && stop()) {
    // Nothing was handed to the workers yet: the files found stay raw, for the next start.
    stopping_ = true;
    return false;
  }
  tree_.poll_roots();  // logs the roots that are not there yet
  int64_t now = clock_.now_ns();
  next_rescan_ns_ = now + opts_.rescan_interval_ns;
  next_root_poll_ns_ = now + opts_.root_poll_ns;
  next_unwatched_ns_ = now + opts_.unwatched_rescan_ns;
  dispatch();
  return true;
}

void Watcher::on_events() {
  events_.clear();
  Status st = source_.read_events(events_);
  if (!st.ok()) log_.error(st.error().to_string());
  for (const FsEvent& e : events_) tree_.handle(e);
  counters_.overflows = tree_.overflows();
}

void Watcher::on_tick() {
  int64_t now = clock_.now_ns();
  if (now >= next_rescan_ns_) {
    tree_.scan_all();
    ++counters_.rescans;
    // The walk runs on the loop, and its cost grows with the tree (directories stay when their
    // files are compacted): once it took as long as the interval, walks ran back to back and the
    // workers got one in-flight window per walk. Resting twice the walk's time keeps the walks to
    // a third of the loop, however large the tree.
    const int64_t end = clock_.now_ns();
    next_rescan_ns_ = std::max(now + opts_.rescan_interval_ns, end + kRescanRestFactor * (end - now));
    now = end;
  }
  if (now >= next_root_poll_ns_) {
    tree_.poll_roots();
    next_root_poll_ns_ = now + opts_.root_poll_ns;
  }
  if (now >= next_unwatched_ns_) {
    if (tree_.unwatched_count() > 0) tree_.rescan_unwatched();
    next_unwatched_ns_ = now + opts_.unwatched_rescan_ns;
  }
  log_failure_summaries(false);
  if (now >= next_refused_check_ns_) {
    for (const auto& line : refused_stores_.tick(now)) log_.warning(line);
    next_refused_check_ns_ = now + 1'000'000'000;
  }
  dispatch();
}

// Files, temps and claims in a subtree another live msit-compact owns are its, not ours.
bool Watcher::owned_by_other(const std::string& path) const {
  return policy_.owner_of && !policy_.owner_of(path).empty();
}

void Watcher::log_failure(LogLevel level, const std::string& reason, const std::string& path, const std::string& line) {
  if (abandoned_.count(reason, path, clock_.now_ns())) log_.log(level, line);
}

void Watcher::log_failure_summaries(bool force) {
  for (const auto& line : abandoned_.take_summary_lines(clock_.now_ns(), force)) log_.warning(line);
}

void Watcher::flush_failure_lines() { log_failure_summaries(true); }

void Watcher::on_candidate(const std::string& path, bool from_event) {
  if (owned_by_other(path)) return;
  int64_t now = clock_.now_ns();
  if (from_event) {
    abandoned_.forget(path);
  } else if (abandoned_.known(path)) {
    auto f = tree_.file_ref(path);
    struct stat st {};
    if (f.ok() && ::fstatat(f->dir.get(), f->name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 &&
        abandoned_.unchanged(path, identity_from_stat(st)))
      return;  // unchanged: still left alone
    abandoned_.forget(path);
  }
  auto it = pending_.find(path);
  if (it == pending_.end()) {
    if (!from_event && policy_.already_done) {
      auto f = tree_.file_ref(path);
      if (f.ok() && policy_.already_done(*f)) return;
    }
    Pending p;
    // Files found by a scan have usually been there a while; the probe still checks them.
    if (from_event) after_event(p, now);
    else p.due_ns = now;
    enqueue(pending_.emplace(path, p).first);
    if (initial_scan_ && !scan_paused_) {  // a test holds the start-up scan here, once
      scan_paused_ = true;
      test_pause(PausePoint::kStartupScan);
    }
    return;
  }
  if (!from_event) return;
  Pending& p = it->second;
  if (p.in_flight) {
    p.event_ns = now;
    p.attempts = 0;
    p.dirty = true;
    return;
  }
  dequeue(it);
  after_event(p, now);  // writer activity: settle again, from the start
  enqueue(it);
}

void Watcher::after_event(Pending& p, int64_t now) {
  p.event_ns = now;
  p.attempts = 0;
  p.has_obs = false;
  p.due_ns = now + first_look_ns();
}

int64_t Watcher::next_due_ns() const {
  // At the in-flight cap nothing is handed out before a result comes back (which dispatches).
  if (stopping_ || queue_.empty() || in_flight_ >= opts_.max_in_flight) return INT64_MAX;
  return queue_.begin()->first;
}

void Watcher::on_leftover(const std::string& path) {
  // At start-up every temp of ours is a dead predecessor's (we hold the tree's lock and have
  // written nothing yet). Later, only temps older than this process are stale: newer ones are
  // ours, in flight. The margin covers coarse file timestamps (a jiffy, or whole seconds).
  // Claims are given back only at start-up: later ones are our workers', in flight.
  if (owned_by_other(path)) return;
  auto f = tree_.file_ref(path);
  if (!f.ok()) return;
  if (!initial_scan_ && is_claim_name(f->name)) return;
  LeftoverPolicy policy{.temp_content = our_temp_content};
  if (!initial_scan_) policy.temps_before_ns = start_wall_ns_ - kTempMarginNs;
  const size_t slash = path.rfind('/');
  LeftoverOutcome o = recover_leftover(*f, DumpScope::of_path(path.substr(0, slash)), policy);
  switch (o.action) {
    case LeftoverAction::kRemoved:
      ++counters_.temp_cleaned;
      log_.info(o.message);
      break;
    case LeftoverAction::kRenamedBack:
      log_.info(o.message);
      if (policy_.is_candidate(f->dir.path, o.raw_name)) on_candidate(f->dir.path + "/" + o.raw_name, false);
      break;
    case LeftoverAction::kNotOurs:
    case LeftoverAction::kOutsideDumpRoot:
      // Reported once per name and start (a rescan finds it again), in a bounded set: beyond
      // it, the lines go through the per-minute aggregation of bad files (docs/daemon.md).
      if (reported_leftovers_.size() < kMaxReportedLeftovers) {
        if (reported_leftovers_.insert(path).second) log_.warning(o.message);
      } else {
        log_failure(LogLevel::kWarning, "not ours", path, o.message);
      }
      break;
    case LeftoverAction::kNameTaken:
    case LeftoverAction::kFailed: log_.warning(o.message); break;
    case LeftoverAction::kInFlight:
    case LeftoverAction::kGone: break;
  }
}

void Watcher::on_root_dropped(const RootHandle& root, const std::string& why) {
  // Everything found below the root is forgotten; jobs in flight see root.dropped() and stop
  // before touching another file, and their results are discarded.
  const std::string& top = root.path();
  auto below = [&](const std::string& path) {
    if (!(path.size() > top.size() + 1 && path.compare(0, top.size(), top) == 0 &&
          (path[top.size()] == '/' || top == "/")))
      return false;
    auto still = tree_.locate(path);  // a deeper root, still attached, keeps its own files
    return !still || still->root->path().size() <= top.size();
  };
  size_t waiting = 0, running = 0;
  for (auto it = pending_.begin(); it != pending_.end();) {
    if (!below(it->first)) {
      ++it;
      continue;
    }
    if (it->second.in_flight) {
      it->second.root_dropped = true;
      ++running;
      ++it;
    } else {
      dequeue(it);
      it = pending_.erase(it);
      ++waiting;
    }
  }
  // abandoned_ keeps its fingerprints (bounded, by path hash): a file below a new directory at
  // this path has another identity and is tried again; one of the same directory, unchanged,
  // is still left alone.
  std::erase_if(reported_leftovers_, below);
  counters_.dropped_with_root += waiting + running;
  log_.warning(top + ": " + std::to_string(waiting) + " pending file(s) dropped and " + std::to_string(running) +
               " in flight cancelled with the root (" + why + "); nothing below it is deleted");
  if (root_hooks_.dropped) root_hooks_.dropped(root, why);
}

void Watcher::warn_unknown_writer_once(const std::string& path) {
  if (unknown_writer_warned_) return;
  unknown_writer_warned_ = true;
  log_.warning(path +
               ": no lease can be taken and /proc cannot tell whether a writer still holds it "
               "(not root, or hidden processes): raw files are summarised but KEPT from now on, "
               "never deleted on a guess. Run the service as root to let it remove them.");
}

void Watcher::rearm(Pending& p, int64_t now) {
  uint32_t shift = p.attempts < 20 ? p.attempts : 20;
  int64_t base = std::max<int64_t>(opts_.settle_ns, kMinRetryNs);
  int64_t delay = base << shift;
  if (delay > opts_.backoff_cap_ns || delay <= 0) delay = std::max(opts_.backoff_cap_ns, base);
  p.due_ns = now + delay;
}

void Watcher::dispatch() {
  if (stopping_) return;
  int64_t now = clock_.now_ns();
  // Oldest first, so that under load the files that have waited longest are freed first.
  while (in_flight_ < opts_.max_in_flight && !queue_.empty() && queue_.begin()->first <= now) {
    auto it = pending_.find(*queue_.begin()->second);
    queue_.erase(queue_.begin());
    if (!try_claim(it->first, it->second, now)) {
      pending_.erase(it);
    } else if (!it->second.in_flight) {
      enqueue(it);  // re-armed for later
    }
  }
  if (!claimed_.empty()) {
    sink_.submit(std::move(claimed_));
    claimed_.clear();
  }
}

bool Watcher::try_claim(const std::string& path, Pending& p, int64_t now) {
  auto at = tree_.locate(path);
  if (!at) return false;  // its root was let go of
  BeneathResolver resolve(at->root->fd(), at->root->path());
  auto f = resolve.file(at->rel);
  if (!f.ok()) return false;  // a directory on the way is gone or a symlink now: never followed
  ProbeResult pr = probe_.probe(*f);
  if (!pr.exists || !pr.regular) return false;  // gone, or replaced by a symlink/dir
  if (pr.writer == WriterState::kBusy) {
    rearm(p, now);  // a writer still has it open; not counted towards "never completes"
    return true;
  }
  if (pr.writer == WriterState::kUnknown || pr.writer == WriterState::kNoneByProc) {
    // No leases here: require size and mtime unchanged over a whole settle period.
    int64_t settle = std::max(opts_.settle_ns, kMinRetryNs);
    if (!p.has_obs || !p.obs.same_content_as(pr.identity)) {
      p.has_obs = true;
      p.obs = pr.identity;
      p.obs_ns = now;
      p.due_ns = now + settle;
      return true;
    }
    if (now - p.obs_ns < settle) {
      p.due_ns = p.obs_ns + settle;
      return true;
    }
  }
  if (policy_.hold && policy_.hold(path, pr.identity.size)) {
    // Kept raw until its op's verdict is known: not claimed, not touched, not re-probed.
    p.held = true;
    p.due_ns = std::numeric_limits<int64_t>::max();
    return true;
  }
  p.held = false;
  p.in_flight = true;
  p.dirty = false;
  p.look_due_ns = p.due_ns;
  p.claimed_ns = clock_.now_ns();
  ++in_flight_;
  const bool keep = pr.writer == WriterState::kUnknown;
  if (keep) warn_unknown_writer_once(path);
  claimed_.push_back(Job{path, pr.identity, p.event_ns, keep, at->root, at->rel});
  return true;
}

void Watcher::release_held(const std::string& path) {
  auto it = pending_.find(path);
  if (it == pending_.end() || it->second.in_flight || !it->second.held) return;
  dequeue(it);
  it->second.held = false;
  it->second.due_ns = clock_.now_ns();
  enqueue(it);
}

void Watcher::on_results(std::vector<JobResult> results) {
  for (JobResult& r : results) handle_result(r);
  dispatch();
}

void Watcher::abandon(Map::iterator it, const FileIdentity& id) {
  abandoned_.remember(it->first, id);
  pending_.erase(it);
}

void Watcher::handle_result(JobResult& r) {
  auto it = pending_.find(r.path);
  if (it == pending_.end() || !it->second.in_flight) return;
  Pending& p = it->second;
  p.in_flight = false;
  --in_flight_;
  if (p.root_dropped) {  // its root was let go of while it ran: whatever happened, forget it
    pending_.erase(it);
    if (tree_.locate(r.path)) on_candidate(r.path, false);  // a directory is at the root's path again
    return;
  }
  int64_t now = clock_.now_ns();
  const bool rewritten = p.dirty;  // an event arrived meanwhile: whatever happened, look again
  p.dirty = false;
  switch (r.status) {
    case JobStatus::kDone:
      if (r.verified_existing) ++counters_.verified_existing;
      else ++counters_.files_compacted;
      counters_.raw_bytes += r.raw_bytes;
      counters_.summary_bytes += r.summary_bytes;
      if (r.raw_removed && r.raw_bytes > r.summary_bytes) counters_.bytes_freed += r.raw_bytes - r.summary_bytes;
      if (r.raw_removed && r.event_ns > 0)
        counters_.add_latency(LatencyStamps{r.event_ns, p.look_due_ns, p.claimed_ns, r.started_ns, r.prepared_ns,
                                            r.durable_ns, r.done_ns});
      if (p.error_logged) log_.info(r.path + ": compacted after earlier failures");
      else
        log_.debug(r.path + (r.verified_existing ? ": existing summary verified (" : ": compacted (") +
                   human_bytes(r.raw_bytes) + (r.raw_removed ? ", raw removed)" : ", raw kept)"));
      break;
    case JobStatus::kGone:
    case JobStatus::kCancelled:
      if (r.status == JobStatus::kCancelled) {
        enqueue(it);  // stays pending
        return;
      }
      break;
    case JobStatus::kIncomplete:
      if (rewritten) break;
      if (++p.attempts >= opts_.incomplete_attempts) {
        ++counters_.incomplete_given_up;
        log_failure(LogLevel::kWarning, "never completed", r.path,
                    r.error.to_string() + "; the file never completed: leaving it alone until it changes");
        abandon(it, r.seen);
        return;
      }
      rearm(p, now);
      enqueue(it);
      return;
    case JobStatus::kFailed:
      ++counters_.errors;
      if (r.error.stage == Stage::kStoreOwner) refused_stores_.note(r.error.path);
      if (!p.error_logged) {
        p.error_logged = true;
        ++counters_.files_failed;
        log_failure(
            LogLevel::kError, std::string(stage_name(r.error.stage)), r.path,
            r.error.to_string() + (r.transient ? "; raw file kept, will retry" : "; raw file kept, left alone"));
      }
      if (rewritten) break;
      if (!r.transient) {
        abandon(it, r.seen);
        return;
      }
      ++p.attempts;
      rearm(p, now);
      enqueue(it);
      return;
  }
  if (rewritten) {
    after_event(p, p.event_ns);  // from the event that arrived while it ran
    if (p.due_ns < now) p.due_ns = now;
    enqueue(it);
    return;
  }
  pending_.erase(it);
}

const Counters& Watcher::counters() {
  counters_.pending = pending();
  counters_.in_flight = in_flight_;
  counters_.watches = tree_.watch_count();
  counters_.unwatched_dirs = tree_.unwatched_count();
  counters_.missing_roots = tree_.missing_roots();
  counters_.overflows = tree_.overflows();
  counters_.watch_capped_roots = tree_.capped_roots();
  counters_.watch_limit = opts_.watch_share.user_limit == 0 ? 0 : opts_.watch_share.max_watches;
  counters_.refused_store_files = refused_stores_.files();
  counters_.bad_files_remembered = abandoned_.remembered();
  counters_.bad_files_not_remembered = abandoned_.not_remembered();
  counters_.log_lines_suppressed = abandoned_.lines_suppressed();
  counters_.failures_by_reason = abandoned_.by_reason();
  return counters_;
}

}  // namespace msit::daemon
