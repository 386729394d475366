// Watcher decisions driven by fakes: settle, writer probe, lease-less fallback, incomplete
// backoff, failures logged once, overflow rescans, new/deleted directories, missing roots,
// the watch limit, symlinks, backpressure.
#include <gtest/gtest.h>
#include <sys/time.h>

#include <algorithm>
#include <memory>

#include "daemon/watcher.h"
#include "daemon_fakes.h"

namespace msit::daemon {
namespace {

using namespace msit::daemon::testing;

bool is_dump_name(std::string_view n) {
  return !n.ends_with(".summary.json") && (n.starts_with("Add.") || n.ends_with(".npy"));
}

class WatcherTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root = tmp.path + "/msit_ge_dump";  // a dump root: leftovers are only recovered inside one
    fs::create_directories(root);
    log.capture_to(&lines);
    opts.settle_ns = 100'000'000;  // 100 ms
    opts.rescan_interval_ns = 3'600'000'000'000;
    opts.backoff_cap_ns = 1'600'000'000;
    opts.incomplete_attempts = 4;
    opts.max_in_flight = 1'000'000;
  }
  void make(std::vector<std::string> roots = {}) {
    if (roots.empty()) roots = {root};
    w = std::make_unique<Watcher>(
        opts, roots, source, clock, probe, sink, log,
        CandidatePolicy{[](const std::string&, std::string_view n) { return is_dump_name(n); }, nullptr});
  }
  // Runs every job handed out so far through the fake compactor.
  void complete_all() {
    std::vector<JobResult> results;
    for (const Job& j : sink.jobs) {
      ++compacted[j.path];
      results.push_back(fake_compact(j));
    }
    sink.jobs.clear();
    w->on_results(std::move(results));
  }
  // Events queued so far are delivered "now", then time passes and the timer fires.
  void step_ms(int64_t ms) {
    w->on_events();
    clock.advance_ms(ms);
    w->on_tick();
  }
  int log_count(std::string_view needle) const {
    return static_cast<int>(std::count_if(lines.begin(), lines.end(),
                                          [&](const std::string& l) { return l.find(needle) != std::string::npos; }));
  }
  JobResult result_for(const Job& j, JobStatus st, Error e = {}, bool transient = false) {
    JobResult r;
    r.path = j.path;
    r.seen = j.seen;
    r.status = st;
    r.error = std::move(e);
    r.transient = transient;
    return r;
  }

  TempDir tmp;
  std::string root;
  FakeSource source;
  FakeClock clock;
  FakeProbe probe;
  RecordingSink sink;
  Logger log{false};
  std::vector<std::string> lines;
  WatcherOptions opts;
  std::unique_ptr<Watcher> w;
  std::map<std::string, int> compacted;
};

// A full rescan walks the whole tree on the loop; a walk as long as the interval must not run
// back to back with the next one (the workers are fed between walks): the loop rests twice the
// walk's time after it, and keeps the plain interval after a quick walk.
TEST_F(WatcherTest, RescanRestsTwiceAsLongAsItsWalkTook) {
  opts.rescan_interval_ns = 5'000'000'000;
  write_file(root + "/graph.txt");  // looked at once per walk: the walk's cost, on the fake clock
  bool slow = false;
  w = std::make_unique<Watcher>(opts, std::vector<std::string>{root}, source, clock, probe, sink, log,
                                CandidatePolicy{[&](const std::string&, std::string_view n) {
                                                  if (slow) clock.advance_ms(3000);
                                                  return is_dump_name(n);
                                                },
                                                nullptr});
  ASSERT_TRUE(w->start());
  const uint64_t at_start = w->counters().rescans;
  slow = true;
  clock.advance_ms(5000);
  w->on_tick();  // t=5 s: a walk of 3 s, ending at t=8 s
  EXPECT_EQ(w->counters().rescans, at_start + 1);
  slow = false;
  clock.advance_ms(5000);
  w->on_tick();  // t=13 s: past start + interval (10 s), but not 6 s after the walk ended
  EXPECT_EQ(w->counters().rescans, at_start + 1);
  clock.advance_ms(1000);
  w->on_tick();  // t=14 s: rested twice the walk's time; this walk is instant
  EXPECT_EQ(w->counters().rescans, at_start + 2);
  clock.advance_ms(4999);
  w->on_tick();  // the plain interval again
  EXPECT_EQ(w->counters().rescans, at_start + 2);
  clock.advance_ms(1);
  w->on_tick();
  EXPECT_EQ(w->counters().rescans, at_start + 3);
}

TEST_F(WatcherTest, StartupScanClaimsExistingFilesAndRemovesStaleTemps) {
  fs::create_directories(root + "/0/graph/1");
  write_file(root + "/Add.a.1.1.1");
  write_file(root + "/0/graph/1/Add.b.1.1.1");
  write_file(root + "/0/graph.txt");  // not a dump
  // Temps of ours (name and content as we write them: docs/safety.md P5).
  const std::string summary_start = R"({"created_by":"msit-compact 0)";
  std::string stale = root + "/0/.msit-tmp.Add.x.summary.json.abc123";
  write_file(stale, summary_start);
  struct timeval old[2] = {{1000, 0}, {1000, 0}};
  ASSERT_EQ(::utimes(stale.c_str(), old), 0);
  std::string fresh_temp = root + "/.msit-tmp.y.summary.json.abc123";
  make();
  // Newer than the watcher, but found by the start-up scan: the service holds the tree's lock,
  // so it is a dead predecessor's (killed within the last seconds), not a live write.
  write_file(fresh_temp, summary_start);
  w->start();
  ASSERT_EQ(sink.jobs.size(), 2u);
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_FALSE(fs::exists(fresh_temp));
  EXPECT_EQ(w->counters().temp_cleaned, 2u);
  // After start-up, a new temp is ours (in flight): a rescan leaves it alone.
  std::string ours = root + "/.msit-tmp.z.summary.json.abc123";
  write_file(ours, summary_start);
  w->tree().scan_all();
  EXPECT_TRUE(fs::exists(ours));
  EXPECT_EQ(source.watches.size(), 4u);  // root, 0, 0/graph, 0/graph/1
  complete_all();
  EXPECT_EQ(w->pending(), 0u);
  EXPECT_EQ(w->counters().files_compacted, 2u);
}

TEST_F(WatcherTest, ClaimsOnlyAfterSettleAndRestartsSettleOnNewEvents) {
  make();
  w->start();
  write_file(root + "/Add.a.1.1.1");
  source.inject(root, IN_CLOSE_WRITE, "Add.a.1.1.1");
  step_ms(60);
  EXPECT_TRUE(sink.jobs.empty());
  source.inject(root, IN_CLOSE_WRITE, "Add.a.1.1.1");  // written again
  step_ms(60);
  EXPECT_TRUE(sink.jobs.empty()) << "settle restarts with each event";
  step_ms(50);
  ASSERT_EQ(sink.jobs.size(), 1u);
  EXPECT_GT(sink.jobs[0].event_ns, 0);
  complete_all();
  EXPECT_EQ(w->counters().latency.count(), 1u);
}

TEST_F(WatcherTest, NonCandidatesAndTempNamesAreIgnored) {
  make();
  w->start();
  write_file(root + "/notes.txt");
  write_file(root + "/.msit-tmp.Add.a");
  source.inject(root, IN_CLOSE_WRITE, "notes.txt");
  source.inject(root, IN_MOVED_TO, ".msit-tmp.Add.a");
  step_ms(500);
  EXPECT_TRUE(sink.jobs.empty());
}

TEST_F(WatcherTest, BusyWriterIsNeverClaimed) {
  make();
  w->start();
  std::string f = root + "/Add.a.1.1.1";
  write_file(f);
  probe.writer[f] = WriterState::kBusy;
  source.inject(root, IN_CLOSE_WRITE, "Add.a.1.1.1");
  for (int i = 0; i < 40; ++i) step_ms(100);
  EXPECT_TRUE(sink.jobs.empty());
  EXPECT_EQ(w->pending(), 1u);
  probe.writer[f] = WriterState::kNone;
  for (int i = 0; i < 20 && sink.jobs.empty(); ++i) step_ms(100);
  EXPECT_EQ(sink.jobs.size(), 1u);
}

TEST_F(WatcherTest, WithoutLeasesSizeAndMtimeMustHoldForASettlePeriod) {
  make();
  w->start();
  std::string f = root + "/Add.a.1.1.1";
  write_file(f, "abc");
  probe.default_writer = WriterState::kUnknown;
  source.inject(root, IN_CLOSE_WRITE, "Add.a.1.1.1");
  step_ms(100);  // first observation
  EXPECT_TRUE(sink.jobs.empty());
  write_file(f, "abcdef");  // still growing: observation restarts
  step_ms(100);
  EXPECT_TRUE(sink.jobs.empty());
  step_ms(100);
  EXPECT_EQ(sink.jobs.size(), 1u);
}

TEST_F(WatcherTest, IncompleteFileBacksOffThenIsReportedOnceAndLeftAlone) {
  make();
  w->start();
  std::string f = root + "/Add.a.1.1.1";
  write_file(f);
  source.inject(root, IN_CLOSE_WRITE, "Add.a.1.1.1");
  int attempts = 0;
  std::vector<int64_t> claim_times;
  for (int i = 0; i < 200; ++i) {
    step_ms(50);
    if (sink.jobs.empty()) continue;
    ++attempts;
    claim_times.push_back(clock.now_ns());
    std::vector<JobResult> rs;
    for (auto& j : sink.jobs)
      rs.push_back(result_for(j, JobStatus::kIncomplete, make_error(j.path, Stage::kIncomplete, "short")));
    sink.jobs.clear();
    w->on_results(std::move(rs));
  }
  EXPECT_EQ(attempts, 4);
  ASSERT_GE(claim_times.size(), 3u);
  EXPECT_GT(claim_times[2] - claim_times[1], claim_times[1] - claim_times[0]) << "backoff grows";
  EXPECT_EQ(log_count("never completed"), 1);
  EXPECT_EQ(w->counters().incomplete_given_up, 1u);
  EXPECT_TRUE(fs::exists(f));
  // A rescan leaves the unchanged file alone; a new event (the writer came back) re-arms it.
  w->tree().scan_all();
  step_ms(500);
  EXPECT_TRUE(sink.jobs.empty());
  source.inject(root, IN_CLOSE_WRITE, "Add.a.1.1.1");
  step_ms(150);
  EXPECT_EQ(sink.jobs.size(), 1u);
}

TEST_F(WatcherTest, TransientFailureIsLoggedOnceAndRetriedUntilItPasses) {
  make();
  w->start();
  std::string f = root + "/Add.a.1.1.1";
  write_file(f);
  source.inject(root, IN_CLOSE_WRITE, "Add.a.1.1.1");
  int failures = 0;
  for (int i = 0; i < 400 && fs::exists(f); ++i) {
    step_ms(50);
    if (sink.jobs.empty()) continue;
    if (failures < 5) {
      ++failures;
      std::vector<JobResult> rs;
      for (auto& j : sink.jobs)
        rs.push_back(result_for(j, JobStatus::kFailed,
                                make_sys_error(j.path + ".summary.json", Stage::kWrite, "temp", ENOSPC), true));
      sink.jobs.clear();
      w->on_results(std::move(rs));
    } else {
      complete_all();
    }
  }
  EXPECT_EQ(failures, 5);
  EXPECT_FALSE(fs::exists(f));
  EXPECT_EQ(log_count("No space left on device"), 1) << "one error line per file";
  EXPECT_EQ(log_count("compacted after earlier failures"), 1);
  const Counters& c = w->counters();
  EXPECT_EQ(c.errors, 5u);
  EXPECT_EQ(c.files_failed, 1u);
  EXPECT_EQ(c.files_compacted, 1u);
}

TEST_F(WatcherTest, CorruptFileIsReportedOnceAndNotRetried) {
  make();
  w->start();
  std::string f = root + "/Add.a.1.1.1";
  write_file(f);
  source.inject(root, IN_CLOSE_WRITE, "Add.a.1.1.1");
  step_ms(150);
  ASSERT_EQ(sink.jobs.size(), 1u);
  std::vector<JobResult> rs{result_for(sink.jobs[0], JobStatus::kFailed, make_error(f, Stage::kHeader, "bad"))};
  sink.jobs.clear();
  w->on_results(std::move(rs));
  w->tree().scan_all();
  for (int i = 0; i < 20; ++i) step_ms(100);
  EXPECT_TRUE(sink.jobs.empty());
  EXPECT_EQ(log_count("bad"), 1);
  EXPECT_TRUE(fs::exists(f));
}

TEST_F(WatcherTest, BurstWithQueueOverflowCompactsEveryFileExactlyOnce) {
  make();
  w->start();
  const int n = 3000;
  for (int d = 0; d < 10; ++d) fs::create_directories(root + "/" + std::to_string(d));
  for (int d = 0; d < 10; ++d) source.inject(root, IN_CREATE | IN_ISDIR, std::to_string(d));
  step_ms(1);
  for (int i = 0; i < n; ++i) {
    std::string dir = root + "/" + std::to_string(i % 10);
    std::string name = "Add.op" + std::to_string(i) + ".1.1.1";
    write_file(dir + "/" + name);
    if (i < n / 3) source.inject(dir, IN_CLOSE_WRITE, name);  // the rest were lost...
    if (i % 500 == 0) {
      step_ms(20);
      complete_all();
    }
  }
  source.overflow();  // ...and the kernel says so
  for (int i = 0; i < 50; ++i) {
    step_ms(50);
    complete_all();
  }
  EXPECT_EQ(w->counters().overflows, 1u);
  EXPECT_EQ(static_cast<int>(compacted.size()), n);
  for (auto& [path, times] : compacted) EXPECT_EQ(times, 1) << path;
  EXPECT_EQ(w->counters().files_compacted, static_cast<uint64_t>(n));
  EXPECT_EQ(w->pending(), 0u);
}

TEST_F(WatcherTest, NewDirectoryIsWatchedFirstThenScanned) {
  make();
  w->start();
  fs::create_directories(root + "/rank0/step1");
  write_file(root + "/rank0/step1/Add.a.1.1.1");  // written before the watch existed
  source.inject(root, IN_CREATE | IN_ISDIR, "rank0");
  step_ms(1);
  EXPECT_GE(source.wd_of(root + "/rank0/step1"), 0);
  step_ms(150);
  EXPECT_EQ(sink.jobs.size(), 1u);
}

TEST_F(WatcherTest, SymlinksAreNeverFollowedOrClaimed) {
  TempDir outside;
  fs::create_directories(outside.path + "/sub");
  write_file(outside.path + "/Add.out.1.1.1");
  write_file(outside.path + "/sub/Add.deep.1.1.1");
  fs::create_directories(root + "/real");
  write_file(root + "/real/Add.in.1.1.1");
  fs::create_directory_symlink(outside.path, root + "/link_out");
  fs::create_directory_symlink(root + "/real", root + "/link_in");
  fs::create_symlink(outside.path + "/Add.out.1.1.1", root + "/Add.filelink.1.1.1");
  make();
  w->start();
  source.inject(root, IN_CREATE, "link_out");  // symlink creation: no IN_ISDIR
  source.inject(root, IN_CLOSE_WRITE, "Add.filelink.1.1.1");
  step_ms(150);
  ASSERT_EQ(sink.jobs.size(), 1u);
  EXPECT_EQ(sink.jobs[0].path, root + "/real/Add.in.1.1.1");
  for (auto& [wd, d] : source.watches) EXPECT_EQ(d.find("link"), std::string::npos) << d;
  EXPECT_TRUE(fs::exists(outside.path + "/Add.out.1.1.1"));
}

TEST_F(WatcherTest, DeletedDirectoryDropsWatchesAndRecreatedOneIsWatched) {
  fs::create_directories(root + "/a/b");
  make();
  w->start();
  size_t before = source.watches.size();
  fs::remove_all(root + "/a");
  source.inject(root, IN_DELETE | IN_ISDIR, "a");
  step_ms(1);
  EXPECT_EQ(w->counters().watches, before - 2);
  fs::create_directories(root + "/a/b");
  write_file(root + "/a/b/Add.new.1.1.1");
  source.inject(root, IN_CREATE | IN_ISDIR, "a");
  step_ms(150);
  EXPECT_EQ(w->counters().watches, before);
  EXPECT_EQ(sink.jobs.size(), 1u);
}

TEST_F(WatcherTest, RootDeletedAndRecreatedIsWatchedAgain) {
  make();
  w->start();
  int root_wd = source.wd_of(root);
  fs::remove_all(root);
  source.queued.push_back(FsEvent{root_wd, IN_DELETE_SELF, ""});
  source.queued.push_back(FsEvent{root_wd, IN_IGNORED, ""});
  step_ms(1);
  EXPECT_EQ(w->counters().missing_roots, 1u);
  fs::create_directories(root + "/x");
  write_file(root + "/x/Add.back.1.1.1");
  step_ms(300);  // root poll
  EXPECT_EQ(w->counters().missing_roots, 0u);
  step_ms(10);
  EXPECT_EQ(sink.jobs.size(), 1u);
}

TEST_F(WatcherTest, RootThatDoesNotExistYetIsWaitedFor) {
  std::string later = tmp.path + "/later/msit_ge_dump";
  make({later});
  w->start();
  EXPECT_EQ(w->counters().missing_roots, 1u);
  EXPECT_EQ(log_count("waiting for it to appear"), 1);
  step_ms(300);
  fs::create_directories(later + "/0");
  write_file(later + "/0/Add.a.1.1.1");
  step_ms(300);
  EXPECT_EQ(w->counters().missing_roots, 0u);
  step_ms(10);
  EXPECT_EQ(sink.jobs.size(), 1u);
}

TEST_F(WatcherTest, WatchLimitWarnsOnceAndRescansUnwatchedDirectories) {
  fs::create_directories(root + "/a");
  fs::create_directories(root + "/b");
  source.limit = 1;  // only the root gets a watch
  opts.unwatched_rescan_ns = 1'000'000'000;
  make();
  w->start();
  EXPECT_EQ(log_count("fs.inotify.max_user_watches"), 1);
  EXPECT_EQ(w->counters().unwatched_dirs, 2u);
  write_file(root + "/a/Add.x.1.1.1");  // no event can arrive for it
  write_file(root + "/b/Add.y.1.1.1");
  for (int i = 0; i < 12; ++i) step_ms(100);
  EXPECT_EQ(sink.jobs.size(), 2u);
  EXPECT_EQ(log_count("fs.inotify.max_user_watches"), 1);
}

TEST_F(WatcherTest, InFlightIsBoundedAndStopClaimingHandsOutNothing) {
  opts.max_in_flight = 8;
  for (int i = 0; i < 100; ++i) write_file(root + "/Add.op" + std::to_string(i) + ".1.1.1");
  make();
  w->start();
  EXPECT_EQ(sink.jobs.size(), 8u);
  EXPECT_EQ(w->pending(), 92u);
  complete_all();
  EXPECT_EQ(sink.jobs.size(), 8u);
  w->stop_claiming();
  complete_all();
  step_ms(1000);
  EXPECT_TRUE(sink.jobs.empty());
  EXPECT_EQ(w->in_flight(), 0u);
}

TEST_F(WatcherTest, RewrittenWhileInFlightIsLookedAtAgain) {
  make();
  w->start();
  std::string f = root + "/Add.a.1.1.1";
  write_file(f);
  source.inject(root, IN_CLOSE_WRITE, "Add.a.1.1.1");
  step_ms(150);
  ASSERT_EQ(sink.jobs.size(), 1u);
  Job first = sink.jobs[0];
  sink.jobs.clear();
  source.inject(root, IN_CLOSE_WRITE, "Add.a.1.1.1");  // a new file under the same name
  step_ms(1);
  w->on_results({result_for(first, JobStatus::kFailed, make_error(f, Stage::kUnlink, "changed"), true)});
  step_ms(150);
  EXPECT_EQ(sink.jobs.size(), 1u);
}

}  // namespace
}  // namespace msit::daemon
