// Environment-configured pauses at race-relevant points (tests only widen windows with them).
#include "common/base/test_hooks.h"

#include <array>
#include <chrono>
#include <cstdlib>
#include <thread>

namespace msit {
namespace {

constexpr std::array<const char*, static_cast<size_t>(PausePoint::kCount)> kNames = {"MSIT_TEST_PAUSE_AFTER_SCAN_MS",
                                                                                     "MSIT_TEST_PAUSE_BEFORE_CLAIM_MS"};

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
  long ms = pauses[static_cast<size_t>(p)];
  if (ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(ms));
}

bool test_no_leases() {
  static const bool v = std::getenv("MSIT_TEST_NO_LEASES") != nullptr;
  return v;
}

bool test_proc_unreadable() {
  static const bool v = std::getenv("MSIT_TEST_PROC_UNREADABLE") != nullptr;
  return v;
}

}  // namespace msit
