// WorkerPool: every submitted job comes back once, batches respect their limits, and
// shutdown finishes running batches while queued jobs come back cancelled.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <set>
#include <thread>

#include "daemon/work_queue.h"
#include "daemon_fakes.h"

namespace msit::daemon {
namespace {

// What both fake compactors share: run_batch may be held (it waits while `hold`), and the test
// waits on `cv` for what run_batch recorded, with a timeout: no sleeps.
struct HeldCompactor : Compactor {
  // Blocks until done() holds (checked under mu) or 30 s have passed.
  template <class Done>
  bool wait_for(Done done) {
    std::unique_lock<std::mutex> lock(mu);
    return cv.wait_for(lock, std::chrono::seconds(30), done);
  }
  void release() {
    {
      std::lock_guard<std::mutex> lock(mu);
      hold = false;
    }
    cv.notify_all();
  }
  static JobResult done_result(const Job& j) {
    JobResult r;
    r.path = j.path;
    r.status = JobStatus::kDone;
    return r;
  }
  std::mutex mu;
  std::condition_variable cv;
  bool hold = false;
};

class CountingCompactor final : public HeldCompactor {
 public:
  std::vector<JobResult> run_batch(const std::vector<Job>& jobs) override {
    {
      std::unique_lock<std::mutex> lock(mu);
      ++entered;
      cv.notify_all();
      cv.wait(lock, [this] { return !hold; });
      max_batch = std::max(max_batch, jobs.size());
      ++batches;
    }
    std::vector<JobResult> out;
    for (const Job& j : jobs) out.push_back(done_result(j));
    return out;
  }
  // Blocks until n batches have reached run_batch (a held one waits there): no guessing.
  bool wait_entered(int n) {
    return wait_for([&] { return entered >= n; });
  }
  int entered = 0;
  size_t max_batch = 0;
  int batches = 0;
};

// The pool's notify callback wakes the test when results are ready (no polling by sleep).
class ResultWaiter {
 public:
  std::function<void()> callback() {
    return [this] {
      {
        std::lock_guard<std::mutex> lock(mu_);
        ++notified_;
      }
      cv_.notify_all();
    };
  }
  int notified() {
    std::lock_guard<std::mutex> lock(mu_);
    return notified_;
  }
  // Collects results until n have come back, or 30 s have passed (then fewer are returned).
  std::vector<JobResult> wait_for(WorkerPool& pool, size_t n) {
    std::vector<JobResult> all;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      const int seen = notified_;
      lock.unlock();
      for (auto& r : pool.take_results()) all.push_back(std::move(r));
      lock.lock();
      if (all.size() >= n) return all;
      if (!cv_.wait_until(lock, deadline, [&] { return notified_ != seen; })) return all;
    }
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int notified_ = 0;
};

TEST(WorkerPool, EveryJobComesBackExactlyOnce) {
  CountingCompactor c;
  testing::FakeClock clock;
  ResultWaiter waiter;
  WorkerPool pool(3, 16, c, clock, waiter.callback());
  for (int i = 0; i < 1000; ++i) pool.submit({Job{"f" + std::to_string(i), {}, 0}});
  auto results = waiter.wait_for(pool, 1000);
  ASSERT_EQ(results.size(), 1000u);
  std::set<std::string> paths;
  for (auto& r : results) {
    EXPECT_EQ(r.status, JobStatus::kDone);
    paths.insert(r.path);
  }
  EXPECT_EQ(paths.size(), 1000u);
  EXPECT_LE(c.max_batch, 16u);
  EXPECT_GT(waiter.notified(), 0);
}

TEST(WorkerPool, BatchesAreLimitedByBytes) {
  CountingCompactor c;
  c.hold = true;
  testing::FakeClock clock;
  ResultWaiter waiter;
  WorkerPool pool(1, 32, c, clock, waiter.callback(), 100);
  pool.submit({Job{"first", {}, 0}});  // taken alone while the compactor is held
  ASSERT_TRUE(c.wait_entered(1));
  std::vector<Job> big;
  for (int i = 0; i < 10; ++i) {
    Job j{"big" + std::to_string(i), {}, 0};
    j.seen.size = 60;
    big.push_back(j);
  }
  pool.submit(std::move(big));
  c.release();
  auto results = waiter.wait_for(pool, 11);
  EXPECT_EQ(results.size(), 11u);
  EXPECT_EQ(c.max_batch, 1u) << "two 60-byte files exceed the 100-byte batch";
}

// Records each batch's paths (order of arrival); with `hold`, every call waits in run_batch
// until release(), so a worker cannot come back for more while the test looks.
class RecordingCompactor final : public HeldCompactor {
 public:
  std::vector<JobResult> run_batch(const std::vector<Job>& jobs) override {
    std::vector<JobResult> out;
    std::unique_lock<std::mutex> lock(mu);
    batches.emplace_back();
    cv.notify_all();
    for (const Job& j : jobs) {
      batches.back().push_back(j.path);
      out.push_back(done_result(j));
    }
    cv.wait(lock, [this] { return !hold; });
    return out;
  }
  bool wait_batches(size_t n) {
    return wait_for([&] { return batches.size() >= n; });
  }
  std::vector<std::vector<std::string>> batches;
};

std::vector<Job> sized_jobs(const std::string& prefix, int n, uint64_t size) {
  std::vector<Job> jobs;
  for (int i = 0; i < n; ++i) {
    Job j{prefix + std::to_string(i), {}, 0};
    j.seen.size = size;
    jobs.push_back(j);
  }
  return jobs;
}

// Waits (bounded) until the pool's workers all wait for work.
bool wait_idle(WorkerPool& pool, size_t n) {
  for (auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
       std::chrono::steady_clock::now() < deadline;) {
    if (pool.idle_workers() == n) return true;
    std::this_thread::yield();
  }
  return false;
}

TEST(WorkerPool, BurstOfLargeFilesIsSharedBetweenIdleWorkers) {
  RecordingCompactor c;
  c.hold = true;  // the first worker cannot come back for a second share
  testing::FakeClock clock;
  ResultWaiter waiter;
  // 10 files of 60 bytes, batch cap 1000, split above 100: two idle workers take 300 each.
  WorkerPool pool(2, 32, c, clock, waiter.callback(), 1000, 100);
  ASSERT_TRUE(wait_idle(pool, 2));
  pool.submit(sized_jobs("big", 10, 60));
  EXPECT_TRUE(c.wait_batches(2)) << "the second idle worker took no share";
  c.release();
  auto results = waiter.wait_for(pool, 10);
  ASSERT_EQ(results.size(), 10u);
  std::lock_guard<std::mutex> lock(c.mu);
  ASSERT_EQ(c.batches.size(), 2u) << "one batch per idle worker";
  EXPECT_EQ(c.batches[0].size(), 5u);
  EXPECT_EQ(c.batches[1].size(), 5u);
}

TEST(WorkerPool, BurstOfSmallFilesStaysOneBatch) {
  RecordingCompactor c;
  testing::FakeClock clock;
  ResultWaiter waiter;
  // 10 files of 8 bytes (80, below the split threshold of 100): one batch, one commit.
  WorkerPool pool(2, 32, c, clock, waiter.callback(), 1000, 100);
  ASSERT_TRUE(wait_idle(pool, 2));
  pool.submit(sized_jobs("small", 10, 8));
  auto results = waiter.wait_for(pool, 10);
  ASSERT_EQ(results.size(), 10u);
  std::lock_guard<std::mutex> lock(c.mu);
  ASSERT_EQ(c.batches.size(), 1u);
  EXPECT_EQ(c.batches[0].size(), 10u);
}

TEST(WorkerPool, ShutdownFinishesRunningBatchAndCancelsQueuedJobs) {
  CountingCompactor c;
  c.hold = true;
  testing::FakeClock clock;
  WorkerPool pool(1, 1, c, clock, nullptr);
  for (int i = 0; i < 5; ++i) pool.submit({Job{"f" + std::to_string(i), {}, 0}});
  ASSERT_TRUE(c.wait_entered(1));  // the worker holds f0
  // Released once shutdown() has cancelled the queue: the cancelled results show up then.
  std::vector<JobResult> results;
  std::thread releaser([&] {
    for (auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
         results.empty() && std::chrono::steady_clock::now() < deadline;) {
      results = pool.take_results();
      std::this_thread::yield();
    }
    c.release();
  });
  pool.shutdown();
  releaser.join();
  for (auto& r : pool.take_results()) results.push_back(std::move(r));
  int done = 0, cancelled = 0;
  for (auto& r : results) (r.status == JobStatus::kDone ? done : cancelled)++;
  EXPECT_EQ(done, 1);
  EXPECT_EQ(cancelled, 4);
}

}  // namespace
}  // namespace msit::daemon
