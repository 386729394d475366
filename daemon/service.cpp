// The running daemon: libuv loop (inotify poll, timers, signals, worker wake-ups), sd_notify,
// status file and log lines around one Watcher.
#include "daemon/service.h"

#include <pthread.h>
#include <signal.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>
#include <uv.h>

#include <atomic>
#include <csignal>
#include <map>
#include <memory>
#include <thread>

#include <nlohmann/json.hpp>
#include "common/base/fd_limit.h"

#include "common/io/output_file.h"
#include "common/safety/beneath.h"
#include "common/safety/tree_lock.h"
#include "daemon/command_runner.h"
#include "daemon/disk_space.h"
#include "daemon/divergence_alerts.h"
#include "daemon/live_comparer.h"
#include "daemon/real_compactor.h"
#include "daemon/setting_table.h"
#include "daemon/tree_owners.h"
#include "daemon/watcher.h"
#include "daemon/work_queue.h"

namespace msit::daemon {
namespace {

constexpr size_t kBatchMax = 32;
constexpr uint64_t kBatchBytesMax = 64ull << 20;
constexpr int64_t kStatusLogEveryNs = 30'000'000'000;
// EX_CONFIG, as for a bad config file: an events file that is refused (a symlink, not ours, not
// an events file) stays refused on a restart (the unit's RestartPreventExitStatus=78).
constexpr int kExitBadAlerts = 78;
// The first look after a close/rename event (docs/safety.md K1): long enough to coalesce a
// writer's close-and-reopen (numpy's open_memmap reopens within microseconds), short against
// the 250 ms close -> deleted target (docs/benchmarks.md). A settle raised above the default
// asks for a longer blind quiet time (writers that close and reopen): it is kept whole.
constexpr int64_t kFirstLookNs = 50'000'000;
constexpr int64_t kDefaultSettleNs = int64_t{kSettleMs.def} * 1'000'000;

// Signals that arrive before the libuv handlers are in place (the start-up scan can take
// minutes on a large tree): recorded here, acted on once the handlers are installed.
std::atomic<int> g_early_stop{0};  // SIGTERM or SIGINT
std::atomic<bool> g_early_hup{false};
static_assert(std::atomic<int>::is_always_lock_free && std::atomic<bool>::is_always_lock_free,
              "the handler may only touch lock-free atomics");

extern "C" void on_early_signal(int sig) {
  if (sig == SIGHUP) g_early_hup.store(true, std::memory_order_relaxed);
  else g_early_stop.store(sig, std::memory_order_relaxed);
}

// A disposition is the process's: a signal delivered to any thread (a worker's) runs this
// handler, which only sets a flag, instead of the default action (death with no log line and
// no final status). SA_RESTART: a syscall it interrupts, in any thread, resumes.
// uv_signal_start() replaces these handlers in start_handles().
void install_early_signal_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_early_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  for (int sig : {SIGTERM, SIGINT, SIGHUP}) ::sigaction(sig, &sa, nullptr);
}

bool early_stop_requested() { return g_early_stop.load(std::memory_order_relaxed) != 0; }

// Threads started in its scope begin with SIGTERM/SIGINT/SIGHUP blocked (a thread inherits its
// creator's mask), and so do the threads they start: these signals are then always handled on
// the main thread, which runs the start-up scan and the loop. A signal sent while the scan is
// held is thus seen by the scan before its next file (no worker thread takes it first), and a
// worker's blocking calls are never cut short by one.
class StopSignalsBlocked {
 public:
  StopSignalsBlocked() {
    sigset_t set;
    sigemptyset(&set);
    for (int sig : {SIGTERM, SIGINT, SIGHUP}) sigaddset(&set, sig);
    ::pthread_sigmask(SIG_BLOCK, &set, &old_);
  }
  ~StopSignalsBlocked() { ::pthread_sigmask(SIG_SETMASK, &old_, nullptr); }
  StopSignalsBlocked(const StopSignalsBlocked&) = delete;
  StopSignalsBlocked& operator=(const StopSignalsBlocked&) = delete;

 private:
  sigset_t old_{};
};

WatcherOptions watcher_options(const WatchSettings& s, unsigned jobs) {
  WatcherOptions o;
  o.settle_ns = int64_t{s.settle_ms} * 1'000'000;
  o.first_look_ns = o.settle_ns > kDefaultSettleNs ? o.settle_ns : std::min(o.settle_ns, kFirstLookNs);
  o.rescan_interval_ns = int64_t{s.rescan_interval_s} * 1'000'000'000;
  o.backoff_cap_ns = std::min<int64_t>(30'000'000'000, o.rescan_interval_ns);
  o.max_watches_per_root = s.max_watches_per_root;
  o.watch_share = watch_share_of(s.max_watch_share, inotify_user_watch_limit());
  // Two batches per worker: one running, one queued, so a worker never waits for the loop.
  o.max_in_flight = size_t{jobs} * kBatchMax * 2;
  return o;
}

WatermarkOptions watermark_options(const WatchSettings& s) {
  WatermarkOptions o;
  o.min_free = s.min_free;
  o.hook_argv = split_command(s.low_space_hook);
  o.hook_interval_ns = int64_t{s.low_space_hook_interval_s} * 1'000'000'000;
  return o;
}

class Service {
 public:
  Service(const WatchSettings& s, const ReloadFn& reload, Logger& log, EventSource& source)
      : settings_(s), reload_(reload), log_(log), source_(source),
        jobs_(s.jobs != 0 ? s.jobs : std::max(1u, std::thread::hardware_concurrency())),
        compactor_(compact_options(s.compact)), live_(std::make_shared<LivePolicySettings>()),
        watermarks_(watermark_options(s), s.dirs, statvfs_space, log,
                    [this](const std::vector<std::string>& argv) { return start_hook(argv); }) {
    live_->keep_raw = s.compact.keep_raw;
    live_->format = s.compact.format;
  }

  int run();

 private:
  template <class H>
  static Service* self(H* h) {
    return static_cast<Service*>(h->data);
  }
  void start_handles();
  // Runs `f` on the watcher, then sets the due timer to the earliest waiting file.
  template <class F>
  void with_watcher(F&& f);
  void arm_due();
  void on_status_timer();
  void publish_status(const char* state);
  void reload();
  // `during_scan`: the signal came before the start-up scan was done (docs/daemon.md "Stopping").
  void begin_stop(int signum, bool during_scan = false);
  // Signals recorded by on_early_signal() before start_handles() replaced it; true: stopping.
  // `scanned`: the start-up scan ran to its end (and dispatched its files).
  bool take_early_signals(bool scanned);
  // A root was pinned: take its lock through the pinned fd (false when another live
  // msit-compact owns it: at start the daemon then refuses to start) and open its stores.
  bool on_root_attached(const std::shared_ptr<const RootHandle>& root);
  void on_root_dropped(const RootHandle& root, const std::string& why);
  // Roots whose lock file was removed (rm -rf of the tree) are let go of: our fds would pin
  // its directories and hide their removal from inotify. They are attached again when back.
  void check_locks();
  // The low-space hook, without a shell; one at a time per root (a still-running one is not doubled).
  bool start_hook(const std::vector<std::string>& argv);
  // Live divergence: the alert sink (the live comparer reports to it) and its start-up lines.
  bool open_alerts();

  WatchSettings settings_;
  ReloadFn reload_;
  Logger& log_;
  EventSource& source_;
  unsigned jobs_;
  EngineCompactor compactor_;
  std::shared_ptr<LivePolicySettings> live_;
  std::map<std::string, TreeLock> locks_;       // by root path, while attached
  std::map<std::string, std::string> refused_;  // last refusal logged, by root path
  bool started_ = false;
  std::shared_ptr<TreeOwners> owners_ = std::make_shared<TreeOwners>();  // live owners below the roots
  DiskWatermarks watermarks_;
  uv_loop_t loop_{};
  CommandRunner commands_{&loop_, log_};      // low_space_hook and on_divergence
  std::unique_ptr<DivergenceAlerts> alerts_;  // with --golden
  uv_poll_t poll_{};
  uv_timer_t tick_{}, due_{}, status_{}, watchdog_{};
  uv_async_t wake_{};
  uv_signal_t sigterm_{}, sigint_{}, sighup_{};
  std::unique_ptr<WorkerPool> pool_;
  std::unique_ptr<Watcher> watcher_;
  // Live divergence (--golden): the comparer thread reporting to alerts_; null when off.
  std::unique_ptr<LiveComparer> comparer_;
  bool stopping_ = false;
  bool status_warned_ = false;
  int64_t last_log_ns_ = 0;
  std::string last_logged_;
};

template <class F>
void Service::with_watcher(F&& f) {
  f(*watcher_);
  arm_due();
}

void Service::arm_due() {
  if (stopping_) return;
  const int64_t due = watcher_->next_due_ns();
  if (due == INT64_MAX) {
    uv_timer_stop(&due_);
    return;
  }
  // libuv timers count whole milliseconds from the loop's cached time: round up, and at least
  // 1 ms (a 0 ms timer set from its own callback would run again at once, forever).
  const int64_t wait_ns = due - steady_clock().now_ns();
  const uint64_t wait_ms = wait_ns <= 1'000'000 ? 1 : static_cast<uint64_t>((wait_ns + 999'999) / 1'000'000);
  uv_update_time(&loop_);
  uv_timer_start(
      &due_,
      [](uv_timer_t* h) {
        self(h)->watcher_->on_tick();
        self(h)->arm_due();
      },
      wait_ms, 0);
}

void Service::publish_status(const char* state) {
  for (const auto& w : compactor_.take_warnings()) log_.warning(w);
  if (alerts_) watcher_->set_divergences(alerts_->count(), alerts_->last(), alerts_->not_compared());
  const Counters& c = watcher_->counters();
  std::string line = c.status_line() + watermarks_.status_suffix();
  sd_notifyf(0, "STATUS=%s", line.c_str());
  if (!settings_.json_status.empty()) {
    nlohmann::json j = c.to_json(static_cast<int>(::getpid()), state);
    j["filesystems"] = watermarks_.to_json();
    // Paths in the last divergence may not be UTF-8: replaced, never thrown on.
    Status st = write_output_file(settings_.json_status,
                                  j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
    // Once per episode: a full /run must not flood the journal every second.
    if (!st.ok() && !status_warned_) log_.warning(st.error().to_string() + " (status file; reported once)");
    status_warned_ = !st.ok();
  }
}

bool Service::on_root_attached(const std::shared_ptr<const RootHandle>& handle) {
  const RootHandle& root = *handle;
  const std::string& path = root.path();
  // Lock files that make no owner (planted, squatted) are ignored, said once per taking.
  LockedAncestor a = locked_ancestor(path);
  for (const auto& w : a.ignored) log_.warning(w);
  std::vector<std::string> warnings;
  Result<TreeLock> lock = a.dir.empty()
                              ? TreeLock::acquire(root.fd()->get(), path, &warnings)
                              : Result<TreeLock>(make_error(path, Stage::kLock, a.dir + " is owned by " + a.holder));
  for (const auto& w : warnings) log_.warning(w);
  if (!lock.ok()) {
    std::string line = lock.error().to_string() + (started_ ? "; this root is not watched" : "; not starting");
    if (refused_[path] != line) log_.error(line);
    refused_[path] = std::move(line);
    return false;
  }
  refused_.erase(path);
  locks_[path] = std::move(lock).value();
  compactor_.attach_tree(handle);
  // The live comparer reads this tree's stores in this process: their writer opens them first.
  if (settings_.live.enabled())
    for (const auto& line : compactor_.open_existing_stores(root)) log_.warning(line);
  log_.info(path + ": owned by this watch; settle: " + describe_settle_mode(root.fd()->get()));
  // Owners below started first: their subtrees stay theirs (one owner per tree).
  for (const auto& line : owners_->add_root(root.fd()->get(), path)) log_.warning(line);
  return true;
}

void Service::on_root_dropped(const RootHandle& root, const std::string&) {
  owners_->drop_root(root.path());
  compactor_.release_tree(root);
  locks_.erase(root.path());  // the lock file is removed through the directory it was made in
}

void Service::check_locks() {
  std::vector<std::string> lost;
  for (const auto& [path, lock] : locks_)
    if (lock.held() && lock.lost()) lost.push_back(path);
  for (const auto& path : lost) watcher_->drop_root(path, "lost its lock file (removed with the tree?)");
}

bool Service::start_hook(const std::vector<std::string>& argv) {
  const std::string& root = argv[argv.size() - 2];
  return commands_.start(CommandRun{"low_space_hook " + root, "low_space_hook", " for " + root, argv, {}, false});
}

bool Service::open_alerts() {
  const LiveSettings& live = settings_.live;
  if (!live.enabled()) {
    if (!live.events_file.empty() || !live.on_divergence.empty() || live.keep_raw_near_divergence != 0 ||
        live.recompute)
      log_.info(
          "no golden for the watched roots: events, on_divergence, keep_raw_near_divergence and recompute are unused");
    return true;
  }
  for (const auto& g : live.goldens) {
    bool exists = ::access(g.golden.c_str(), F_OK) == 0;
    log_.info("live divergence: " + g.root + " against the golden " + g.golden +
              (exists ? "" : " (not there yet: its files are matched as they appear)"));
  }
  AlertHooks hooks;
  hooks.run = [this](CommandRun run) { commands_.post(std::move(run)); };
  Result<std::unique_ptr<DivergenceAlerts>> a = open_divergence_alerts(live, log_, std::move(hooks));
  if (!a.ok()) {
    log_.error(a.error().to_string() + "; not starting");
    return false;
  }
  alerts_ = std::move(a).value();
  return true;
}

void Service::on_status_timer() {
  check_locks();
  for (const auto& line : owners_->refresh()) log_.info(line);
  int64_t now = steady_clock().now_ns();
  watermarks_.check(now);
  publish_status("running");
  std::string line = watcher_->counters().status_line();
  if (line != last_logged_ && now - last_log_ns_ >= kStatusLogEveryNs) {
    log_.info(line);
    last_logged_ = line;
    last_log_ns_ = now;
  }
}

void Service::reload() {
  Result<WatchSettings> s = reload_();
  if (!s.ok()) {
    log_.error(s.error().to_string() + "; keeping the current settings");
    return;
  }
  // The settings table says what a reload may change (daemon/setting_table.h).
  for (SettingReload kept : {SettingReload::kRestart, SettingReload::kRestartLive}) {
    std::string line = keep_at_reload(*s, settings_, kept);
    if (!line.empty()) log_.warning(line);
  }
  settings_ = *s;
  if (alerts_) alerts_->set_command(settings_.live.on_divergence, settings_.live.on_divergence_interval_s);
  watcher_->set_options(watcher_options(settings_, jobs_));
  compactor_.set_options(compact_options(settings_.compact));
  watermarks_.set_options(watermark_options(settings_));
  live_->keep_raw = settings_.compact.keep_raw;
  live_->format = settings_.compact.format;
  log_.set_verbose(settings_.verbose);
  log_.info("config reloaded: settle " + std::to_string(settings_.settle_ms) + " ms, rescan every " +
            std::to_string(settings_.rescan_interval_s) + " s, format " +
            std::string(summary_format_name(settings_.compact.format)) +
            (settings_.compact.keep_raw  ? ", raw files kept"
             : settings_.compact.archive ? ", raw files archived"
                                         : ""));
}

void Service::begin_stop(int signum, bool during_scan) {
  if (stopping_) return;
  stopping_ = true;
  sd_notify(0, "STOPPING=1");
  log_.info(std::string("received ") + (signum == SIGINT ? "SIGINT" : "SIGTERM") +
            (during_scan ? " during the start-up scan: stopping (nothing was claimed yet; the next start scans again)"
                         : ": finishing files in flight, then exiting"));
  watcher_->stop_claiming();
  uv_poll_stop(&poll_);
  uv_timer_stop(&tick_);
  uv_timer_stop(&due_);
  uv_timer_stop(&status_);
  // A command still running would keep the loop alive: ask it to stop (its exit is still logged).
  commands_.close(SIGTERM);
  // Blocks the loop only while the running batches finish; queued jobs come back cancelled.
  pool_->shutdown();
  watcher_->on_results(pool_->take_results());
  watcher_->flush_failure_lines();
  if (comparer_) comparer_->stop();
  publish_status("stopped");
  log_.info("stopped: " + watcher_->counters().status_line());
  auto close = [](uv_handle_t* h) {
    if (!uv_is_closing(h)) uv_close(h, nullptr);
  };
  for (uv_handle_t* h : {reinterpret_cast<uv_handle_t*>(&poll_), reinterpret_cast<uv_handle_t*>(&tick_),
                         reinterpret_cast<uv_handle_t*>(&due_), reinterpret_cast<uv_handle_t*>(&status_),
                         reinterpret_cast<uv_handle_t*>(&watchdog_), reinterpret_cast<uv_handle_t*>(&wake_),
                         reinterpret_cast<uv_handle_t*>(&sigterm_), reinterpret_cast<uv_handle_t*>(&sigint_),
                         reinterpret_cast<uv_handle_t*>(&sighup_)})
    close(h);
}

void Service::start_handles() {
  uv_poll_init(&loop_, &poll_, source_.poll_fd());
  poll_.data = this;
  uv_poll_start(&poll_, UV_READABLE,
                [](uv_poll_t* h, int, int) { self(h)->with_watcher([](Watcher& w) { w.on_events(); }); });

  // Periodic: rescans, missing roots, failure summaries; settled files are dispatched by due_.
  uint64_t tick_ms = std::clamp<uint64_t>(settings_.settle_ms / 4, 5, 50);
  uv_timer_init(&loop_, &tick_);
  tick_.data = this;
  uv_timer_start(
      &tick_, [](uv_timer_t* h) { self(h)->with_watcher([](Watcher& w) { w.on_tick(); }); }, tick_ms, tick_ms);
  uv_timer_init(&loop_, &due_);
  due_.data = this;

  uv_timer_init(&loop_, &status_);
  status_.data = this;
  uv_timer_start(
      &status_, [](uv_timer_t* h) { self(h)->on_status_timer(); }, 1000, 1000);

  uv_timer_init(&loop_, &watchdog_);
  watchdog_.data = this;
  uint64_t wd_usec = 0;
  if (sd_watchdog_enabled(0, &wd_usec) > 0 && wd_usec > 0) {
    uint64_t every_ms = std::max<uint64_t>(1, wd_usec / 2000);  // half of WATCHDOG_USEC
    uv_timer_start(
        &watchdog_, [](uv_timer_t*) { sd_notify(0, "WATCHDOG=1"); }, every_ms, every_ms);
  }

  for (auto [sig, h] : {std::pair{SIGTERM, &sigterm_}, std::pair{SIGINT, &sigint_}, std::pair{SIGHUP, &sighup_}}) {
    uv_signal_init(&loop_, h);
    h->data = this;
    uv_signal_start(
        h,
        [](uv_signal_t* s, int signum) {
          if (signum == SIGHUP) self(s)->reload();
          else self(s)->begin_stop(signum);
        },
        sig);
  }
}

bool Service::take_early_signals(bool scanned) {
  const int sig = g_early_stop.exchange(0);
  if (sig != 0) {
    begin_stop(sig, !scanned);
    return true;
  }
  if (g_early_hup.exchange(false)) {
    log_.info("received SIGHUP during the start-up scan: reloading now");
    reload();
  }
  return false;
}

int Service::run() {
  uv_loop_init(&loop_);
  uv_async_init(&loop_, &wake_, [](uv_async_t* h) {
    Service* s = self(h);
    if (s->stopping_) return;
    if (s->comparer_)
      for (const auto& path : s->comparer_->take_releases()) s->watcher_->release_held(path);
    std::vector<JobResult> results = s->pool_->take_results();
    // Each summarised file wakes the live comparer (its summary is durable by now).
    if (s->comparer_)
      for (const auto& r : results)
        if (r.status == JobStatus::kDone) s->comparer_->note_summarised(r.path);
    s->with_watcher([&results](Watcher& w) { w.on_results(std::move(results)); });
  });
  wake_.data = this;
  commands_.init_async();
  if (!open_alerts()) {
    commands_.close(SIGTERM);
    uv_close(reinterpret_cast<uv_handle_t*>(&wake_), nullptr);
    uv_run(&loop_, UV_RUN_NOWAIT);
    uv_loop_close(&loop_);
    return kExitBadAlerts;
  }
  // A running batch keeps each file's descriptors (raw, summary temp, archive temp) open.
  const size_t batch_max = batch_size_within_fd_limit(kBatchMax, raise_fd_limit(), jobs_, 1, 3);
  {
    StopSignalsBlocked blocked;
    pool_ = std::make_unique<WorkerPool>(
        jobs_, batch_max, compactor_, steady_clock(), [this] { uv_async_send(&wake_); }, kBatchBytesMax);
  }
  CandidatePolicy policy = engine_policy(live_, owners_);
  // Live divergence with --keep-raw-near-divergence: files wait raw for their op's verdict.
  policy.hold = [this](const std::string& path, uint64_t bytes) {
    return comparer_ != nullptr && comparer_->hold(path, bytes);
  };
  watcher_ = std::make_unique<Watcher>(
      watcher_options(settings_, jobs_), settings_.dirs, source_, steady_clock(), lease_probe(), *pool_, log_,
      std::move(policy),
      RootHooks{[this](const std::shared_ptr<const RootHandle>& r) { return on_root_attached(r); },
                [this](const RootHandle& r, const std::string& why) { on_root_dropped(r, why); }});
  // Roots are pinned and locked before anything is scanned: another live owner stops us here.
  if (!watcher_->attach_roots()) {
    pool_->shutdown();
    commands_.close(SIGTERM);
    uv_close(reinterpret_cast<uv_handle_t*>(&wake_), nullptr);
    uv_run(&loop_, UV_RUN_NOWAIT);
    uv_loop_close(&loop_);
    return 1;
  }
  started_ = true;
  if (alerts_) {  // opened by open_alerts() before the roots attached
    comparer_ = std::make_unique<LiveComparer>(settings_.live, *alerts_, log_);
    comparer_->set_wake([this] { uv_async_send(&wake_); });
  }
  log_.info("watching " + std::to_string(settings_.dirs.size()) + " root(s) with " + std::to_string(jobs_) +
            " worker(s), settle " + std::to_string(settings_.settle_ms) + " ms");
  // SIGTERM/SIGINT during the scan end it between two files (on_early_signal() sets the flag).
  const bool scanned = watcher_->start(early_stop_requested);
  if (scanned && comparer_) {
    StopSignalsBlocked blocked;
    comparer_->start();  // after the start-up scan: resumes from the stores
  }
  start_handles();
  // After start_handles(): a signal from now on reaches libuv, one before it is in the flags.
  if (take_early_signals(scanned)) {
    uv_run(&loop_, UV_RUN_DEFAULT);  // begin_stop() closed every handle: this only lets them close
    uv_loop_close(&loop_);
    return 0;
  }
  watermarks_.check(steady_clock().now_ns());
  publish_status("running");
  sd_notify(0, "READY=1");  // after the first scan: every existing file is known
  log_.info("start-up scan done: " + watcher_->counters().status_line());
  uv_run(&loop_, UV_RUN_DEFAULT);
  uv_loop_close(&loop_);
  return 0;
}

}  // namespace

int run_watch_service(const WatchSettings& settings, const ReloadFn& reload, Logger& log) {
  // A writer opening a file while the probe holds its read lease makes the kernel send SIGIO,
  // whose default action would kill the daemon.
  std::signal(SIGIO, SIG_IGN);
  std::signal(SIGPIPE, SIG_IGN);
  install_early_signal_handlers();
  log.set_verbose(settings.verbose);
  Result<std::unique_ptr<EventSource>> source = make_inotify_source();
  if (!source.ok()) {
    log.error(source.error().to_string());
    return 1;
  }
  Service service(settings, reload, log, **source);
  return service.run();
}

}  // namespace msit::daemon
