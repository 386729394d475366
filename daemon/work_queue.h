// Worker threads that run the compactor on batches of claimed files and hand results back.
// The watcher bounds how many jobs are in flight, so the queue itself never grows unbounded.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "common/base/stage_thread.h"

#include "daemon/jobs.h"

namespace msit::daemon {

class WorkerPool final : public JobSink {
 public:
  // notify() is called from a worker thread after results were added (e.g. uv_async_send).
  // A batch holds at most batch_max files and batch_bytes of raw data (at least one file):
  // small files share directory fsyncs, large ones are not held back behind each other.
  // A burst of more than split_bytes is shared out between the workers idle when it is taken
  // (each takes its part, at least split_bytes), so that one worker does not summarise it all
  // while another waits.
  WorkerPool(unsigned threads, size_t batch_max, Compactor& compactor, Clock& clock, std::function<void()> notify,
             uint64_t batch_bytes = 64ull << 20, uint64_t split_bytes = 8ull << 20);
  ~WorkerPool() override;

  void submit(std::vector<Job> jobs) override;
  std::vector<JobResult> take_results();
  // Workers waiting for a job (tests wait on it instead of sleeping).
  size_t idle_workers();
  // Running batches finish; queued jobs come back as kCancelled. Joins the threads.
  void shutdown();

 private:
  void run();
  // The next batch, taken from the queue's front (mu_ held, queue not empty).
  std::vector<Job> take_batch();

  size_t batch_max_;
  uint64_t batch_bytes_;
  uint64_t split_bytes_;
  Compactor& compactor_;
  Clock& clock_;
  std::function<void()> notify_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Job> queue_;
  uint64_t queued_bytes_ = 0;  // raw bytes of the jobs in queue_
  size_t idle_ = 0;            // workers waiting in run()
  std::vector<JobResult> results_;
  bool stop_ = false;
  std::vector<std::unique_ptr<StageThread>> threads_;  // each runs run() until shutdown()
};

}  // namespace msit::daemon
