// Wall time and resident memory at the end of each phase of a long command (compare --timings):
// tells a user (and docs/benchmarks.md) where a slow run spends its time without a profiler.
#pragma once

#include <unistd.h>

#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstring>
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
    // statm is "SIZE RESIDENT SHARED ..." in pages.
    char line[256] = {};
    if (std::FILE* f = std::fopen("/proc/self/statm", "r")) {
      if (std::fgets(line, sizeof line, f) == nullptr) line[0] = '\0';
      std::fclose(f);
    }
    const char* end = line + std::strlen(line);
    long pages = 0, resident = 0;
    auto [after_size, size_err] = std::from_chars(line, end, pages);
    if (size_err != std::errc() || after_size == end) return 0;
    if (std::from_chars(after_size + 1, end, resident).ec != std::errc()) return 0;
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
