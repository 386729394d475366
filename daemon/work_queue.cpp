// Worker threads that run the compactor on batches of claimed files and hand results back.
#include "daemon/work_queue.h"

#include <algorithm>

namespace msit::daemon {

WorkerPool::WorkerPool(unsigned threads, size_t batch_max, Compactor& compactor, Clock& clock,
                       std::function<void()> notify, uint64_t batch_bytes, uint64_t split_bytes)
    : batch_max_(batch_max == 0 ? 1 : batch_max), batch_bytes_(batch_bytes), split_bytes_(split_bytes),
      compactor_(compactor), clock_(clock), notify_(std::move(notify)) {
  if (threads == 0) threads = 1;
  for (unsigned i = 0; i < threads; ++i) {
    threads_.push_back(std::make_unique<StageThread>());
    threads_.back()->submit([this] {
      run();
      return ok_status();
    });
  }
}

WorkerPool::~WorkerPool() { shutdown(); }

void WorkerPool::submit(std::vector<Job> jobs) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (Job& j : jobs) {
      queued_bytes_ += j.seen.size;
      queue_.push_back(std::move(j));
    }
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
    queued_bytes_ = 0;
  }
  cv_.notify_all();
  for (auto& t : threads_) (void)t->drain();  // run() returns no Status; it stops on stop_
  threads_.clear();
}

size_t WorkerPool::idle_workers() {
  std::lock_guard<std::mutex> lock(mu_);
  return idle_;
}

std::vector<Job> WorkerPool::take_batch() {
  // Take what is there (up to batch_max): a burst shares its directory fsyncs and its commit.
  // A burst of large files is shared out between the idle workers (this one included): its
  // last file is then done after its share's summarising, not after the whole burst's on one
  // worker while the other waits (docs/benchmarks.md, "watch close -> deleted A/B").
  uint64_t cap = batch_bytes_;
  if (idle_ > 1 && queued_bytes_ > split_bytes_)
    cap = std::min(cap, std::max(split_bytes_, (queued_bytes_ + idle_ - 1) / idle_));
  std::vector<Job> batch;
  uint64_t bytes = 0;
  while (!queue_.empty() && batch.size() < batch_max_ && (batch.empty() || bytes + queue_.front().seen.size <= cap)) {
    bytes += queue_.front().seen.size;
    batch.push_back(std::move(queue_.front()));
    queue_.pop_front();
  }
  queued_bytes_ -= bytes;
  return batch;
}

void WorkerPool::run() {
  for (;;) {
    std::vector<Job> batch;
    {
      std::unique_lock<std::mutex> lock(mu_);
      ++idle_;
      cv_.wait(lock, [this] { return stop_ || !queue_.empty(); });
      if (stop_) {
        --idle_;
        return;
      }
      batch = take_batch();
      --idle_;
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
