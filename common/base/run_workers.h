// Fork-join on short-lived threads: the one way the library runs a batch of work on several
// threads and waits for all of it (compare's evaluation and indexing, compact's workers, the
// archive's block encoders, export's writers, the CSV report's formatters). A thread that lives
// beyond one call is a StageThread (common/base/stage_thread.h); docs/architecture.md "Threads"
// lists every user.
#pragma once

#include <cstddef>
#include <functional>

namespace msit {

// How many threads run_workers(jobs, tasks, ...) starts: min(jobs, tasks, 1024), at least one.
unsigned worker_count(unsigned jobs, size_t tasks);

// worker() on worker_count(jobs, tasks) threads, at least one (this one included); each worker
// pulls its own tasks. Returns when every worker has returned; the first exception a worker
// threw is then rethrown here (library code returns Status instead; this only keeps a stray
// exception from ending the process on a worker thread).
void run_workers(unsigned jobs, size_t tasks, const std::function<void()>& worker);

// fn(0) .. fn(n - 1), each once, on min(jobs, n) threads (this one included); returns when every
// call has returned; an exception is rethrown as by run_workers().
void run_indexed(unsigned jobs, size_t n, const std::function<void(size_t)>& fn);

}  // namespace msit
