// Fork-join on short-lived threads (common/base/run_workers.h).
#include "common/base/run_workers.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace msit {

unsigned worker_count(unsigned jobs, size_t tasks) {
  return std::max(1u, std::min<unsigned>(jobs, static_cast<unsigned>(std::min<size_t>(tasks, 1024))));
}

void run_workers(unsigned jobs, size_t tasks, const std::function<void()>& worker) {
  const unsigned t = worker_count(jobs, tasks);
  if (t == 1) return worker();
  // A worker that throws would end the process on its own thread: the first exception is kept
  // and rethrown here once every worker has returned.
  std::mutex mu;
  std::exception_ptr thrown;
  auto guarded = [&] {
    try {
      worker();
    } catch (...) {
      std::lock_guard lock(mu);
      if (!thrown) thrown = std::current_exception();
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(t - 1);
  for (unsigned k = 1; k < t; ++k) pool.emplace_back(guarded);
  guarded();
  for (auto& th : pool) th.join();
  if (thrown) std::rethrow_exception(thrown);
}

void run_indexed(unsigned jobs, size_t n, const std::function<void(size_t)>& fn) {
  std::atomic<size_t> next{0};
  run_workers(jobs, n, [&] {
    for (size_t i = next.fetch_add(1); i < n; i = next.fetch_add(1)) fn(i);
  });
}

}  // namespace msit
