// Formatting of sizes and times for terminal output and logs (see human_units.h).
#include "common/base/human_units.h"

#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <iterator>

namespace msit {

std::string human_bytes(uint64_t bytes) {
  static const char* const kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double v = static_cast<double>(bytes);
  size_t u = 0;
  while (v >= 1024.0 && u + 1 < std::size(kUnits)) {
    v /= 1024.0;
    ++u;
  }
  char buf[32];
  if (u == 0) std::snprintf(buf, sizeof buf, "%" PRIu64 " B", bytes);
  else std::snprintf(buf, sizeof buf, "%.1f %s", v, kUnits[u]);
  return buf;
}

std::string human_duration_ms(double ms) {
  char buf[48];
  if (!std::isfinite(ms) || ms < 0) return "-";
  if (ms < 1000.0) {
    std::snprintf(buf, sizeof buf, "%.0f ms", ms);
  } else if (ms < 60'000.0) {
    std::snprintf(buf, sizeof buf, "%.1f s", ms / 1000.0);
  } else if (ms < 3'600'000.0) {
    const auto s = static_cast<uint64_t>(ms / 1000.0);
    std::snprintf(buf, sizeof buf, "%" PRIu64 " min %02" PRIu64 " s", s / 60, s % 60);
  } else {
    const auto m = static_cast<uint64_t>(ms / 60'000.0);
    std::snprintf(buf, sizeof buf, "%" PRIu64 " h %02" PRIu64 " min", m / 60, m % 60);
  }
  return buf;
}

std::string human_time_ns(int64_t ns_since_epoch) {
  // Floor division, so that times before 1970 keep a non-negative fraction.
  int64_t secs = ns_since_epoch / 1'000'000'000;
  int64_t frac = ns_since_epoch % 1'000'000'000;
  if (frac < 0) {
    frac += 1'000'000'000;
    --secs;
  }
  const std::time_t t = static_cast<std::time_t>(secs);
  struct tm tm {};
  if (::localtime_r(&t, &tm) == nullptr) return std::to_string(ns_since_epoch) + " ns";
  char date[32], zone[8];
  std::strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S", &tm);
  std::strftime(zone, sizeof zone, "%z", &tm);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%s.%09" PRId64 " %s", date, frac, zone);
  return buf;
}

}  // namespace msit
