// A long-lived thread with a bounded FIFO of tasks (common/base/stage_thread.h).
#include "common/base/stage_thread.h"

#include <algorithm>
#include <utility>

namespace msit {

StageThread::StageThread(size_t capacity) : capacity_(std::max<size_t>(capacity, 1)), thread_([this] { loop(); }) {}

StageThread::~StageThread() {
  {
    std::lock_guard lock(mu_);
    quit_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

void StageThread::submit(Task task) {
  std::unique_lock lock(mu_);
  changed_.wait(lock, [this] { return queue_.size() < capacity_; });
  queue_.push_back(std::move(task));
  changed_.notify_all();
}

Status StageThread::drain() {
  std::unique_lock lock(mu_);
  changed_.wait(lock, [this] { return queue_.empty() && !running_; });
  if (thrown_) std::rethrow_exception(std::exchange(thrown_, nullptr));
  if (error_) {
    Error e = std::move(*error_);
    error_.reset();
    return e;
  }
  return ok_status();
}

// Queued tasks still run after quit_: the destructor means "finish, then stop".
void StageThread::loop() {
  std::unique_lock lock(mu_);
  while (true) {
    changed_.wait(lock, [this] { return quit_ || !queue_.empty(); });
    if (queue_.empty()) return;
    Task task = std::move(queue_.front());
    queue_.pop_front();
    running_ = true;
    changed_.notify_all();  // a submit() may wait for the room
    lock.unlock();
    Status st = ok_status();
    std::exception_ptr thrown;
    try {
      st = task();
    } catch (...) {
      thrown = std::current_exception();  // rethrown by drain() on the owner's thread
    }
    task = nullptr;  // its captures are gone before drain() returns
    lock.lock();
    running_ = false;
    if (thrown && !thrown_) thrown_ = thrown;
    if (!st.ok() && !error_) error_ = st.take_error();
    changed_.notify_all();
  }
}

}  // namespace msit
