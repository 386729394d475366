// Worker threads that run the compactor on batches of claimed files and hand results back.
#include "daemon/work_queue.h"

namespace msit::daemon {

WorkerPool::WorkerPool(unsigned threads, size_t batch_max, Compactor& compactor, Clock& clock,
                       std::function<void()> notify, uint64_t batch_bytes)
    : batch_max_(batch_max == 0 ? 1 : batch_max), batch_bytes_(batch_bytes), compactor_(compactor), clock_(clock),
      notify_(std::move(notify)) {
  if (threads == 0) threads = 1;
  for (unsigned i = 0; i < threads; ++i) threads_.emplace_back([this] { run(); });
}

WorkerPool::~WorkerPool() { shutdown(); }

void WorkerPool::submit(std::vector<Job> jobs) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (Job& j : jobs) queue_.push_back(std::move(j));
  }
  cv_.notify_all();
}

std::vector<JobResult> WorkerPool::take_results() {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<JobResult> out;
  out.swap(results_);
  return out;
}

void WorkerPool::shutdown() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stop_ && threads_.empty()) return;
    stop_ = true;
    for (Job& j : queue_) {
      JobResult r;
      r.path = std::move(j.path);
      r.status = JobStatus::kCancelled;
      results_.push_back(std::move(r));
    }
    queue_.clear();
  }
  cv_.notify_all();
  for (auto& t : threads_) t.join();
  threads_.clear();
}

void WorkerPool::run() {
  for (;;) {
    std::vector<Job> batch;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [this] { return stop_ || !queue_.empty(); });
      if (stop_) return;
      // Take what is there (up to batch_max): a burst shares its directory fsyncs.
      uint64_t bytes = 0;
      while (!queue_.empty() && batch.size() < batch_max_ &&
             (batch.empty() || bytes + queue_.front().seen.size <= batch_bytes_)) {
        bytes += queue_.front().seen.size;
        batch.push_back(std::move(queue_.front()));
        queue_.pop_front();
      }
    }
    const int64_t started = clock_.now_ns();
    std::vector<JobResult> results = compactor_.run_batch(batch);
    int64_t now = clock_.now_ns();
    for (JobResult& r : results) {
      r.started_ns = started;
      r.done_ns = now;
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (JobResult& r : results) results_.push_back(std::move(r));
    }
    if (notify_) notify_();
  }
}

}  // namespace msit::daemon
