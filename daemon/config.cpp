// Watch settings and the config file that sets them: `key = value` lines, `#` comments.
#include "daemon/config.h"

#include <charconv>

#include <cerrno>
#include <cstdio>

namespace msit::daemon {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

std::optional<uint32_t> parse_u32(std::string_view v) {
  uint32_t out = 0;
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  if (ec != std::errc() || p != v.data() + v.size()) return std::nullopt;
  return out;
}

// The same words as the command line's range check (cli/options.cpp).
std::string out_of_range(const IntSetting& r) {
  return "expected an integer from " + std::to_string(r.min) + " to " + std::to_string(r.max);
}

std::optional<bool> parse_bool(std::string_view v) {
  if (v == "true" || v == "yes" || v == "1" || v == "on") return true;
  if (v == "false" || v == "no" || v == "0" || v == "off") return false;
  return std::nullopt;
}

constexpr const char* kSizeExpected = "expected bytes with an optional K/M/G/T suffix";

// Bytes with K/M/G/T suffixes, as min_free spells them (parse_min_free), but never a percent.
std::optional<uint64_t> parse_bytes(std::string_view v) {
  auto m = parse_min_free(v);
  if (!m || m->is_percent) return std::nullopt;
  return m->bytes;
}

bool is_live_key(std::string_view key) {
  return key == "golden" || key == "op_mapping_file" || key == "events" || key == "on_divergence" ||
         key == "on_divergence_interval_s" || key == "keep_raw_near_divergence" || key == "held_raw_cap";
}

template <class Bad>
Status apply_live_key(std::string_view key, std::string_view value, LiveSettings& live, const Bad& bad) {
  if (key == "golden") {
    LiveGolden g = parse_golden_spec(value);
    if (g.golden.empty()) return bad("expected GOLDEN or ROOT=GOLDEN (a directory)");
    live.goldens.push_back(std::move(g));
  } else if (key == "op_mapping_file") {
    live.op_mapping_file = std::string(value);
  } else if (key == "events") {
    live.events_file = std::string(value);
  } else if (key == "on_divergence") {
    live.on_divergence = std::string(value);
  } else if (key == "on_divergence_interval_s") {
    auto n = parse_u32(value);
    if (!n || *n < 1 || *n > kOnDivergenceIntervalMaxS)
      return bad(("expected an integer from 1 to " + std::to_string(kOnDivergenceIntervalMaxS)).c_str());
    live.on_divergence_interval_s = *n;
  } else if (key == "keep_raw_near_divergence") {
    auto n = parse_u32(value);
    if (!n || *n > kKeepRawNearDivergenceMax)
      return bad(("expected an integer from 0 to " + std::to_string(kKeepRawNearDivergenceMax)).c_str());
    live.keep_raw_near_divergence = *n;
  } else {
    auto b = parse_bytes(value);
    if (!b) return bad(kSizeExpected);
    live.held_raw_cap_bytes = *b;
  }
  return ok_status();
}

Status apply_key(std::string_view key, std::string_view value, WatchSettings& s, const std::string& where) {
  auto bad = [&](const char* what) {
    return make_error(where, Stage::kConfig, "`" + std::string(key) + " = " + std::string(value) + "`: " + what);
  };
  if (key == "dir") {
    if (value.empty()) return bad("empty directory");
    s.dirs.emplace_back(value);
  } else if (key == "settle_ms" || key == "jobs" || key == "rescan_interval_s" || key == "low_space_hook_interval_s") {
    auto n = parse_u32(value);
    if (!n) return bad("expected a non-negative integer");
    if (key == "settle_ms") s.settle_ms = *n;
    else if (key == "jobs") s.jobs = *n;
    else if (key == "rescan_interval_s") s.rescan_interval_s = *n;
    else s.low_space_hook_interval_s = *n;
  } else if (key == kMaxWatchesPerRoot.key) {
    auto n = parse_u32(value);
    if (!n || !kMaxWatchesPerRoot.contains(*n)) return bad(out_of_range(kMaxWatchesPerRoot).c_str());
    s.max_watches_per_root = *n;
  } else if (key == "min_free") {
    auto m = parse_min_free(value);
    if (!m) return bad("expected bytes with an optional K/M/G/T suffix, or a percent from 0% to 100%");
    s.min_free = *m;
  } else if (key == "low_space_hook") {
    s.low_space_hook = std::string(value);
  } else if (key == "summary_format") {
    auto f = parse_summary_format(value);
    if (!f.ok()) return bad("expected store, json or msit");
    s.compact.format = *f;
  } else if (key == "keep_raw" || key == "verbose" || key == "archive") {
    auto b = parse_bool(value);
    if (!b) return bad("expected true or false");
    (key == "keep_raw" ? s.compact.keep_raw : key == "archive" ? s.compact.archive : s.verbose) = *b;
  } else if (key == kZstdLevel.key || key == kZstdWorkers.key) {
    const IntSetting& r = key == kZstdLevel.key ? kZstdLevel : kZstdWorkers;
    int n = 0;
    auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
    if (ec != std::errc() || p != value.data() + value.size() || !r.contains(n)) return bad(out_of_range(r).c_str());
    (key == kZstdLevel.key ? s.compact.zstd_level : s.compact.zstd_workers) = n;
  } else if (key == kSketchWidth.key) {
    auto n = parse_u32(value);
    if (!n || !is_valid_sketch_width(*n)) return bad("expected a power of two from 2 to 65536");
    s.compact.sketch_width = *n;
  } else if (key == "sketch_bits") {
    auto n = parse_u32(value);
    if (!n || (*n != 32 && *n != 64)) return bad("expected 32 or 64");
    s.compact.sketch_bits = *n;
  } else if (key == "json_status") {
    s.json_status = std::string(value);
  } else if (is_live_key(key)) {
    return apply_live_key(key, value, s.live, bad);
  } else {
    return bad(
        "unknown key (known: dir, settle_ms, jobs, summary_format, keep_raw, archive, zstd_level, "
        "zstd_workers, sketch_width, sketch_bits, rescan_interval_s, max_watches_per_root, json_status, verbose, "
        "min_free, low_space_hook, low_space_hook_interval_s, golden, op_mapping_file, events, on_divergence, "
        "on_divergence_interval_s, keep_raw_near_divergence, held_raw_cap)");
  }
  return ok_status();
}

// Config files may be symlinks (managed by configuration tools), unlike dump files.
Result<std::string> read_config_file(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "re");
  if (f == nullptr) return make_sys_error(path, Stage::kConfig, "cannot open config file", errno);
  std::string text;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0 && text.size() < (1u << 20)) text.append(buf, n);
  bool failed = std::ferror(f) != 0;
  std::fclose(f);
  if (failed) return make_error(path, Stage::kConfig, "read error");
  return text;
}

// The command line's live options; their ranges are checked by CLI11 (cli/watch.cpp).
Status apply_live_overrides(const SettingOverrides& o, LiveSettings& live) {
  if (!o.goldens.empty()) {
    live.goldens.clear();
    for (const auto& spec : o.goldens) {
      LiveGolden g = parse_golden_spec(spec);
      if (g.golden.empty())
        return make_error("--golden " + spec, Stage::kConfig, "expected GOLDEN or ROOT=GOLDEN (a directory)");
      live.goldens.push_back(std::move(g));
    }
  }
  if (o.op_mapping_file) live.op_mapping_file = *o.op_mapping_file;
  if (o.events_file) live.events_file = *o.events_file;
  if (o.on_divergence) live.on_divergence = *o.on_divergence;
  if (o.keep_raw_near_divergence) live.keep_raw_near_divergence = *o.keep_raw_near_divergence;
  if (o.held_raw_cap) {
    auto b = parse_bytes(*o.held_raw_cap);
    if (!b) return make_error("--held-raw-cap " + *o.held_raw_cap, Stage::kConfig, kSizeExpected);
    live.held_raw_cap_bytes = *b;
  }
  return ok_status();
}

}  // namespace

Status apply_config_text(std::string_view text, const std::string& path, WatchSettings& s) {
  size_t line_no = 0;
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    ++line_no;
    line = trim(line);
    if (line.empty() || line.front() == '#') continue;
    std::string where = path + ":" + std::to_string(line_no);
    size_t eq = line.find('=');
    if (eq == std::string_view::npos)
      return make_error(where, Stage::kConfig, "expected `key = value`, got `" + std::string(line) + "`");
    MSIT_TRY(apply_key(trim(line.substr(0, eq)), trim(line.substr(eq + 1)), s, where));
  }
  return ok_status();
}

Result<WatchSettings> load_settings(const std::string& config_path, const SettingOverrides& o) {
  WatchSettings s;
  MSIT_ASSIGN_OR_RETURN(s.compact.format, default_summary_format());
  if (!config_path.empty()) {
    MSIT_ASSIGN_OR_RETURN(std::string text, read_config_file(config_path));
    MSIT_TRY(apply_config_text(text, config_path, s));
  }
  if (!o.dirs.empty()) s.dirs = o.dirs;  // directories on the command line replace the file's
  if (o.settle_ms) s.settle_ms = *o.settle_ms;
  if (o.jobs) s.jobs = *o.jobs;
  if (o.rescan_interval_s) s.rescan_interval_s = *o.rescan_interval_s;
  if (o.format) s.compact.format = *o.format;
  if (o.keep_raw) s.compact.keep_raw = *o.keep_raw;
  if (o.archive) s.compact.archive = *o.archive;
  if (o.zstd_level) s.compact.zstd_level = *o.zstd_level;
  if (o.zstd_workers) s.compact.zstd_workers = *o.zstd_workers;
  if (o.sketch_width) s.compact.sketch_width = *o.sketch_width;
  if (o.sketch_bits) s.compact.sketch_bits = *o.sketch_bits;
  if (o.verbose) s.verbose = *o.verbose;
  if (o.json_status) s.json_status = *o.json_status;
  if (o.min_free) {
    auto m = parse_min_free(*o.min_free);
    if (!m)
      return make_error("--min-free " + *o.min_free, Stage::kConfig,
                        "expected bytes with an optional K/M/G/T suffix, or a percent from 0% to 100%");
    s.min_free = *m;
  }
  MSIT_TRY(apply_live_overrides(o, s.live));
  if (s.dirs.empty())
    return make_error(config_path, Stage::kConfig, "no directory to watch (give DIR or `dir = PATH`)");
  // One range per setting, shared with the command line (common/compaction/option_limits.h).
  auto check = [&config_path](const IntSetting& r, int64_t v, bool zero_is_default) -> Status {
    if (r.contains(v) || (zero_is_default && v == 0)) return ok_status();
    return make_error(config_path, Stage::kConfig,
                      std::string(r.key) + " = " + std::to_string(v) + ": " + out_of_range(r));
  };
  MSIT_TRY(check(kRescanIntervalS, s.rescan_interval_s, false));
  MSIT_TRY(check(kSettleMs, s.settle_ms, false));
  MSIT_TRY(check(kJobs, s.jobs, true));
  if (s.low_space_hook_interval_s == 0)
    return make_error(config_path, Stage::kConfig, "low_space_hook_interval_s must be at least 1");
  if (s.compact.archive && s.compact.keep_raw)
    return make_error(config_path, Stage::kConfig, "archive and keep_raw exclude each other");
  return s;
}

}  // namespace msit::daemon
