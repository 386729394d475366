// Wall time and resident memory at the end of each phase of a long command (compare --timings):
// tells a user (and docs/benchmarks.md) where a slow run spends its time without a profiler.
#pragma once

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <mutex>

namespace msit {

class PhaseTimer {
 public:
  explicit PhaseTimer(std::FILE* out) : out_(out), start_(Clock::now()), last_(start_) {}

  // Ends the phase that began at the previous mark (or at construction).
  void mark(const char* phase) {
    std::lock_guard<std::mutex> lock(mu_);
    auto now = Clock::now();
    std::fprintf(out_, "timing: %-28s %8.3f s  (total %8.3f s, rss %6ld MB)\n", phase, seconds(now - last_),
                 seconds(now - start_), resident_mb());
    last_ = now;
  }

 private:
  using Clock = std::chrono::steady_clock;
  static double seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }
  static long resident_mb() {
    long pages = 0, resident = 0;
    if (std::FILE* f = std::fopen("/proc/self/statm", "r")) {
      if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
      std::fclose(f);
    }
    return resident * ::sysconf(_SC_PAGESIZE) / (1 << 20);
  }

  std::FILE* out_;
  std::mutex mu_;
  Clock::time_point start_, last_;
};

// Marks a phase when a timer is attached; commands pass nullptr when not asked for timings.
inline void mark_phase(PhaseTimer* t, const char* phase) {
  if (t) t->mark(phase);
}

}  // namespace msit
