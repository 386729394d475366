// A process-wide pool of threads for blocking metadata calls (unlink, rename, and the last close
// of an unlinked file, which frees its inode and discards its blocks): on ext4 with
// `discard` one unlink of a just-written file takes ~1 ms, almost all of it waiting, and the
// filesystem runs many at once (5,000 unlinks: 4.9 s on 1 thread, 0.98 s on 8, 0.82 s on 32,
// docs/benchmarks.md). Callers hand a batch over and wait for all of it.
#pragma once

#include <cstddef>
#include <functional>

namespace msit {

// Runs fn(0) .. fn(n - 1) on the pool (the caller's thread takes part) and returns when every
// call has returned. Calls must not throw.
void run_on_io_pool(size_t n, const std::function<void(size_t)>& fn);

}  // namespace msit
