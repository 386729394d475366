// The watcher's hold policy (live divergence's --keep-raw-near-divergence): a held file is never
// claimed, not by ticks, rescans or new events, until release_held(); then it is claimed as usual.
#include <gtest/gtest.h>

#include <set>

#include "daemon/watcher.h"
#include "daemon_fakes.h"

namespace msit::daemon {
namespace {

using namespace msit::daemon::testing;

class LiveHoldTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root = tmp.path + "/msit_ge_dump";
    fs::create_directories(root);
    opts.settle_ns = 100'000'000;
    opts.rescan_interval_ns = 3'600'000'000'000;
    opts.backoff_cap_ns = 1'600'000'000;
    opts.max_in_flight = 1'000'000;
    CandidatePolicy p{[](const std::string&, std::string_view n) { return n.starts_with("Add."); }, nullptr};
    p.hold = [this](const std::string& path, uint64_t bytes) {
      asked.push_back(bytes);
      return held.count(path) != 0;
    };
    w = std::make_unique<Watcher>(opts, std::vector<std::string>{root}, source, clock, probe, sink, log, p);
  }
  void step_ms(int64_t ms) {
    w->on_events();
    clock.advance_ms(ms);
    w->on_tick();
  }

  TempDir tmp;
  std::string root;
  FakeSource source;
  FakeClock clock;
  FakeProbe probe;
  RecordingSink sink;
  Logger log{false};
  WatcherOptions opts;
  std::unique_ptr<Watcher> w;
  std::set<std::string> held;
  std::vector<uint64_t> asked;
};

TEST_F(LiveHoldTest, HeldFileIsClaimedOnlyAfterRelease) {
  std::string a = root + "/Add.a.1.1.1", b = root + "/Add.b.1.1.1";
  write_file(a);
  write_file(b);
  held.insert(a);
  w->start();
  ASSERT_EQ(sink.jobs.size(), 1u);  // b; a is complete but held
  EXPECT_EQ(sink.jobs[0].path, b);
  EXPECT_FALSE(asked.empty());
  sink.jobs.clear();
  step_ms(10'000);
  w->tree().scan_all();
  step_ms(10'000);
  EXPECT_TRUE(sink.jobs.empty()) << "ticks and rescans leave a held file alone";
  source.inject(root, IN_CLOSE_WRITE, "Add.a.1.1.1");  // written again: settles, then held again
  step_ms(500);
  EXPECT_TRUE(sink.jobs.empty());
  EXPECT_EQ(w->pending(), 1u);
  held.erase(a);
  w->release_held(a);
  step_ms(1);
  ASSERT_EQ(sink.jobs.size(), 1u);
  EXPECT_EQ(sink.jobs[0].path, a);
}

TEST_F(LiveHoldTest, ReleasingAFileThatIsNotHeldChangesNothing) {
  std::string a = root + "/Add.a.1.1.1";
  write_file(a);
  w->start();
  ASSERT_EQ(sink.jobs.size(), 1u);
  w->release_held(a);  // in flight: not a held file
  w->release_held(root + "/Add.unknown.1.1.1");
  step_ms(1);
  EXPECT_EQ(sink.jobs.size(), 1u);
}

}  // namespace
}  // namespace msit::daemon
