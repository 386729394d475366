#include "common/base/io_pool.h"

#include <atomic>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <vector>

#include "common/base/stage_thread.h"

namespace msit {
namespace {

constexpr unsigned kIoThreads = 16;

// One batch: items are taken by index; the last one to finish wakes the caller.
struct Batch {
  size_t n = 0;
  const std::function<void(size_t)>* fn = nullptr;
  std::atomic<size_t> next{0};
  std::atomic<size_t> done{0};
  std::mutex mu;
  std::condition_variable finished;

  void work() {
    for (size_t i = next.fetch_add(1); i < n; i = next.fetch_add(1)) {
      (*fn)(i);
      if (done.fetch_add(1) + 1 == n) {
        std::lock_guard lock(mu);
        finished.notify_all();
      }
    }
  }
};

class IoPool {
 public:
  IoPool() {
    // Each runs loop() as long as the process: the pool is never destroyed, so never joined.
    for (unsigned i = 0; i < kIoThreads; ++i) {
      threads_.push_back(std::make_unique<StageThread>());
      threads_.back()->submit([this] {
        loop();
        return ok_status();
      });
    }
  }

  void run(size_t n, const std::function<void(size_t)>& fn) {
    auto b = std::make_shared<Batch>();
    b->n = n;
    b->fn = &fn;
    {
      std::lock_guard lock(mu_);
      queue_.push_back(b);
    }
    cv_.notify_all();
    b->work();
    std::unique_lock lock(b->mu);
    b->finished.wait(lock, [&] { return b->done.load() == n; });
  }

 private:
  void loop() {
    while (true) {
      std::shared_ptr<Batch> b;
      {
        std::unique_lock lock(mu_);
        cv_.wait(lock, [&] { return !queue_.empty(); });
        b = queue_.front();
        if (b->next.load() >= b->n) {
          queue_.pop_front();  // every item taken: nothing left for this thread
          continue;
        }
      }
      b->work();
    }
  }

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::shared_ptr<Batch>> queue_;
  std::vector<std::unique_ptr<StageThread>> threads_;
};

}  // namespace

void run_on_io_pool(size_t n, const std::function<void(size_t)>& fn) {
  if (n == 0) return;
  if (n == 1) {
    fn(0);
    return;
  }
  static IoPool* pool = new IoPool();  // never destroyed: its threads use it until exit
  pool->run(n, fn);
}

}  // namespace msit
