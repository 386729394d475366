// Watch settings and the config file that sets them: `key = value` lines, `#` comments.
#include "daemon/config.h"

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <type_traits>
#include <variant>

#include "daemon/setting_table.h"

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
std::string out_of_range(int64_t min, int64_t max) {
  return "expected an integer from " + std::to_string(min) + " to " + std::to_string(max);
}
std::string out_of_range(const IntSetting& r) { return out_of_range(r.min, r.max); }

std::optional<int64_t> parse_i64(std::string_view v) {
  int64_t out = 0;
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  if (ec != std::errc() || p != v.data() + v.size()) return std::nullopt;
  return out;
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

Status apply_key(std::string_view key, std::string_view value, WatchSettings& s, const std::string& where) {
  auto bad = [&](const std::string& what) {
    return make_error(where, Stage::kConfig, "`" + std::string(key) + " = " + std::string(value) + "`: " + what);
  };
  const WatchSetting* setting = find_setting(key);
  if (setting == nullptr) return bad("unknown key (known: " + setting_keys() + ")");
  if (auto what = set_setting(*setting, value, s)) return bad(*what);
  return ok_status();
}

template <class T>
void store_integer(const SettingField& field, T n) {
  std::visit(
      [n](auto p) {
        using P = std::remove_pointer_t<decltype(p)>;
        if constexpr (std::is_same_v<P, uint32_t> || std::is_same_v<P, int> || std::is_same_v<P, uint64_t>)
          *p = static_cast<P>(n);
      },
      field);
}

template <class T>
void store_value(const SettingField& field, T v) {
  if (auto* p = std::get_if<T*>(&field)) **p = std::move(v);
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

// One command-line value (checked by CLI11 where it can be, cli/watch.cpp); the others fail
// here naming the option ("--min-free 1 GB").
Status apply_override(const WatchSetting& setting, const OverrideField& given, WatchSettings& s) {
  SettingField field = setting.field(s);
  auto set_text = [&](const std::string& text) -> Status {
    if (auto what = set_setting(setting, text, s))
      return make_error(std::string(setting_detail::long_flag(setting.flags)) + " " + text, Stage::kConfig, *what);
    return ok_status();
  };
  if (auto* list = std::get_if<std::vector<std::string>*>(&given)) {
    if ((*list)->empty()) return ok_status();  // the command line's list replaces the file's
    if (auto* dirs = std::get_if<std::vector<std::string>*>(&field)) {
      **dirs = **list;
      return ok_status();
    }
    if (auto* goldens = std::get_if<std::vector<LiveGolden>*>(&field)) (*goldens)->clear();
    for (const auto& text : **list) MSIT_TRY(set_text(text));
  } else if (auto* n = std::get_if<std::optional<uint32_t>*>(&given)) {
    if (**n) store_integer(field, ***n);
  } else if (auto* i = std::get_if<std::optional<int>*>(&given)) {
    if (**i) store_integer(field, ***i);
  } else if (auto* b = std::get_if<std::optional<bool>*>(&given)) {
    if (**b) store_value(field, ***b);
  } else if (auto* f = std::get_if<std::optional<SummaryFormat>*>(&given)) {
    if (**f) store_value(field, ***f);
  } else if (auto* t = std::get_if<std::optional<std::string>*>(&given)) {
    if (**t) MSIT_TRY(set_text(***t));
  }
  return ok_status();
}

}  // namespace

std::optional<std::string> set_setting(const WatchSetting& setting, std::string_view value, WatchSettings& s) {
  const SettingField field = setting.field(s);
  switch (setting.kind) {
    case SettingKind::kDirectory:
      if (value.empty()) return "empty directory";
      std::get<std::vector<std::string>*>(field)->emplace_back(value);
      break;
    case SettingKind::kCount: {  // its range: load_settings(), once the options are merged
      auto n = parse_u32(value);
      if (!n) return "expected a non-negative integer";
      store_integer(field, *n);
      break;
    }
    case SettingKind::kRanged: {
      auto n = parse_i64(value);
      if (!n || *n < setting.min || *n > setting.max) return out_of_range(setting.min, setting.max);
      store_integer(field, *n);
      break;
    }
    case SettingKind::kSketchWidth: {
      auto n = parse_u32(value);
      if (!n || !is_valid_sketch_width(*n))
        return "expected a power of two from " + std::to_string(setting.min) + " to " + std::to_string(setting.max);
      store_integer(field, *n);
      break;
    }
    case SettingKind::kSketchBits: {
      auto n = parse_u32(value);
      if (!n || (*n != 32 && *n != 64)) return "expected 32 or 64";
      store_integer(field, *n);
      break;
    }
    case SettingKind::kBool:
    case SettingKind::kVerbosity: {
      auto b = parse_bool(value);
      if (!b) return "expected true or false";
      store_value(field, *b);
      break;
    }
    case SettingKind::kFormat: {
      auto f = parse_summary_format(value);
      if (!f.ok()) return "expected store, json or msit";
      store_value(field, *f);
      break;
    }
    case SettingKind::kText: store_value(field, std::string(value)); break;
    case SettingKind::kMinFree: {
      auto m = parse_min_free(value);
      if (!m) return "expected bytes with an optional K/M/G/T suffix, or a percent from 0% to 100%";
      store_value(field, *m);
      break;
    }
    case SettingKind::kSize: {
      auto b = parse_bytes(value);
      if (!b) return kSizeExpected;
      store_value(field, *b);
      break;
    }
    case SettingKind::kGolden: {
      LiveGolden g = parse_golden_spec(value);
      if (g.golden.empty()) return "expected GOLDEN or ROOT=GOLDEN (a directory)";
      std::get<std::vector<LiveGolden>*>(field)->push_back(std::move(g));
      break;
    }
    case SettingKind::kConfigFile: break;
  }
  return std::nullopt;
}

const WatchSetting* find_setting(std::string_view key) {
  for (const WatchSetting& setting : kWatchSettings)
    if (!setting.key.empty() && setting.key == key) return &setting;
  return nullptr;
}

std::string setting_keys() {
  std::string out;
  for (const WatchSetting& setting : kWatchSettings)
    if (!setting.key.empty()) out += (out.empty() ? "" : ", ") + std::string(setting.key);
  return out;
}

namespace {

template <class T>
bool same_value(const T& a, const T& b) {
  if constexpr (std::is_same_v<T, std::vector<LiveGolden>>) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
      if (a[i].root != b[i].root || a[i].golden != b[i].golden) return false;
    return true;
  } else if constexpr (requires { a == b; }) {
    return a == b;
  } else {
    return false;
  }
}

// Copies *from into *to (the same member of two WatchSettings); true when they differed.
bool copy_back(const SettingField& to, const SettingField& from) {
  return std::visit(
      [&from](auto p) {
        using P = decltype(p);
        if constexpr (std::is_same_v<P, std::monostate>) {
          return false;
        } else {
          P q = std::get<P>(from);
          const bool changed = !same_value(*p, *q);
          *p = *q;
          return changed;
        }
      },
      to);
}

}  // namespace

std::string keep_at_reload(WatchSettings& next, WatchSettings& now, SettingReload which) {
  std::vector<std::string_view> keys;
  bool changed = false;
  for (const WatchSetting& setting : kWatchSettings) {
    if (setting.reload != which || setting.field == nullptr) continue;
    keys.push_back(setting.key);
    changed = copy_back(setting.field(next), setting.field(now)) || changed;
  }
  if (!changed) return {};
  std::string list;
  for (size_t i = 0; i < keys.size(); ++i)
    list += std::string(i == 0 ? "" : i + 1 == keys.size() ? " and " : ", ") + std::string(keys[i]);
  return "config: changes to " + list + " take effect after a restart";
}

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
  SettingOverrides given = o;
  for (const WatchSetting& setting : kWatchSettings)
    if (setting.given != nullptr) MSIT_TRY(apply_override(setting, setting.given(given), s));
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
