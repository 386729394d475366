// Fork-join on short-lived threads (common/base/run_workers.h).
#include "common/base/run_workers.h"

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

namespace msit {

unsigned worker_count(unsigned jobs, size_t tasks) {
  return std::max(1u, std::min<unsigned>(jobs, static_cast<unsigned>(std::min<size_t>(tasks, 1024))));
}

void run_workers(unsigned jobs, size_t tasks, const std::function<void()>& worker) {
  const unsigned t = worker_count(jobs, tasks);
  std::vector<std::thread> pool;
  for (unsigned k = 1; k < t; ++k) pool.emplace_back(worker);
  worker();
  for (auto& th : pool) th.join();
}

void run_indexed(unsigned jobs, size_t n, const std::function<void(size_t)>& fn) {
  std::atomic<size_t> next{0};
  run_workers(jobs, n, [&] {
    for (size_t i = next.fetch_add(1); i < n; i = next.fetch_add(1)) fn(i);
  });
}

}  // namespace msit
