// Cost of the live comparer's passes (docs/live-divergence.md "Cost"; issue 30): runs
// LiveRootCompare passes over a watched tree and its golden as they are on disk, with tokens
// final at once, until nothing is pending, then PASSES more (the steady state of a watch whose
// tokens are all answered), printing each pass's wall time, the process's RSS and peak RSS, the
// rows cached and the tokens retired. A golden ahead of the dump leaves its tokens pending for
// good (they wait for files that, on trees at rest, never come): a pass that changes nothing and
// has no work queued (no window cut, no confirmation due) counts as steady as well, so the bench
// stops. Plain main (not Google Benchmark): a pass is one measurement of seconds, not a kernel.
// Usage: live_pass_bench MY GOLDEN [PASSES]
#include <malloc.h>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "daemon/live_compare.h"

namespace {

long status_kb(const char* key) {
  std::ifstream f("/proc/self/status");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind(key, 0) == 0) return std::atol(line.c_str() + std::string(key).size());
  return -1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s MY GOLDEN [PASSES]\n", argv[0]);
    return 2;
  }
  int extra = argc > 3 ? std::atoi(argv[3]) : 3;
  msit::daemon::Finality f;
  f.token_settle_ns = 0;
  f.quiet_ns = 0;
  msit::daemon::LiveRootCompare live(argv[1], argv[2], f);
  std::printf("before the first pass: RSS %ld kB\n", status_kb("VmRSS:"));
  size_t events = 0;
  struct Seen {
    size_t events, rows, retired;
    bool operator==(const Seen&) const = default;
  } last{SIZE_MAX, 0, 0};
  for (int pass = 1, left = extra; left > 0; ++pass) {
    std::vector<std::string> notes;
    auto t0 = std::chrono::steady_clock::now();
    int64_t now = std::chrono::duration_cast<std::chrono::nanoseconds>(t0.time_since_epoch()).count();
    events += live.pass(now, notes).size();
    ::malloc_trim(0);  // as the comparer thread does after each pass
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("pass %d: %.3f s, RSS %ld kB, peak %ld kB, %zu rows cached, %zu tokens retired, %zu events%s\n", pass,
                s, status_kb("VmRSS:"), status_kb("VmHWM:"), live.cached_rows(), live.retired_tokens(), events,
                live.pending() ? ", pending" : "");
    for (const auto& n : notes)
      if (n.find("judged clean") == std::string::npos) std::printf("  %s\n", n.c_str());
    // Trees at rest: a pass that changed nothing and left no work queued is what every later
    // pass would be (a token still pending waits for the dump).
    Seen seen{events, live.cached_rows(), live.retired_tokens()};
    bool stalled = seen == last && !live.window_cut() && !live.confirm_soon();
    last = seen;
    if (!live.pending() || stalled) --left;
    if (pass > 100000) break;
  }
  return 0;
}
