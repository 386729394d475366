// A long-lived thread with a bounded FIFO of tasks: the one way the library keeps a thread
// beyond one call (a pipeline stage such as compact's committer and remover, the feed reader
// behind a calling thread, the io pool, the daemon's compactor workers and comparer, the CLI's
// progress line). A stage's loop is one long task that returns when its owner tells it to stop.
// Batches of work that fork and join in one call use run_workers() (common/base/run_workers.h);
// docs/architecture.md "Threads" lists every user.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>

#include "common/base/result.h"

namespace msit {

class StageThread {
 public:
  using Task = std::function<Status()>;

  // Starts the thread (std::system_error when the process has none to spare). At most
  // `capacity` tasks wait to start; submit() blocks beyond that.
  explicit StageThread(size_t capacity = 1);
  // Runs what was submitted, then joins. A stage loop must have been told to stop before.
  ~StageThread();
  StageThread(const StageThread&) = delete;
  StageThread& operator=(const StageThread&) = delete;

  // Queues a task; tasks run one at a time in submission order.
  void submit(Task task);
  // Waits until every submitted task has returned. Returns the first failed Status since the
  // last drain(); a task that threw has its exception rethrown here instead.
  Status drain();

 private:
  void loop();

  const size_t capacity_;
  std::mutex mu_;
  std::condition_variable changed_;
  std::deque<Task> queue_;
  bool running_ = false;  // a task has been taken and has not returned
  bool quit_ = false;
  std::optional<Error> error_;
  std::exception_ptr thrown_;
  std::thread thread_;  // last: starts after the members it uses exist
};

}  // namespace msit
