// Watch settings and the config file that sets them: `key = value` lines, `#` comments.
// Command-line options win over the file; SIGHUP re-reads the file. Keys, options, ranges and
// what a reload changes: the settings table (daemon/setting_table.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/base/result.h"
#include "common/compaction/compact_settings.h"
#include "common/compaction/option_limits.h"
#include "common/compaction/summary_format.h"
#include "daemon/disk_space.h"
#include "daemon/live_settings.h"

namespace msit::daemon {

struct WatchSettings {
  std::vector<std::string> dirs;
  uint32_t settle_ms = kSettleMs.def;
  uint32_t jobs = kJobs.def;  // 0: number of cores
  CompactSettings compact;    // shared with `compact`; format from default_summary_format()
  uint32_t rescan_interval_s = kRescanIntervalS.def;
  uint32_t max_watches_per_root = kMaxWatchesPerRoot.def;
  uint32_t max_watch_share = kMaxWatchShare.def;  // percent of fs.inotify.max_user_watches
  std::string json_status;                        // empty: none
  bool verbose = false;
  MinFree min_free;            // free-space watermark of each watched filesystem (5%)
  std::string low_space_hook;  // command run (no shell) when a filesystem goes under it
  uint32_t low_space_hook_interval_s = 300;
  // Live divergence (docs/live-divergence.md). A reload changes on_divergence and its interval;
  // the rest is read at start (SettingReload::kRestartLive in the settings table).
  LiveSettings live;
};

// Values given on the command line; unset ones come from the config file or the defaults. Each
// member is a row's `given` in the settings table, which applies them (load_settings()).
struct SettingOverrides {
  std::vector<std::string> dirs;
  std::optional<uint32_t> settle_ms, jobs, rescan_interval_s, max_watch_share;
  std::optional<SummaryFormat> format;
  std::optional<bool> keep_raw, verbose, archive;
  std::optional<int> zstd_level, zstd_workers;
  std::optional<uint32_t> sketch_width, sketch_bits;
  std::optional<std::string> json_status;
  std::optional<std::string> min_free;  // checked by load_settings()
  // Live divergence: goldens on the command line replace the config file's.
  std::vector<std::string> goldens;  // "G" or "ROOT=G"
  std::optional<std::string> op_mapping_file, events_file, on_divergence;
  std::optional<uint32_t> keep_raw_near_divergence;
  std::optional<bool> recompute;
  std::optional<std::string> held_raw_cap;  // checked by load_settings()
};

// Applies the text of a config file. Errors name "path:line" and the offending key.
Status apply_config_text(std::string_view text, const std::string& path, WatchSettings& s);
// Defaults, then the file (when config_path is not empty), then the overrides; validated.
Result<WatchSettings> load_settings(const std::string& config_path, const SettingOverrides& o);

}  // namespace msit::daemon
