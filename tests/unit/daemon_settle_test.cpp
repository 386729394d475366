// The first look after a close/rename event (docs/safety.md K1-K3), driven by a fake clock
// and probe: a file a read lease proves writer-free is claimed at the first look, a file
// with a writer never is, and without a lease the full settle stability window still holds.
// Also the latency stages of the status JSON (daemon/counters.h).
#include <gtest/gtest.h>

#include <memory>

#include <nlohmann/json.hpp>

#include "daemon/watcher.h"
#include "daemon_fakes.h"

namespace msit::daemon {
namespace {

using namespace msit::daemon::testing;

constexpr const char* kName = "Add.a.1.1.1";

class SettleTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root = tmp.path + "/msit_ge_dump";
    fs::create_directories(root);
    file = root + "/" + kName;
    log.capture_to(&lines);
    opts.settle_ns = 200'000'000;     // the default settle
    opts.first_look_ns = 50'000'000;  // what the service sets with it
    opts.rescan_interval_ns = 3'600'000'000'000;
    opts.backoff_cap_ns = 1'600'000'000;
    opts.max_in_flight = 1'000'000;
    w = std::make_unique<Watcher>(opts, std::vector<std::string>{root}, source, clock, probe, sink, log,
                                  CandidatePolicy{[](const std::string&, std::string_view n) {
                                                    return n.starts_with("Add.") && !n.ends_with(".json");
                                                  },
                                                  nullptr});
    w->start();
  }
  // Events queued so far are delivered "now", then time passes and the timer fires.
  void step_ms(int64_t ms) {
    w->on_events();
    clock.advance_ms(ms);
    w->on_tick();
  }
  void close_event() {
    source.inject(root, IN_CLOSE_WRITE, kName);
    w->on_events();
  }
  // Steps in 1 ms until a job is handed out or `limit_ms` passed; returns the time taken.
  int64_t ms_until_claimed(int64_t limit_ms) {
    for (int64_t t = 1; t <= limit_ms; ++t) {
      step_ms(1);
      if (!sink.jobs.empty()) return t;
    }
    return -1;
  }

  TempDir tmp;
  std::string root, file;
  FakeSource source;
  FakeClock clock;
  FakeProbe probe;
  RecordingSink sink;
  Logger log{false};
  std::vector<std::string> lines;
  WatcherOptions opts;
  std::unique_ptr<Watcher> w;
};

TEST_F(SettleTest, LeaseProvenCloseIsClaimedAtTheFirstLookNotAfterTheFullSettle) {
  write_file(file);
  close_event();
  EXPECT_EQ(ms_until_claimed(1000), 50);
  EXPECT_EQ(w->next_due_ns(), INT64_MAX) << "nothing else is waiting";
}

TEST_F(SettleTest, AFileWithAWriterIsNeverClaimedEarly) {
  write_file(file);
  probe.writer[file] = WriterState::kBusy;  // the lease is refused: someone has it open for writing
  close_event();                            // e.g. numpy's open_memmap: header closed, mapping still writable
  EXPECT_EQ(ms_until_claimed(5000), -1);
  EXPECT_EQ(w->pending(), 1u);
  // The writer closes for good: a close event, then the first look claims it.
  probe.writer[file] = WriterState::kNone;
  close_event();
  EXPECT_EQ(ms_until_claimed(1000), 50);
}

TEST_F(SettleTest, AWriterThatReopensBeforeTheFirstLookKeepsItsFile) {
  write_file(file);
  close_event();
  step_ms(30);
  probe.writer[file] = WriterState::kBusy;  // reopened for writing 30 ms after its close
  EXPECT_EQ(ms_until_claimed(2000), -1);
  // Busy files are looked at again after the full settle (with backoff), never sooner.
  probe.writer[file] = WriterState::kNone;
  int64_t t = ms_until_claimed(2000);
  EXPECT_GT(t, 0);
}

TEST_F(SettleTest, BusyAtTheFirstLookIsLookedAtAgainOnlyAfterTheFullSettle) {
  write_file(file);
  probe.writer[file] = WriterState::kBusy;
  close_event();
  step_ms(50);  // first look: busy
  ASSERT_TRUE(sink.jobs.empty());
  probe.writer[file] = WriterState::kNone;  // the writer left without a close event we saw
  EXPECT_EQ(ms_until_claimed(1000), 200);
}

TEST_F(SettleTest, WithoutALeaseSizeAndMtimeMustStillHoldForTheFullSettle) {
  for (WriterState by : {WriterState::kNoneByProc, WriterState::kUnknown}) {
    SCOPED_TRACE(static_cast<int>(by));
    sink.jobs.clear();
    write_file(file);
    probe.writer[file] = by;
    close_event();
    // First look at 50 ms starts the window; the claim comes a whole settle later.
    EXPECT_EQ(ms_until_claimed(1000), 250);
    ASSERT_EQ(sink.jobs.size(), 1u);
    EXPECT_EQ(sink.jobs[0].keep_raw, by == WriterState::kUnknown) << "unknown writer: the raw file is kept";
    std::vector<JobResult> results{fake_compact(sink.jobs[0])};
    sink.jobs.clear();
    w->on_results(std::move(results));
  }
}

TEST_F(SettleTest, ANewEventRestartsTheLeaselessStabilityWindow) {
  write_file(file, "abc");
  probe.writer[file] = WriterState::kNoneByProc;
  close_event();
  step_ms(50);  // first look: the window starts
  step_ms(150);
  // Rewritten with the same size within the same second's mtime granularity: only the event
  // tells. The window observed before it must not count.
  write_file(file, "xyz");
  close_event();
  EXPECT_EQ(ms_until_claimed(1000), 250);
}

TEST_F(SettleTest, LatencyStagesAddUpToTheTotalAndAreInTheStatusJson) {
  write_file(file);
  close_event();
  ASSERT_EQ(ms_until_claimed(1000), 50);
  Job j = sink.jobs[0];
  sink.jobs.clear();
  JobResult r = fake_compact(j);
  // Worker stamps: taken 10 ms after the claim, summarised in 20, durable 5 ms later, unlinked in 1.
  r.started_ns = clock.now_ns() + 10'000'000;
  r.prepared_ns = r.started_ns + 20'000'000;
  r.durable_ns = r.prepared_ns + 5'000'000;
  r.done_ns = r.durable_ns + 1'000'000;
  w->on_results({r});
  const Counters& c = w->counters();
  ASSERT_EQ(c.latency.count(), 1u);
  // Percentiles are the upper edges of 1 ms buckets.
  EXPECT_EQ(c.latency.percentile_ms(50), 87);  // 50 + 10 + 20 + 5 + 1 (+1 edge)
  auto stage = [&](LatencyStage s) { return c.stages[static_cast<size_t>(s)].percentile_ms(50); };
  EXPECT_EQ(stage(LatencyStage::kSettle), 51);
  EXPECT_EQ(stage(LatencyStage::kDispatch), 1);
  EXPECT_EQ(stage(LatencyStage::kQueue), 11);
  EXPECT_EQ(stage(LatencyStage::kSummarise), 21);
  EXPECT_EQ(stage(LatencyStage::kCommit), 6);
  EXPECT_EQ(stage(LatencyStage::kUnlink), 2);
  nlohmann::json j2 = c.to_json(1, "running");
  ASSERT_TRUE(j2.contains("latency_stages_ms"));
  for (const char* name : {"settle", "dispatch", "queue", "summarise", "commit", "unlink"})
    EXPECT_TRUE(j2["latency_stages_ms"].contains(name)) << name;
  EXPECT_EQ(j2["latency_stages_ms"]["summarise"]["max"], 20.0);
}

TEST_F(SettleTest, StampsNotTakenCountTowardsTheNextStage) {
  write_file(file);
  close_event();
  ASSERT_EQ(ms_until_claimed(1000), 50);
  JobResult r = fake_compact(sink.jobs[0]);
  sink.jobs.clear();
  r.done_ns = clock.now_ns() + 30'000'000;  // a compactor that stamps nothing but the end
  w->on_results({r});
  const Counters& c = w->counters();
  EXPECT_EQ(c.stages[static_cast<size_t>(LatencyStage::kUnlink)].max_ms(), 30.0);
  EXPECT_EQ(c.stages[static_cast<size_t>(LatencyStage::kQueue)].max_ms(), 0.0);
}

}  // namespace
}  // namespace msit::daemon
