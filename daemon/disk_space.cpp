// Free-space watermarks of the watched filesystems: one state per filesystem (roots grouped by
// device), a warning once per crossing with hysteresis, and a rate-limited low-space hook.
#include "daemon/disk_space.h"

#include <sys/stat.h>
#include <sys/statvfs.h>

#include <cerrno>
#include <charconv>

#include <nlohmann/json.hpp>

#include "common/base/human_units.h"
#include "daemon/counters.h"

namespace msit::daemon {
namespace {

// A low filesystem is reported as recovered only once it has this share of the threshold
// above it again, so that free space hovering at the line does not log every second.
constexpr uint64_t kHysteresisDivisor = 10;

std::optional<uint64_t> unit_multiplier(std::string_view s) {
  if (s.empty() || s == "B") return 1;
  static constexpr std::string_view kUnits = "KMGT";
  size_t u = kUnits.find(s.front());
  if (u == std::string_view::npos) return std::nullopt;
  std::string_view rest = s.substr(1);
  if (!rest.empty() && rest != "B" && rest != "iB") return std::nullopt;
  return uint64_t{1} << (10 * (u + 1));
}

}  // namespace

std::optional<MinFree> parse_min_free(std::string_view text) {
  uint64_t n = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || p == text.data()) return std::nullopt;
  std::string_view suffix = text.substr(static_cast<size_t>(p - text.data()));
  MinFree m;
  if (suffix == "%") {
    if (n > 100) return std::nullopt;
    m.percent = static_cast<uint32_t>(n);
    return m;
  }
  auto mult = unit_multiplier(suffix);
  if (!mult || n > UINT64_MAX / *mult) return std::nullopt;
  m.is_percent = false;
  m.percent = 0;
  m.bytes = n * *mult;
  return m;
}

std::string MinFree::to_string() const { return is_percent ? std::to_string(percent) + "%" : human_bytes(bytes); }

Result<FsSpace> statvfs_space(const std::string& path) {
  std::string p = path;
  for (;;) {
    struct statvfs vfs {};
    struct stat st {};
    if (::statvfs(p.c_str(), &vfs) == 0 && ::stat(p.c_str(), &st) == 0) {
      return FsSpace{static_cast<uint64_t>(st.st_dev), uint64_t{vfs.f_bavail} * vfs.f_frsize,
                     uint64_t{vfs.f_blocks} * vfs.f_frsize};
    }
    int err = errno;
    size_t slash = p.find_last_of('/');
    if ((err != ENOENT && err != ENOTDIR) || slash == std::string::npos || p == "/")
      return make_sys_error(path, Stage::kStatvfs, "cannot read the free space", err);
    p = slash == 0 ? "/" : p.substr(0, slash);
  }
}

std::vector<std::string> split_command(std::string_view command) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < command.size()) {
    while (i < command.size() && (command[i] == ' ' || command[i] == '\t')) ++i;
    size_t start = i;
    while (i < command.size() && command[i] != ' ' && command[i] != '\t') ++i;
    if (i > start) out.emplace_back(command.substr(start, i - start));
  }
  return out;
}

DiskWatermarks::DiskWatermarks(WatermarkOptions o, std::vector<std::string> roots, SpaceFn space, Logger& log,
                               HookRunner run_hook)
    : opts_(std::move(o)), roots_(std::move(roots)), space_(std::move(space)), log_(log),
      run_hook_(std::move(run_hook)), root_error_warned_(roots_.size(), false) {}

void DiskWatermarks::check(int64_t now_ns) {
  for (auto& [dev, fs] : fs_) {
    fs.roots.clear();
    fs.seen = false;
  }
  for (size_t i = 0; i < roots_.size(); ++i) {
    Result<FsSpace> s = space_(roots_[i]);
    if (!s.ok()) {
      if (!root_error_warned_[i]) log_.warning(s.error().to_string() + " (reported once)");
      root_error_warned_[i] = true;
      continue;
    }
    root_error_warned_[i] = false;
    FsState& fs = fs_[s->dev];
    fs.space = *s;
    fs.seen = true;
    fs.roots.push_back(roots_[i]);
  }
  for (auto it = fs_.begin(); it != fs_.end();) {
    if (!it->second.seen) {  // no root lives there any more (a root was moved or mounted over)
      it = fs_.erase(it);
      continue;
    }
    update(it->second, now_ns);
    ++it;
  }
}

void DiskWatermarks::update(FsState& fs, int64_t now_ns) {
  fs.threshold = opts_.min_free.threshold(fs.space.total_bytes);
  const std::string& root = fs.roots.front();
  std::string where = root + (fs.roots.size() > 1 ? " (and " + std::to_string(fs.roots.size() - 1) +
                                                        " other root(s) on the same filesystem)"
                                                  : "");
  uint64_t margin = fs.threshold / kHysteresisDivisor;
  bool now_low = fs.low ? fs.space.free_bytes < fs.threshold + margin : fs.space.free_bytes < fs.threshold;
  if (fs.threshold == 0) now_low = false;  // watermark off (min_free = 0)
  if (now_low && !fs.low) {
    log_.warning("low disk space: " + human_bytes(fs.space.free_bytes) + " free on the filesystem of " + where +
                 ", below min_free " + opts_.min_free.to_string() + " (" + human_bytes(fs.threshold) +
                 "); new dumps may fail to write");
  } else if (!now_low && fs.low) {
    log_.info("disk space recovered: " + human_bytes(fs.space.free_bytes) + " free on the filesystem of " + where);
  }
  fs.low = now_low;
  if (fs.low) maybe_run_hook(fs, now_ns);
}

void DiskWatermarks::maybe_run_hook(FsState& fs, int64_t now_ns) {
  if (opts_.hook_argv.empty() || !run_hook_) return;
  if (fs.last_hook_ns && now_ns - *fs.last_hook_ns < opts_.hook_interval_ns) return;
  // Counted as run even when it could not start: a broken hook is retried per interval, not per tick.
  fs.last_hook_ns = now_ns;
  std::vector<std::string> argv = opts_.hook_argv;
  argv.push_back(fs.roots.front());
  argv.push_back(std::to_string(fs.space.free_bytes));
  run_hook_(argv);
}

std::string DiskWatermarks::status_suffix() const {
  std::string out;
  for (const auto& [dev, fs] : fs_) {
    if (!fs.low) continue;
    out += (out.empty() ? "; low disk space: " : ", ") + fs.roots.front() + " " + human_bytes(fs.space.free_bytes) +
           " free (min " + human_bytes(fs.threshold) + ")";
  }
  return out;
}

size_t DiskWatermarks::low_count() const {
  size_t n = 0;
  for (const auto& [dev, fs] : fs_) n += fs.low ? 1 : 0;
  return n;
}

nlohmann::json DiskWatermarks::to_json() const {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& [dev, fs] : fs_) {
    out.push_back({{"roots", fs.roots},
                   {"free_bytes", fs.space.free_bytes},
                   {"total_bytes", fs.space.total_bytes},
                   {"min_free_bytes", fs.threshold},
                   {"low", fs.low}});
  }
  return out;
}

}  // namespace msit::daemon
