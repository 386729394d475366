// Worker threads that run the compactor on batches of claimed files and hand results back.
// The watcher bounds how many jobs are in flight, so the queue itself never grows unbounded.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "daemon/jobs.h"

namespace msit::daemon {

class WorkerPool final : public JobSink {
 public:
  // notify() is called from a worker thread after results were added (e.g. uv_async_send).
  // A batch holds at most batch_max files and batch_bytes of raw data (at least one file):
  // small files share directory fsyncs, large ones are not held back behind each other.
  WorkerPool(unsigned threads, size_t batch_max, Compactor& compactor, Clock& clock, std::function<void()> notify,
             uint64_t batch_bytes = 64ull << 20);
  ~WorkerPool() override;

  void submit(std::vector<Job> jobs) override;
  std::vector<JobResult> take_results();
  // Running batches finish; queued jobs come back as kCancelled. Joins the threads.
  void shutdown();

 private:
  void run();

  size_t batch_max_;
  uint64_t batch_bytes_;
  Compactor& compactor_;
  Clock& clock_;
  std::function<void()> notify_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Job> queue_;
  std::vector<JobResult> results_;
  bool stop_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace msit::daemon
