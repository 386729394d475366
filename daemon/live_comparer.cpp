// LiveComparer: the comparer thread of a running watch, when each root's next pass runs, and at
// which priority (docs/live-divergence.md "A pass", "Cost: what a pass reads").
#include "daemon/live_comparer.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <limits>

#include <malloc.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/io/file.h"
#include "common/store/store_catalog.h"
#include "daemon/jobs.h"
#include "daemon/log.h"

// mimalloc's collection (msit-compact links it as the process allocator: cli/CMakeLists.txt);
// weak, so that the daemon library links without it (tests, sanitizer builds): null then.
extern "C" void mi_collect(bool force) __attribute__((weak));

namespace msit::daemon {
namespace {

// The comparer thread's nice value: a CPU share of about a third of a compaction worker's when
// both want the core.
constexpr int kComparerNice = 5;
// Passes start at least kMinGap apart per root, so a burst of summaries is one pass.
constexpr auto kMinGap = std::chrono::milliseconds(200);
constexpr auto kPoll = std::chrono::milliseconds(500);  // while tokens wait to be final
constexpr auto kIdle = std::chrono::seconds(5);         // the golden may grow unseen
// Passes that may answer a token at once run before their gate, at most this many in a row
// (a pass after a pause within a token, the one that sees the token whole, its confirming
// pass); the rest they skipped is owed after them (docs/live-divergence.md "A pass").
constexpr int kMaxEarly = 3;
constexpr auto kBurstQuiet = std::chrono::milliseconds(25);

template <class Duration>
int64_t ns(Duration d) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(d).count();
}

int64_t steady_now_ns() { return steady_clock().now_ns(); }

// `path` lies below `root` (a path under it, not the root itself).
bool is_under(const std::string& path, const std::string& root) {
  return path.size() > root.size() && path.compare(0, root.size(), root) == 0 && path[root.size()] == '/';
}

// Off the watcher's critical path (docs/live-divergence.md "Cost"): on a busy machine the
// compaction workers go first; the comparer only delays alerts. Relative to the daemon's own
// nice value (a watch started at nice -10 keeps the same ratio). Best effort: this thread
// only (Linux applies PRIO_PROCESS with a thread id to that thread).
// watch --recompute: ops recomputed before the first divergence at most (each reads its tensors
// whole, on the comparer's thread).
constexpr size_t kRecomputeBeforeMax = 16;

void lower_priority() {
  const auto tid = static_cast<id_t>(::syscall(SYS_gettid));
  errno = 0;
  int nice_now = getpriority(PRIO_PROCESS, tid);
  if (errno == 0) setpriority(PRIO_PROCESS, tid, std::min(nice_now + kComparerNice, 19));
}

}  // namespace

LiveComparer::LiveComparer(const LiveSettings& s, DivergenceAlerts& alerts, Logger& log, Finality f)
    : keep_n_(s.keep_raw_near_divergence), cap_bytes_(s.held_raw_cap_bytes), alerts_(alerts), log_(log) {
  for (const auto& g : s.goldens)
    roots_.push_back(
        std::make_unique<LiveRootCompare>(absolute_path(g.root), absolute_path(g.golden), f, s.op_mapping_file));
  if (s.recompute) {  // the op and the ops before it whose raw files are kept (at most 16)
    RecomputeOptions ro;
    ro.ops_before = std::min<size_t>(s.keep_raw_near_divergence, kRecomputeBeforeMax);
    for (auto& r : roots_) r->set_recompute(ro);
  }
  dirty_.assign(roots_.size(), 1);
  last_summary_.assign(roots_.size(), 0);
  // Held and kept raw files are complete (the watcher settled them before holding them).
  for (auto& r : roots_)
    r->set_held_check([this](const std::string& path) {
      std::lock_guard<std::mutex> lock(mu_);
      return held_.count(path) != 0 || kept_.count(path) != 0;
    });
}

LiveComparer::~LiveComparer() { stop(); }

void LiveComparer::start() {
  thread_ = std::make_unique<StageThread>();
  thread_->submit([this] {
    run();
    return ok_status();
  });
}

void LiveComparer::stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_) (void)thread_->drain();  // run() returns once it sees stop_
  thread_.reset();
}

size_t LiveComparer::root_of(const std::string& path) const {
  for (size_t i = 0; i < roots_.size(); ++i)
    if (is_under(path, roots_[i]->root())) return i;
  return roots_.size();
}

bool LiveComparer::mark_dirty(size_t root) {
  last_summary_[root] = steady_now_ns();
  if (dirty_[root]) return false;
  dirty_[root] = 1;
  ++wakes_;
  return true;
}

void LiveComparer::note_summarised(const std::string& path) {
  bool any = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    released_.erase(path);
    for (size_t i = 0; i < roots_.size(); ++i)
      if (is_under(path, roots_[i]->root()) && mark_dirty(i)) any = true;
  }
  if (any) cv_.notify_all();
}

void LiveComparer::run() {
  lower_priority();
  sched_.assign(roots_.size(), Schedule{});
  std::unique_lock<std::mutex> lock(mu_);
  uint64_t seen_wakes = wakes_;
  while (!stop_) {
    for (size_t i = 0; i < roots_.size() && !stop_; ++i) {
      int64_t now = steady_now_ns();
      if (pass_due(i, now)) run_pass(i, now, lock);
    }
    const int64_t now = steady_now_ns();
    int64_t wake_at = next_wake_ns(now);
    if (wake_at <= now) continue;
    auto wait = std::chrono::nanoseconds(wake_at - now);
    cv_.wait_for(lock, wait, [this, &seen_wakes] { return stop_ || wakes_ != seen_wakes; });
    seen_wakes = wakes_;
  }
}

// A pass re-walks both trees: the comparer rests twice as long as its passes took, so it never
// takes more than a third of a core from the compaction however large the trees; and passes
// start at least kMinGap apart.
int64_t LiveComparer::gate(size_t i) const {
  return std::max(sched_[i].quiet_until, sched_[i].last_start + ns(kMinGap));
}

// A pass that can answer a token runs before its gate: the confirming pass of a token one pass
// from final by an event rule, at once; and the pass after a burst of summaries, once none has
// come for kBurstQuiet (the end of a token, or of the dump: its last files may have completed a
// token; a steady stream of summaries keeps to the gate).
std::optional<int64_t> LiveComparer::early_at(size_t i) const {
  if (sched_[i].early >= kMaxEarly) return std::nullopt;
  if (roots_[i]->confirm_soon()) return 0;
  if (dirty_[i]) return last_summary_[i] + ns(kBurstQuiet);
  return std::nullopt;
}

bool LiveComparer::pass_due(size_t i, int64_t now) const {
  bool due = dirty_[i] || roots_[i]->pending() || now - sched_[i].last_pass >= ns(kIdle);
  if (!due) return false;
  if (now >= gate(i)) return true;
  auto at = early_at(i);
  return at && *at <= now;
}

void LiveComparer::run_pass(size_t i, int64_t now, std::unique_lock<std::mutex>& lock) {
  Schedule& s = sched_[i];
  s.early = now < gate(i) ? s.early + 1 : 0;
  int64_t owed = std::max<int64_t>(s.quiet_until - now, 0);  // rest skipped by an early pass
  s.last_start = now;
  dirty_[i] = 0;
  lock.unlock();
  std::vector<std::string> notes;
  std::vector<TokenVerdict> verdicts;
  std::set<std::string> indexed;
  std::vector<DivergenceEvent> events =
      roots_[i]->pass(now, notes, keep_n_ ? &verdicts : nullptr, keep_n_ ? &indexed : nullptr);
  for (const auto& n : notes) log_.info(n);
  for (const auto& w : roots_[i]->take_warnings()) log_.warning(w);
  // Reported before any evidence is released: an alert never waits for compaction.
  for (const auto& e : events) alerts_.report(e);  // dedupes by id, also across restarts
  if (keep_n_) settle_holds(i, verdicts, indexed, now);
  // A pass builds and drops an index of both trees: give the freed pages back rather than
  // let the daemon keep the largest pass's heap for good.
  // The idle read connections of stores no pass read lately go too (up to 2 MB of page cache
  // each): an msProbe dump adds a store per step and rank that no pass reads once its step is
  // answered. Not every store's after each pass: the next pass would open the golden's again and
  // re-read its pages.
  store::StoreCatalog::instance().close_unused();
  ::malloc_trim(0);
  if (mi_collect != nullptr) mi_collect(true);
  s.last_pass = steady_now_ns();
  s.quiet_until = s.last_pass + owed + 2 * (s.last_pass - now);
  lock.lock();
}

// When each root's next pass is due: at once for a pass that can answer a token (early_at); at
// the gate for a root with new summaries and for the next window of a comparer catching up; for
// tokens waiting on a time rule, when the rule can fire, and at least every kPoll (the golden may
// grow unseen); otherwise at kIdle. The first summary under a clean root wakes the comparer to
// look again (mark_dirty).
int64_t LiveComparer::next_wake_ns(int64_t now) const {
  int64_t wake_at = now + ns(kIdle);
  for (size_t i = 0; i < roots_.size(); ++i) {
    const LiveRootCompare& r = *roots_[i];
    int64_t at = sched_[i].last_pass + ns(kIdle);
    if (dirty_[i] || r.confirm_soon())
      at = std::min(gate(i), early_at(i).value_or(std::numeric_limits<int64_t>::max()));
    else if (r.window_cut() && r.pending())  // pending: a pass is due, so a gate in the past is no spin
      at = gate(i);
    else if (r.pending())
      at = std::max(gate(i),
                    std::min(r.next_time_rule_ns().value_or(std::numeric_limits<int64_t>::max()), now + ns(kPoll)));
    wake_at = std::min(wake_at, at);
  }
  return wake_at;
}

}  // namespace msit::daemon
