// Fork-join on short-lived threads: the one way the library runs a batch of work on several
// threads and waits for all of it (compare's evaluation and indexing, compact's workers, the
// archive's block encoders, export's writers). Long-lived threads with a queue are elsewhere:
// run_on_io_pool() (common/base/io_pool.h) and the daemon's WorkerPool.
#pragma once

#include <cstddef>
#include <functional>

namespace msit {

// How many threads run_workers(jobs, tasks, ...) starts: min(jobs, tasks, 1024), at least one.
unsigned worker_count(unsigned jobs, size_t tasks);

// worker() on worker_count(jobs, tasks) threads, at least one (this one included); each worker
// pulls its own tasks. Returns when every worker has returned. Workers must not throw.
void run_workers(unsigned jobs, size_t tasks, const std::function<void()>& worker);

// fn(0) .. fn(n - 1), each once, on min(jobs, n) threads (this one included); returns when every
// call has returned. Calls must not throw.
void run_indexed(unsigned jobs, size_t n, const std::function<void(size_t)>& fn);

}  // namespace msit
