// StageThread: tasks run once each, in submission order, on one thread that is not the caller's;
// Status and exceptions come back through drain(); submit() waits for room; the destructor runs
// what was queued and joins; a stage loop stops when its owner says so.
#include "common/base/stage_thread.h"

#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

namespace msit {
namespace {

TEST(StageThread, RunsTasksInSubmissionOrderOnItsOwnThread) {
  StageThread t(4);
  std::vector<int> seen;  // only the stage thread writes it
  std::set<std::thread::id> ids;
  for (int i = 0; i < 1000; ++i) {
    t.submit([&, i] {
      seen.push_back(i);
      ids.insert(std::this_thread::get_id());
      return ok_status();
    });
  }
  ASSERT_TRUE(t.drain().ok());
  ASSERT_EQ(seen.size(), 1000u);
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(seen[i], i);
  ASSERT_EQ(ids.size(), 1u);
  EXPECT_NE(*ids.begin(), std::this_thread::get_id());
}

TEST(StageThread, DrainReturnsTheFirstErrorOnceAndLaterTasksStillRun) {
  StageThread t;
  std::atomic<int> ran{0};
  t.submit([&] { return ran++, ok_status(); });
  t.submit([&] { return ran++, Status(make_error("a.bin", Stage::kWrite, "first")); });
  t.submit([&] { return ran++, Status(make_error("b.bin", Stage::kWrite, "second")); });
  t.submit([&] { return ran++, ok_status(); });
  Status st = t.drain();
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().path, "a.bin");
  EXPECT_EQ(st.error().message, "first");
  EXPECT_EQ(ran.load(), 4);
  EXPECT_TRUE(t.drain().ok());  // reported once
}

TEST(StageThread, AThrownExceptionIsRethrownByDrainNotOnTheStageThread) {
  StageThread t;
  std::atomic<int> after{0};
  t.submit([]() -> Status { throw std::runtime_error("boom"); });
  t.submit([&] { return after++, ok_status(); });
  EXPECT_THROW((void)t.drain(), std::runtime_error);
  EXPECT_EQ(after.load(), 1);  // the thread survived the throw
  t.submit([&] { return after++, ok_status(); });
  EXPECT_TRUE(t.drain().ok());
  EXPECT_EQ(after.load(), 2);
}

TEST(StageThread, SubmitWaitsForRoomWhenCapacityTasksAreQueued) {
  StageThread t(2);
  std::promise<void> gate;
  std::shared_future<void> open = gate.get_future().share();
  std::atomic<bool> first_done{false};
  t.submit([&] {
    open.wait();
    first_done = true;
    return ok_status();
  });
  // Once the first task is taken (it blocks on the gate) two more fill the queue.
  t.submit([] { return ok_status(); });
  t.submit([] { return ok_status(); });
  std::atomic<bool> room_after_first{false};
  std::thread submitter([&] {
    t.submit([] { return ok_status(); });  // no room until the first task returned
    room_after_first = first_done.load();
  });
  gate.set_value();
  submitter.join();
  EXPECT_TRUE(room_after_first.load());
  EXPECT_TRUE(t.drain().ok());
}

TEST(StageThread, SubmitFromManyThreadsRunsEveryTaskOnce) {
  StageThread t(3);
  std::vector<int> hits(400, 0);  // only the stage thread writes it
  std::vector<std::thread> submitters;
  for (int s = 0; s < 4; ++s) {
    submitters.emplace_back([&, s] {
      for (int i = 0; i < 100; ++i) t.submit([&, k = s * 100 + i] { return ++hits[k], ok_status(); });
    });
  }
  for (auto& th : submitters) th.join();
  ASSERT_TRUE(t.drain().ok());
  for (size_t k = 0; k < hits.size(); ++k) ASSERT_EQ(hits[k], 1) << k;
}

TEST(StageThread, DestructorRunsWhatWasQueuedThenJoins) {
  std::atomic<int> ran{0};
  {
    StageThread t(16);
    for (int i = 0; i < 10; ++i) t.submit([&] { return ran++, ok_status(); });
  }
  EXPECT_EQ(ran.load(), 10);
}

TEST(StageThread, AStageLoopRunsUntilItsOwnerStopsIt) {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<int> items;
  bool stop = false;
  std::vector<int> consumed;
  StageThread t;
  t.submit([&] {  // a consumer loop, as compact's committer or the daemon's workers
    std::unique_lock lock(mu);
    while (true) {
      cv.wait(lock, [&] { return stop || !items.empty(); });
      if (items.empty()) return ok_status();
      consumed.push_back(items.front());
      items.erase(items.begin());
      cv.notify_all();
    }
  });
  for (int i = 0; i < 50; ++i) {
    std::lock_guard lock(mu);
    items.push_back(i);
    cv.notify_all();
  }
  {
    std::lock_guard lock(mu);
    stop = true;
  }
  cv.notify_all();
  ASSERT_TRUE(t.drain().ok());
  ASSERT_EQ(consumed.size(), 50u);
  for (int i = 0; i < 50; ++i) EXPECT_EQ(consumed[i], i);
}

}  // namespace
}  // namespace msit
