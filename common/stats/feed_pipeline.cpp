// Reader/reducer pipeline over a ring of batches: the page-cache copy and the XXH3 of the
// stored bytes (reader side) overlap the statistics kernel (reducer side), which alone leaves
// a single thread at about half of `cat` throughput.
#include "common/stats/feed_pipeline.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <system_error>
#include <vector>

#include "common/base/stage_thread.h"

namespace msit {
namespace {

struct Slot {
  std::byte* buf = nullptr;
  size_t bytes = 0;
  std::optional<Error> error;
};

// A counter one thread advances and the other waits on: a short spin first (in this VM
// waking a sleeping vCPU costs tens of microseconds, about a batch's worth of work), then a
// condition variable. notify() takes the mutex only when the other side sleeps.
class Counter {
 public:
  uint64_t load() const { return v_.load(std::memory_order_acquire); }
  void advance(uint64_t v) {
    v_.store(v, std::memory_order_seq_cst);
    if (sleepers_.load(std::memory_order_seq_cst) > 0) {
      { std::lock_guard lock(mu_); }
      cv_.notify_one();
    }
  }
  // Waits until pred(value) holds.
  template <class Pred>
  void wait_until(Pred pred) {
    for (int spin = 0; spin < kSpins; ++spin) {
      if (pred(load())) return;
      cpu_relax();
    }
    std::unique_lock lock(mu_);
    sleepers_.fetch_add(1, std::memory_order_seq_cst);
    cv_.wait(lock, [&] { return pred(v_.load(std::memory_order_seq_cst)); });
    sleepers_.fetch_sub(1, std::memory_order_seq_cst);
  }

 private:
  static constexpr int kSpins = 1000;  // ~30 us of PAUSE on x86
  static void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    asm volatile("yield");
#endif
  }
  std::atomic<uint64_t> v_{0};
  std::atomic<int> sleepers_{0};
  std::mutex mu_;
  std::condition_variable cv_;
};

// Single producer, single consumer over n slots: slot i % n belongs to the producer while
// i - consumed < n and to the consumer once produced > i.
class Ring {
 public:
  Ring(const FeedPipelineOptions& o, std::vector<std::byte*> bufs) : opts_(o), slots_(bufs.size()) {
    for (size_t i = 0; i < bufs.size(); ++i) slots_[i].buf = bufs[i];
  }

  void produce_all(const std::function<Result<size_t>(std::byte*, size_t)>& produce) {
    const uint64_t n = slots_.size();
    for (uint64_t i = 0;; ++i) {
      consumed_.wait_until([&](uint64_t c) { return c == kStopped || i - c < n; });
      if (consumed_.load() == kStopped) return;
      Slot& s = slots_[i % n];
      Result<size_t> r = produce(s.buf, opts_.batch_bytes);
      const bool last = !r.ok() || r.value() == 0;
      s.error.reset();
      if (r.ok()) s.bytes = r.value();
      else s.error = r.take_error();
      produced_.advance(i + 1);
      if (last) return;
    }
  }

  Status consume_all(const std::function<void(const std::byte*, size_t)>& consume) {
    for (uint64_t i = 0;; ++i) {
      produced_.wait_until([&](uint64_t p) { return p > i; });
      Slot& s = slots_[i % slots_.size()];
      if (s.error) return std::move(*s.error);
      if (s.bytes == 0) return ok_status();
      consume(s.buf, s.bytes);
      consumed_.advance(i + 1);
    }
  }

  // Releases a producer still waiting for a slot (only after an early consumer exit).
  void stop() { consumed_.advance(kStopped); }

 private:
  static constexpr uint64_t kStopped = ~uint64_t{0};
  FeedPipelineOptions opts_;
  std::vector<Slot> slots_;
  Counter produced_, consumed_;
};

// Per calling thread, kept for the thread's lifetime: the batch buffers and the reader
// thread (a StageThread). In this VM a fresh page costs a trapped fault and every munmap/thread
// exit a TLB shoot-down IPI; allocating them per tensor tripled the system time of a run.
struct ThreadState {
  std::vector<std::unique_ptr<std::byte[]>> bufs;
  size_t buf_bytes = 0;
  std::unique_ptr<StageThread> helper;

  std::vector<std::byte*> buffers(size_t n, size_t bytes) {
    if (bytes > buf_bytes) {
      bufs.clear();
      buf_bytes = bytes;
    }
    while (bufs.size() < n) bufs.push_back(std::make_unique_for_overwrite<std::byte[]>(buf_bytes));
    std::vector<std::byte*> out;
    for (size_t i = 0; i < n; ++i) out.push_back(bufs[i].get());
    return out;
  }
};

ThreadState& thread_state() {
  thread_local ThreadState state;
  return state;
}

Status run_serial(std::byte* buf, const FeedPipelineOptions& opts,
                  const std::function<Result<size_t>(std::byte*, size_t)>& produce,
                  const std::function<void(const std::byte*, size_t)>& consume) {
  while (true) {
    MSIT_ASSIGN_OR_RETURN(size_t n, produce(buf, opts.batch_bytes));
    if (n == 0) return ok_status();
    consume(buf, n);
  }
}

}  // namespace

Status run_feed_pipeline(const FeedPipelineOptions& opts,
                         const std::function<Result<size_t>(std::byte*, size_t)>& produce,
                         const std::function<void(const std::byte*, size_t)>& consume) {
  if (opts.batch_bytes == 0) return make_error("", Stage::kReduce, "internal: empty feed batch");
  ThreadState& ts = thread_state();
  std::vector<std::byte*> bufs = ts.buffers(std::max<size_t>(opts.slots, 1), opts.batch_bytes);
  if (opts.slots >= 2 && !ts.helper) {
    try {
      ts.helper = std::make_unique<StageThread>();
    } catch (const std::system_error&) {
      ts.helper.reset();  // no thread to spare: the same result, serially
    }
  }
  if (opts.slots < 2 || !ts.helper) return run_serial(bufs[0], opts, produce, consume);
  Ring ring(opts, std::move(bufs));
  ts.helper->submit([&] {
    ring.produce_all(produce);
    return ok_status();  // the producer's errors travel through the ring, in order
  });
  Status st = ring.consume_all(consume);
  ring.stop();
  (void)ts.helper->drain();  // ok: the task above always is
  return st;
}

}  // namespace msit
