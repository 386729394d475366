// run_workers() / run_indexed(): every task runs exactly once, on at most the threads asked for;
// a worker's exception reaches the caller after every worker has returned.
#include "common/base/run_workers.h"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

namespace msit {
namespace {

TEST(RunIndexed, EveryIndexExactlyOnce) {
  for (unsigned jobs : {0u, 1u, 3u, 8u}) {
    std::vector<std::atomic<int>> hits(1000);
    run_indexed(jobs, hits.size(), [&](size_t i) { hits[i].fetch_add(1); });
    for (size_t i = 0; i < hits.size(); ++i) ASSERT_EQ(hits[i].load(), 1) << "index " << i << " jobs " << jobs;
  }
}

TEST(RunIndexed, NothingToDoRunsNothing) {
  std::atomic<int> calls{0};
  run_indexed(4, 0, [&](size_t) { calls.fetch_add(1); });
  EXPECT_EQ(calls.load(), 0);
}

TEST(RunWorkers, ThreadCountIsBoundedByJobsAndTasksAndIncludesTheCaller) {
  std::mutex mu;
  std::set<std::thread::id> seen;
  std::atomic<int> workers{0};
  auto worker = [&] {
    workers.fetch_add(1);
    std::lock_guard<std::mutex> lock(mu);
    seen.insert(std::this_thread::get_id());
  };
  run_workers(8, 3, worker);  // three tasks: three workers, not eight
  EXPECT_EQ(workers.load(), 3);
  EXPECT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen.count(std::this_thread::get_id()), 1u);
  workers = 0;
  run_workers(0, 100, worker);  // jobs 0: the caller alone
  EXPECT_EQ(workers.load(), 1);
}

TEST(RunIndexed, AnExceptionReachesTheCallerAfterEveryCallReturned) {
  for (unsigned jobs : {1u, 4u}) {
    std::atomic<int> calls{0};
    EXPECT_THROW(run_indexed(jobs, 100,
                             [&](size_t i) {
                               calls.fetch_add(1);
                               if (i == 7) throw std::runtime_error("item 7");
                             }),
                 std::runtime_error);
    // The throwing worker stops; the others still take every item left (jobs 1: none are).
    EXPECT_EQ(calls.load(), jobs == 1 ? 8 : 100);
  }
}

}  // namespace
}  // namespace msit
