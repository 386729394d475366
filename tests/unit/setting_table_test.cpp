// The watch settings table (daemon/setting_table.h) against what is written by hand from it:
// the man page's watch section and config keys, the bash and zsh completions; and the table
// driving the config file (every key parses, unknown keys list the table) and a reload.
#include "daemon/setting_table.h"

// GCC 12 reports std::function members of libstdc++'s regex automaton as maybe uninitialized when
// inlined under -fsanitize=address (a false positive in the library's own code, not in this test).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "cli/msit_spellings.h"

namespace msit::daemon {
namespace {

std::string read_source(const std::string& rel) {
  std::ifstream in(std::string(MSIT_SOURCE_DIR) + "/" + rel);
  EXPECT_TRUE(in) << rel;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// From the first line equal to `begin` up to (not including) the first later line starting with `end`.
std::string block(const std::string& text, const std::string& begin, const std::string& end) {
  size_t a = text.find("\n" + begin + "\n");
  EXPECT_NE(a, std::string::npos) << begin;
  if (a == std::string::npos) return {};
  a += begin.size() + 2;
  size_t b = text.find("\n" + end, a);
  return text.substr(a, b == std::string::npos ? std::string::npos : b - a);
}

std::set<std::string> matches(const std::string& text, const std::string& re, size_t group = 1) {
  std::set<std::string> out;
  const std::regex r(re);
  for (auto it = std::sregex_iterator(text.begin(), text.end(), r); it != std::sregex_iterator(); ++it)
    out.insert((*it)[group].str());
  return out;
}

// Every option name the table gives `watch`, plus the shared -q (with -v) and msit's spellings
// of them (cli/msit_spellings.h).
std::set<std::string> table_flags() {
  std::set<std::string> out;
  for (const WatchSetting& s : kWatchSettings) {
    if (s.flags.empty() || s.kind == SettingKind::kDirectory) continue;
    if (s.given == nullptr && s.kind != SettingKind::kConfigFile) continue;
    std::string_view f = s.flags;
    while (!f.empty()) {
      size_t comma = f.find(',');
      out.insert(std::string(f.substr(0, comma)));
      f = comma == std::string_view::npos ? std::string_view() : f.substr(comma + 1);
    }
    if (s.kind == SettingKind::kVerbosity) out.insert({"-q", "--quiet"});
  }
  for (const auto& sp : cli::kMsitSpellings)
    if (out.count(std::string(sp.ours))) out.insert(std::string(sp.msit));
  return out;
}

std::set<std::string> table_keys() {
  std::set<std::string> out;
  for (const WatchSetting& s : kWatchSettings)
    if (!s.key.empty()) out.insert(std::string(s.key));
  return out;
}

TEST(SettingTable, ManPageListsExactlyTheTablesOptionsAndConfigKeys) {
  const std::string man = read_source("docs/man/msit-compact.1");
  const std::string watch = block(man, ".SS \"watch [options] [dir...]\"", ".SS ");
  // Each option is a .TP item: `.BI \-\-settle\-ms " N"` or `.BR \-j ", " \-\-jobs " \fIN\fR"`.
  std::set<std::string> options;
  for (const std::string& item : matches(watch, R"(\.TP\n\.B[IR]? ([^\n]*))")) {
    for (std::string name : matches(item, R"((\\-\\-[a-z\\-]+|\\-[a-z]+))")) {
      name = std::regex_replace(name, std::regex(R"(\\-)"), "-");
      options.insert(name);
    }
  }
  EXPECT_EQ(options, table_flags());
  // `--config file`: "(keys dir, settle_ms, ... );" names every config key and nothing else.
  const size_t at = watch.find("(keys");
  ASSERT_NE(at, std::string::npos);
  const std::string keys_text = watch.substr(at + 5, watch.find(')', at) - at - 5);
  EXPECT_EQ(matches(keys_text, R"((^|[ \n])([a-z][a-z_]*)(?=[ \n]|$))", 2), table_keys());
}

// The man page states each numeric option's range and default as the table has them:
// "(0 to 600000, default 200)".
TEST(SettingTable, ManPageStatesTheTablesRangesAndDefaults) {
  const std::string man = read_source("docs/man/msit-compact.1");
  const std::string watch = block(man, ".SS \"watch [options] [dir...]\"", ".SS ");
  int checked = 0;
  for (const WatchSetting& s : kWatchSettings) {
    if (s.flags.empty() || s.given == nullptr) continue;
    if (s.kind != SettingKind::kCount && s.kind != SettingKind::kRanged && s.kind != SettingKind::kSketchWidth)
      continue;
    std::string flag(setting_detail::long_flag(s.flags));
    flag = std::regex_replace(flag, std::regex("-"), "\\-");
    const size_t at = watch.find(flag + " ");
    ASSERT_NE(at, std::string::npos) << flag;
    std::string item = watch.substr(at, watch.find("\n.TP", at) - at);
    item = std::regex_replace(item, std::regex(R"(\s+)"), " ");
    auto number = [](int64_t v) { return v < 0 ? "\\-" + std::to_string(-v) : std::to_string(v); };
    EXPECT_NE(item.find(number(s.min) + " to " + number(s.max)), std::string::npos) << s.key << ": " << item;
    if (s.def != 0 || s.default_note.empty()) {
      EXPECT_NE(item.find("default " + number(s.def)), std::string::npos) << s.key << ": " << item;
    }
    ++checked;
  }
  EXPECT_EQ(checked,
            8);  // settle, jobs, zstd level and workers, sketch width, rescan, watch share, keep near divergence
}

TEST(SettingTable, BashCompletionListsExactlyTheTablesOptions) {
  const std::string bash = read_source("packaging/completions/msit-compact.bash");
  const std::string watch = block(bash, "    watch)", "      ;;");
  std::set<std::string> options;
  for (const std::string& words : matches(watch, R"(opts\+=\"([^\"]*)\")"))
    for (const std::string& w : matches(words, R"((-[-a-z]+))")) options.insert(w);
  EXPECT_EQ(options, table_flags());
}

TEST(SettingTable, ZshCompletionListsExactlyTheTablesOptions) {
  const std::string zsh = read_source("packaging/completions/_msit-compact");
  const std::string watch = block(zsh, "        watch)", "          ;;");
  // `'--keep-raw[...]'`, `{-j,--jobs}'[...]'`, `'*''--golden[...]'`; skip the exclusion lists
  // in parentheses.
  std::set<std::string> options =
      matches(std::regex_replace(watch, std::regex(R"('\([^)]*\)')"), "''"), R"([{,'](-{1,2}[a-z][-a-z]*)(?=[\[,}]))");
  EXPECT_EQ(options, table_flags());
}

TEST(SettingTable, EveryKeyParsesItsDefaultAndUnknownKeysListTheTable) {
  for (const WatchSetting& s : kWatchSettings) {
    if (s.key.empty()) continue;
    EXPECT_EQ(find_setting(s.key), &s);
    std::string value = "x";
    if (s.kind == SettingKind::kCount || s.kind == SettingKind::kRanged || s.kind == SettingKind::kSketchWidth ||
        s.kind == SettingKind::kSketchBits)
      value = std::to_string(s.def);
    else if (s.kind == SettingKind::kBool || s.kind == SettingKind::kVerbosity) value = "true";
    else if (s.kind == SettingKind::kFormat) value = "json";
    else if (s.kind == SettingKind::kMinFree || s.kind == SettingKind::kSize) value = "4G";
    WatchSettings w;
    EXPECT_EQ(set_setting(s, value, w), std::nullopt) << s.key << " = " << value;
  }
  WatchSettings w;
  Status st = apply_config_text("no_such_key = 1\n", "/etc/m.conf", w);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().to_string().find("unknown key (known: " + setting_keys() + ")"), std::string::npos);
  EXPECT_EQ(setting_keys().substr(0, 20), "dir, settle_ms, jobs");
}

TEST(SettingTable, AReloadKeepsWhatTheTableMarksForARestart) {
  WatchSettings now, next;
  now.dirs = {"/a"};
  next.dirs = {"/b"};
  next.settle_ms = now.settle_ms + 1;
  next.live.on_divergence = "true";
  next.live.held_raw_cap_bytes = 1;
  EXPECT_EQ(keep_at_reload(next, now, SettingReload::kRestart),
            "config: changes to dir, jobs and max_watch_share take effect after a restart");
  EXPECT_EQ(keep_at_reload(next, now, SettingReload::kRestartLive),
            "config: changes to golden, op_mapping_file, events, keep_raw_near_divergence, recompute and held_raw_cap "
            "take effect after a restart");
  EXPECT_EQ(next.dirs, now.dirs);
  EXPECT_EQ(next.live.held_raw_cap_bytes, now.live.held_raw_cap_bytes);
  EXPECT_EQ(next.settle_ms, now.settle_ms + 1);  // applied at once
  EXPECT_EQ(next.live.on_divergence, "true");
  EXPECT_EQ(keep_at_reload(next, now, SettingReload::kRestart), "");  // nothing changed any more
}

}  // namespace
}  // namespace msit::daemon
