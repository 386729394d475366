// A stop during the start-up scan (docs/daemon.md "Stopping"): Watcher::start() ends the scan
// between two files, hands nothing to the workers and claims nothing afterwards; the files it
// did not reach are found by the next start.
#include <gtest/gtest.h>

#include <memory>

#include "daemon/watcher.h"
#include "daemon_fakes.h"

namespace msit::daemon {
namespace {

using namespace msit::daemon::testing;

class ScanStopTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root = tmp.path + "/msit_ge_dump";
    for (int d = 0; d < 4; ++d) {
      fs::create_directories(root + "/" + std::to_string(d));
      for (int i = 0; i < 5; ++i) write_file(root + "/" + std::to_string(d) + "/Add.a" + std::to_string(i) + ".1.1.1");
    }
    opts.settle_ns = 100'000'000;
    opts.rescan_interval_ns = 3'600'000'000'000;
    opts.max_in_flight = 1'000'000;
  }
  std::unique_ptr<Watcher> make() {
    return std::make_unique<Watcher>(
        opts, std::vector<std::string>{root}, source, clock, probe, sink, log,
        CandidatePolicy{[](const std::string&, std::string_view n) { return n.starts_with("Add."); }, nullptr});
  }

  static constexpr size_t kFiles = 20;
  TempDir tmp;
  std::string root;
  FakeSource source;
  FakeClock clock;
  FakeProbe probe;
  RecordingSink sink;
  Logger log{false};
  WatcherOptions opts;
};

TEST_F(ScanStopTest, StopEndsTheScanBetweenFilesAndNothingIsClaimed) {
  std::unique_ptr<Watcher> w = make();
  ASSERT_TRUE(w->attach_roots());
  // The signal arrives while the third file is handled: the scan ends before the next entry.
  EXPECT_FALSE(w->start([&] { return w->pending() >= 3; }));
  EXPECT_EQ(w->pending(), 3u) << "the scan went on after the stop";
  EXPECT_TRUE(sink.jobs.empty()) << "a stopping daemon handed files to its workers";
  clock.advance_ms(1000);
  w->on_tick();  // a tick that still comes (the loop closing) claims nothing either
  EXPECT_TRUE(sink.jobs.empty());
  for (int d = 0; d < 4; ++d)
    for (int i = 0; i < 5; ++i)
      EXPECT_TRUE(fs::exists(root + "/" + std::to_string(d) + "/Add.a" + std::to_string(i) + ".1.1.1"));

  // The next start (a new watcher) finds and claims every file.
  RecordingSink next_sink;
  Watcher next(opts, {root}, source, clock, probe, next_sink, log,
               CandidatePolicy{[](const std::string&, std::string_view n) { return n.starts_with("Add."); }, nullptr});
  ASSERT_TRUE(next.attach_roots());
  EXPECT_TRUE(next.start([] { return false; }));
  EXPECT_EQ(next_sink.jobs.size(), kFiles);
}

TEST_F(ScanStopTest, AStopBeforeTheScanFindsNothing) {
  std::unique_ptr<Watcher> w = make();
  ASSERT_TRUE(w->attach_roots());
  EXPECT_FALSE(w->start([] { return true; }));
  EXPECT_EQ(w->pending(), 0u);
  EXPECT_TRUE(sink.jobs.empty());
}

TEST_F(ScanStopTest, WithoutAStopTheScanRunsToItsEnd) {
  std::unique_ptr<Watcher> w = make();
  ASSERT_TRUE(w->attach_roots());
  EXPECT_TRUE(w->start());
  EXPECT_EQ(sink.jobs.size(), kFiles);
}

}  // namespace
}  // namespace msit::daemon
