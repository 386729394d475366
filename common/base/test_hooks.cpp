// Environment-configured pauses at race-relevant points (tests only widen windows with them).
#include "common/base/test_hooks.h"

#include <sys/stat.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <thread>

namespace msit {
namespace {

constexpr std::array<const char*, static_cast<size_t>(PausePoint::kCount)> kNames = {
    "MSIT_TEST_PAUSE_AFTER_SCAN_MS", "MSIT_TEST_PAUSE_BEFORE_CLAIM_MS", "MSIT_TEST_PAUSE_STARTUP_SCAN_MS"};

std::array<long, kNames.size()> read_pauses() {
  std::array<long, kNames.size()> ms{};
  for (size_t i = 0; i < kNames.size(); ++i) {
    const char* v = std::getenv(kNames[i]);
    if (v != nullptr) ms[i] = std::strtol(v, nullptr, 10);
  }
  return ms;
}

}  // namespace

void test_pause(PausePoint p) {
  static const std::array<long, kNames.size()> pauses = read_pauses();
  static const char* release = std::getenv("MSIT_TEST_PAUSE_RELEASE_FILE");
  long ms = pauses[static_cast<size_t>(p)];
  if (ms <= 0) return;
  // The line is the test's event "the window is open"; with a release file the window stays
  // open until the test has done its part (the milliseconds are then only an upper bound).
  std::fprintf(stderr, "msit-test: paused at %s\n", kNames[static_cast<size_t>(p)]);
  std::fflush(stderr);
  const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  if (release == nullptr) {
    std::this_thread::sleep_until(end);
    return;
  }
  struct stat st {};
  while (::stat(release, &st) != 0 && std::chrono::steady_clock::now() < end)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
}

bool test_fail_commit() {
  static const long after = [] {
    const char* v = std::getenv("MSIT_TEST_FAIL_COMMIT_AFTER");
    return v == nullptr ? -1L : std::strtol(v, nullptr, 10);
  }();
  static std::atomic<long> commits{0};
  return after >= 0 && commits.fetch_add(1) >= after;
}

bool test_no_leases() {
  static const bool v = std::getenv("MSIT_TEST_NO_LEASES") != nullptr;
  return v;
}

bool test_proc_unreadable() {
  static const bool v = std::getenv("MSIT_TEST_PROC_UNREADABLE") != nullptr;
  return v;
}

bool test_no_time_rules(bool golden) {
  static const char* v = std::getenv("MSIT_TEST_NO_TIME_RULES");
  if (v == nullptr) return false;
  const std::string_view sides(v);
  return sides == "both" || sides == (golden ? "golden" : "watched");
}

}  // namespace msit
