// Sizes and times as people read them, one convention for every command and log line:
// IEC binary units (KiB, MiB, GiB) and local wall-clock times instead of raw nanoseconds.
#pragma once

#include <cstdint>
#include <string>

namespace msit {

// "512 B", "1.5 KiB", "3.2 GiB" (powers of 1024, one decimal above bytes).
std::string human_bytes(uint64_t bytes);
// A duration: "850 ms", "12.3 s", "4 min 05 s", "2 h 03 min".
std::string human_duration_ms(double ms);
// A file time (ns since the epoch) in local time with its UTC offset:
// "2026-11-24 07:55:02.123456789 +0000".
std::string human_time_ns(int64_t ns_since_epoch);

}  // namespace msit
