// Ranges and defaults of the settings that `compact`, `watch`, `compare` and the watch config
// file share: one definition, checked by the CLI (cli/options.cpp) and by daemon/config.cpp.
#pragma once

#include <cstdint>
#include <string_view>

#include "common/stats/tensor_stats.h"

namespace msit {

struct IntSetting {
  std::string_view key;  // config-file key; the option is "--" + key with '_' -> '-'
  int64_t min, max, def;
  constexpr bool contains(int64_t v) const { return v >= min && v <= max; }
};

// zstd levels of --archive; negative levels are zstd's fast levels.
inline constexpr IntSetting kZstdLevel{"zstd_level", -7, 19, 1};
inline constexpr IntSetting kZstdWorkers{"zstd_workers", 1, 64, 1};
// Worker threads; the default 0 means "one per core".
inline constexpr IntSetting kJobs{"jobs", 1, 1024, 0};
inline constexpr IntSetting kSettleMs{"settle_ms", 0, 600'000, 200};
inline constexpr IntSetting kRescanIntervalS{"rescan_interval_s", 1, 86'400, 30};
// inotify watches per watched root (`watch` config): beyond it, directories are rescanned.
inline constexpr IntSetting kMaxWatchesPerRoot{"max_watches_per_root", 1, 16'777'216, 65'536};
// The share (percent) of the user's inotify watch limit (fs.inotify.max_user_watches) one watch
// may take, all its roots together: the rest stays for the user's other services.
inline constexpr IntSetting kMaxWatchShare{"max_watch_share", 1, 100, 50};
// Count-sketch buckets: also a power of two (is_valid_sketch_width).
inline constexpr IntSetting kSketchWidth{"sketch_width", 2, 65'536, kDefaultSketchWidth};

constexpr bool is_valid_sketch_width(int64_t v) { return kSketchWidth.contains(v) && (v & (v - 1)) == 0; }

}  // namespace msit
