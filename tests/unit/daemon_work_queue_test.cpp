// WorkerPool: every submitted job comes back once, batches respect their limits, and
// shutdown finishes running batches while queued jobs come back cancelled.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <set>
#include <thread>

#include "daemon/work_queue.h"
#include "daemon_fakes.h"

namespace msit::daemon {
namespace {

class CountingCompactor final : public Compactor {
 public:
  std::vector<JobResult> run_batch(const std::vector<Job>& jobs) override {
    {
      std::unique_lock<std::mutex> lock(mu);
      cv.wait(lock, [this] { return !hold; });
      max_batch = std::max(max_batch, jobs.size());
      ++batches;
    }
    std::vector<JobResult> out;
    for (const Job& j : jobs) {
      JobResult r;
      r.path = j.path;
      r.status = JobStatus::kDone;
      out.push_back(r);
    }
    return out;
  }
  void release() {
    {
      std::lock_guard<std::mutex> lock(mu);
      hold = false;
    }
    cv.notify_all();
  }
  std::mutex mu;
  std::condition_variable cv;
  bool hold = false;
  size_t max_batch = 0;
  int batches = 0;
};

std::vector<JobResult> wait_for(WorkerPool& pool, size_t n) {
  std::vector<JobResult> all;
  for (int i = 0; i < 2000 && all.size() < n; ++i) {
    for (auto& r : pool.take_results()) all.push_back(std::move(r));
    if (all.size() < n) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return all;
}

TEST(WorkerPool, EveryJobComesBackExactlyOnce) {
  CountingCompactor c;
  testing::FakeClock clock;
  std::atomic<int> notified{0};
  WorkerPool pool(3, 16, c, clock, [&] { ++notified; });
  for (int i = 0; i < 1000; ++i) pool.submit({Job{"f" + std::to_string(i), {}, 0}});
  auto results = wait_for(pool, 1000);
  ASSERT_EQ(results.size(), 1000u);
  std::set<std::string> paths;
  for (auto& r : results) {
    EXPECT_EQ(r.status, JobStatus::kDone);
    paths.insert(r.path);
  }
  EXPECT_EQ(paths.size(), 1000u);
  EXPECT_LE(c.max_batch, 16u);
  EXPECT_GT(notified.load(), 0);
}

TEST(WorkerPool, BatchesAreLimitedByBytes) {
  CountingCompactor c;
  c.hold = true;
  testing::FakeClock clock;
  WorkerPool pool(1, 32, c, clock, nullptr, 100);
  pool.submit({Job{"first", {}, 0}});  // taken alone while the compactor is held
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  std::vector<Job> big;
  for (int i = 0; i < 10; ++i) {
    Job j{"big" + std::to_string(i), {}, 0};
    j.seen.size = 60;
    big.push_back(j);
  }
  pool.submit(std::move(big));
  c.release();
  auto results = wait_for(pool, 11);
  EXPECT_EQ(results.size(), 11u);
  EXPECT_EQ(c.max_batch, 1u) << "two 60-byte files exceed the 100-byte batch";
}

TEST(WorkerPool, ShutdownFinishesRunningBatchAndCancelsQueuedJobs) {
  CountingCompactor c;
  c.hold = true;
  testing::FakeClock clock;
  WorkerPool pool(1, 1, c, clock, nullptr);
  for (int i = 0; i < 5; ++i) pool.submit({Job{"f" + std::to_string(i), {}, 0}});
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // worker holds f0
  std::thread releaser([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    c.release();
  });
  pool.shutdown();
  releaser.join();
  auto results = pool.take_results();
  int done = 0, cancelled = 0;
  for (auto& r : results) (r.status == JobStatus::kDone ? done : cancelled)++;
  EXPECT_EQ(done, 1);
  EXPECT_EQ(cancelled, 4);
}

}  // namespace
}  // namespace msit::daemon
