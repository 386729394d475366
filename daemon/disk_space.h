// Free-space watermarks of the watched filesystems: one state per filesystem (roots grouped by
// device), a warning once per crossing with hysteresis, and a rate-limited low-space hook.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "common/base/result.h"
#include "daemon/log.h"

namespace msit::daemon {

// `min_free`: an absolute size ("0", "512M", "20GiB") or a share of the filesystem ("5%").
struct MinFree {
  uint64_t bytes = 0;
  uint32_t percent = 5;  // used when is_percent
  bool is_percent = true;

  uint64_t threshold(uint64_t total_bytes) const {
    return is_percent ? total_bytes / 100 * percent + total_bytes % 100 * percent / 100 : bytes;
  }
  std::string to_string() const;  // "5%", "20.0 GiB"
  bool operator==(const MinFree&) const = default;
};

// Bytes with an optional K/M/G/T suffix (powers of 1024; "KiB", "K" and "KB" are the same),
// or an integer percent from 0 to 100 followed by '%'. 0 (or 0%) turns the watermark off.
std::optional<MinFree> parse_min_free(std::string_view text);

struct FsSpace {
  uint64_t dev = 0;          // st_dev: roots with the same one share a filesystem
  uint64_t free_bytes = 0;   // f_bavail * f_frsize: what an unprivileged writer can still use
  uint64_t total_bytes = 0;  // f_blocks * f_frsize
};
using SpaceFn = std::function<Result<FsSpace>(const std::string& path)>;

// statvfs + stat of the path, or of its nearest existing ancestor for a root that does not
// exist yet (its files will land there).
Result<FsSpace> statvfs_space(const std::string& path);

struct WatermarkOptions {
  MinFree min_free;
  std::vector<std::string> hook_argv;          // empty: no hook
  int64_t hook_interval_ns = 300'000'000'000;  // at most one hook run per filesystem per interval
};

// Splits a hook command into words at spaces and tabs (no shell, no quoting).
std::vector<std::string> split_command(std::string_view command);

class DiskWatermarks {
 public:
  // Starts the hook (argv + root + free bytes); never blocks. Returns false if it did not start.
  using HookRunner = std::function<bool(const std::vector<std::string>& argv)>;

  DiskWatermarks(WatermarkOptions o, std::vector<std::string> roots, SpaceFn space, Logger& log, HookRunner run_hook);

  void set_options(WatermarkOptions o) { opts_ = std::move(o); }
  // One statvfs per root; logs crossings, runs hooks when due.
  void check(int64_t now_ns);

  // "" when every filesystem is above its watermark, else "; low disk space: ROOT X free (min Y)".
  std::string status_suffix() const;
  // [{"roots": [...], "free_bytes", "total_bytes", "min_free_bytes", "low"}, ...]
  nlohmann::json to_json() const;
  size_t low_count() const;

 private:
  struct FsState {
    std::vector<std::string> roots;
    FsSpace space;
    uint64_t threshold = 0;
    bool low = false;
    bool seen = false;  // present in the last check
    std::optional<int64_t> last_hook_ns;
  };

  void update(FsState& fs, int64_t now_ns);
  void maybe_run_hook(FsState& fs, int64_t now_ns);

  WatermarkOptions opts_;
  std::vector<std::string> roots_;
  SpaceFn space_;
  Logger& log_;
  HookRunner run_hook_;
  std::map<uint64_t, FsState> fs_;  // by device
  std::vector<bool> root_error_warned_;
};

}  // namespace msit::daemon
