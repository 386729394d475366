// The one table of `watch` settings: command-line spelling, config key, kind of value, range,
// default, help text and what a reload may change. cli/watch.cpp registers its options from it,
// daemon/config.cpp parses the config file and applies the options with it, daemon/service.cpp
// decides a reload with it; tests/unit/setting_table_test.cpp checks the man page and the shell
// completions against it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "daemon/config.h"

namespace msit::daemon {

// How a value is written and checked (config file and command line alike).
enum class SettingKind : uint8_t {
  kDirectory,    // `dir`: repeatable; the DIR arguments on the command line
  kCount,        // unsigned integer; its range is checked once the file and the options are merged
  kRanged,       // integer in [min, max], checked where it is written (file line or option)
  kSketchWidth,  // a power of two in [min, max]
  kSketchBits,   // 32 or 64
  kBool,         // true/false, yes/no, on/off, 1/0; a flag on the command line
  kFormat,       // a summary format name
  kText,         // any text (a path or a command)
  kMinFree,      // bytes (K/M/G/T) or a percent
  kSize,         // bytes (K/M/G/T)
  kGolden,       // GOLDEN or ROOT=GOLDEN; repeatable
  kConfigFile,   // --config: the file itself (no config key)
  kVerbosity,    // -v (and -q): cli/options.h's shared verbosity options
};

// What a SIGHUP reload does with a changed value.
enum class SettingReload : uint8_t {
  kApplied,      // takes effect at once
  kRestart,      // kept; "changes to ... take effect after a restart"
  kRestartLive,  // the same, for live divergence's state built at start (docs/live-divergence.md)
};

// Where a setting lives in WatchSettings and in SettingOverrides (the command line's values).
using SettingField = std::variant<std::monostate, std::vector<std::string>*, uint32_t*, int*, uint64_t*, bool*,
                                  SummaryFormat*, std::string*, MinFree*, std::vector<LiveGolden>*>;
using OverrideField =
    std::variant<std::monostate, std::vector<std::string>*, std::optional<uint32_t>*, std::optional<int>*,
                 std::optional<bool>*, std::optional<SummaryFormat>*, std::optional<std::string>*>;

struct WatchSetting {
  std::string_view key;    // config key; empty: command line only
  std::string_view flags;  // CLI11 names ("-j,--jobs"; "dirs": the positional); empty: config file only
  SettingKind kind;
  std::string_view type_name;         // the option's value in --help; empty: CLI11's own (UINT, INT, TEXT)
  int64_t min = 0, max = 0, def = 0;  // kCount, kRanged, kSketchWidth
  SettingReload reload = SettingReload::kApplied;
  std::string_view help;          // --help text, without the default
  std::string_view default_note;  // appended to help: "" for none; kCount/kRanged: "(default N)" if empty
  SettingField (*field)(WatchSettings&) = nullptr;
  OverrideField (*given)(SettingOverrides&) = nullptr;  // null: no command-line value
};

namespace setting_detail {
// The option name errors are named by: the last of `flags` ("--min-free" of "--min-free").
constexpr std::string_view long_flag(std::string_view flags) { return flags.substr(flags.rfind(',') + 1); }
}  // namespace setting_detail

// clang-format off
// In the order of `watch --help` and of the config file's "unknown key (known: ...)" list. The
// integer ranges shared with `compact` stay in common/compaction/option_limits.h; the rows read them.
// Not here: the checks across settings (archive vs keep_raw, goldens vs roots) and the ranges of
// settle_ms, jobs, rescan_interval_s and low_space_hook_interval_s checked after merging
// (load_settings(), daemon/config.cpp).
inline constexpr WatchSetting kWatchSettings[] = {
    {"dir", "dirs", SettingKind::kDirectory, "", 0, 0, 0, SettingReload::kRestart,
     "Dump roots or their parents; they may not exist yet", "",
     [](WatchSettings& s) -> SettingField { return &s.dirs; },
     [](SettingOverrides& o) -> OverrideField { return &o.dirs; }},
    {kSettleMs.key, "--settle-ms", SettingKind::kCount, "", kSettleMs.min, kSettleMs.max, kSettleMs.def,
     SettingReload::kApplied, "Quiet time in ms after a file's last event before it is claimed", "",
     [](WatchSettings& s) -> SettingField { return &s.settle_ms; },
     [](SettingOverrides& o) -> OverrideField { return &o.settle_ms; }},
    {kJobs.key, "-j,--jobs", SettingKind::kCount, "", kJobs.min, kJobs.max, kJobs.def, SettingReload::kRestart,
     "Worker threads", "(default: one per core)",
     [](WatchSettings& s) -> SettingField { return &s.jobs; },
     [](SettingOverrides& o) -> OverrideField { return &o.jobs; }},
    {"summary_format", "--summary-format", SettingKind::kFormat, "", 0, 0, 0, SettingReload::kApplied,
     "store (one msit-summary.db per dump root; default), json (NAME.summary.json) or msit (_min_max.npy/.npz); "
     "default from MSIT_COMPACT_SUMMARY_FORMAT if set", "",
     [](WatchSettings& s) -> SettingField { return &s.compact.format; },
     [](SettingOverrides& o) -> OverrideField { return &o.format; }},
    {"keep_raw", "--keep-raw", SettingKind::kBool, "", 0, 0, 0, SettingReload::kApplied,
     "Write summaries but keep the raw files", "",
     [](WatchSettings& s) -> SettingField { return &s.compact.keep_raw; },
     [](SettingOverrides& o) -> OverrideField { return &o.keep_raw; }},
    {"archive", "--archive", SettingKind::kBool, "", 0, 0, 0, SettingReload::kApplied,
     "Replace each raw file by a verified lossless archive (NAME.zst) instead of deleting it", "",
     [](WatchSettings& s) -> SettingField { return &s.compact.archive; },
     [](SettingOverrides& o) -> OverrideField { return &o.archive; }},
    {kZstdLevel.key, "--zstd-level", SettingKind::kRanged, "", kZstdLevel.min, kZstdLevel.max, kZstdLevel.def,
     SettingReload::kApplied, "zstd level of --archive", "",
     [](WatchSettings& s) -> SettingField { return &s.compact.zstd_level; },
     [](SettingOverrides& o) -> OverrideField { return &o.zstd_level; }},
    {kZstdWorkers.key, "--zstd-workers", SettingKind::kRanged, "", kZstdWorkers.min, kZstdWorkers.max,
     kZstdWorkers.def, SettingReload::kApplied, "Threads compressing one file's blocks with --archive", "",
     [](WatchSettings& s) -> SettingField { return &s.compact.zstd_workers; },
     [](SettingOverrides& o) -> OverrideField { return &o.zstd_workers; }},
    {kSketchWidth.key, "--sketch-width", SettingKind::kSketchWidth, "", kSketchWidth.min, kSketchWidth.max,
     kSketchWidth.def, SettingReload::kApplied, "Sketch buckets, a power of two", "",
     [](WatchSettings& s) -> SettingField { return &s.compact.sketch_width; },
     [](SettingOverrides& o) -> OverrideField { return &o.sketch_width; }},
    {"sketch_bits", "--sketch-bits", SettingKind::kSketchBits, "", 0, 0, 32, SettingReload::kApplied,
     "Bits per sketch bucket in the store: 32 (default, half the size) or 64 (bit-exact)", "",
     [](WatchSettings& s) -> SettingField { return &s.compact.sketch_bits; },
     [](SettingOverrides& o) -> OverrideField { return &o.sketch_bits; }},
    {kRescanIntervalS.key, "--rescan-interval-s", SettingKind::kCount, "", kRescanIntervalS.min,
     kRescanIntervalS.max, kRescanIntervalS.def, SettingReload::kApplied,
     "Full rescan period in s, the safety net for lost events", "",
     [](WatchSettings& s) -> SettingField { return &s.rescan_interval_s; },
     [](SettingOverrides& o) -> OverrideField { return &o.rescan_interval_s; }},
    {kMaxWatchesPerRoot.key, "", SettingKind::kRanged, "", kMaxWatchesPerRoot.min, kMaxWatchesPerRoot.max,
     kMaxWatchesPerRoot.def, SettingReload::kApplied, "inotify watches per watched root; beyond it, rescans", "",
     [](WatchSettings& s) -> SettingField { return &s.max_watches_per_root; }, nullptr},
    {kMaxWatchShare.key, "--max-watch-share", SettingKind::kRanged, "PERCENT", kMaxWatchShare.min, kMaxWatchShare.max,
     kMaxWatchShare.def, SettingReload::kRestart,
     "Share in percent of the user's inotify watch limit (fs.inotify.max_user_watches) this watch takes, all roots "
     "together; directories beyond it are found by the full rescans", "",
     [](WatchSettings& s) -> SettingField { return &s.max_watch_share; },
     [](SettingOverrides& o) -> OverrideField { return &o.max_watch_share; }},
    {"", "--config", SettingKind::kConfigFile, "", 0, 0, 0, SettingReload::kApplied,
     "Config file of `key = value` lines (command-line options win); re-read on SIGHUP", "", nullptr, nullptr},
    {"json_status", "--json-status", SettingKind::kText, "", 0, 0, 0, SettingReload::kApplied,
     "Write counters to this JSON file every second (atomically)", "",
     [](WatchSettings& s) -> SettingField { return &s.json_status; },
     [](SettingOverrides& o) -> OverrideField { return &o.json_status; }},
    {"verbose", "-v,--verbose", SettingKind::kVerbosity, "", 0, 0, 0, SettingReload::kApplied,
     "Debug log lines too", "",
     [](WatchSettings& s) -> SettingField { return &s.verbose; },
     [](SettingOverrides& o) -> OverrideField { return &o.verbose; }},
    {"min_free", "--min-free", SettingKind::kMinFree, "", 0, 0, 0, SettingReload::kApplied,
     "Warn (log, STATUS=, low_space_hook) when a watched filesystem has less free space than this: bytes with "
     "K/M/G/T suffix or a percent (default 5%; 0 turns it off)", "",
     [](WatchSettings& s) -> SettingField { return &s.min_free; },
     [](SettingOverrides& o) -> OverrideField { return &o.min_free; }},
    {"low_space_hook", "", SettingKind::kText, "", 0, 0, 0, SettingReload::kApplied,
     "Command run (no shell) when a watched filesystem goes under min_free", "",
     [](WatchSettings& s) -> SettingField { return &s.low_space_hook; }, nullptr},
    {"low_space_hook_interval_s", "", SettingKind::kCount, "", 1, UINT32_MAX, 300, SettingReload::kApplied,
     "At most one low_space_hook run per this many seconds", "",
     [](WatchSettings& s) -> SettingField { return &s.low_space_hook_interval_s; }, nullptr},
    {"golden", "--golden", SettingKind::kGolden, "[ROOT=]GOLDEN", 0, 0, 0, SettingReload::kRestartLive,
     "Report the first diverging op of each token while the model dumps, against this golden dump (raw, "
     "summarised or being dumped): GOLDEN with one root, ROOT=GOLDEN per root; repeatable", "",
     [](WatchSettings& s) -> SettingField { return &s.live.goldens; },
     [](SettingOverrides& o) -> OverrideField { return &o.goldens; }},
    // -mf is rewritten to --op-mapping-file before parsing (cli/msit_spellings.h), as for compare.
    {"op_mapping_file", "--op-mapping-file", SettingKind::kText, "DIR", 0, 0, 0, SettingReload::kRestartLive,
     "ATB vs torch with --golden: directory holding op_mapping_file.json (msit: -mf)", "",
     [](WatchSettings& s) -> SettingField { return &s.live.op_mapping_file; },
     [](SettingOverrides& o) -> OverrideField { return &o.op_mapping_file; }},
    {"events", "--events", SettingKind::kText, "FILE", 0, 0, 0, SettingReload::kRestartLive,
     "With --golden: append each divergence to this JSON-lines file (0600, never duplicated after a restart)", "",
     [](WatchSettings& s) -> SettingField { return &s.live.events_file; },
     [](SettingOverrides& o) -> OverrideField { return &o.events_file; }},
    {"on_divergence", "--on-divergence", SettingKind::kText, "CMD", 0, 0, 0, SettingReload::kApplied,
     "With --golden: command run (no shell) on each divergence, with MSIT_DIVERGENCE_* variables; at most once "
     "per on_divergence_interval_s", "",
     [](WatchSettings& s) -> SettingField { return &s.live.on_divergence; },
     [](SettingOverrides& o) -> OverrideField { return &o.on_divergence; }},
    {"on_divergence_interval_s", "", SettingKind::kRanged, "", 1, kOnDivergenceIntervalMaxS, 60,
     SettingReload::kApplied, "At most one on_divergence run per this many seconds", "",
     [](WatchSettings& s) -> SettingField { return &s.live.on_divergence_interval_s; }, nullptr},
    {"keep_raw_near_divergence", "--keep-raw-near-divergence", SettingKind::kRanged, "N", 0,
     kKeepRawNearDivergenceMax, 0, SettingReload::kRestartLive,
     "With --golden: keep the raw files of the diverging op and of the N ops before it", "(default 0: none)",
     [](WatchSettings& s) -> SettingField { return &s.live.keep_raw_near_divergence; },
     [](SettingOverrides& o) -> OverrideField { return &o.keep_raw_near_divergence; }},
    {"recompute", "--recompute", SettingKind::kBool, "", 0, 0, 0, SettingReload::kRestartLive,
     "With --golden: recompute each first divergence's op and the ops before it whose raw files are kept "
     "(opcheck) and put the verdicts in the event", "",
     [](WatchSettings& s) -> SettingField { return &s.live.recompute; },
     [](SettingOverrides& o) -> OverrideField { return &o.recompute; }},
    {"held_raw_cap", "--held-raw-cap", SettingKind::kSize, "SIZE", 0, 0, 0, SettingReload::kRestartLive,
     "Most raw bytes held back while their op's verdict is unknown (K/M/G/T; default 4G); beyond it the oldest "
     "are compacted as usual", "",
     [](WatchSettings& s) -> SettingField { return &s.live.held_raw_cap_bytes; },
     [](SettingOverrides& o) -> OverrideField { return &o.held_raw_cap; }},
};
// clang-format on

// Parses `value` as `setting` says and stores it through `field`; on failure returns what is
// wrong ("expected ..."), for the caller to name the file line or the option.
std::optional<std::string> set_setting(const WatchSetting& setting, std::string_view value, WatchSettings& s);
// The config file's key, or null.
const WatchSetting* find_setting(std::string_view key);
// "dir, settle_ms, ...": every config key, in table order.
std::string setting_keys();
// A reload: the settings marked `which` keep their value of `now` in `next`. Returns the line to
// log when one of them was changed ("config: changes to dir and jobs take effect after a
// restart"), else empty.
std::string keep_at_reload(WatchSettings& next, WatchSettings& now, SettingReload which);

}  // namespace msit::daemon
