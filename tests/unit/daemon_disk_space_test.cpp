// Free-space watermarks of `watch`: parsing of min_free, crossing detection with hysteresis,
// one warning per crossing, the rate-limited hook, grouping of roots per filesystem.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include <nlohmann/json.hpp>

#include "daemon/config.h"
#include "daemon/disk_space.h"

namespace msit::daemon {
namespace {

constexpr int64_t kSec = 1'000'000'000;
constexpr uint64_t kGiB = 1ull << 30;

struct Fixture {
  std::map<std::string, FsSpace> space;  // what the fake statvfs returns per root
  std::vector<std::string> lines;
  std::vector<std::vector<std::string>> hooks;
  Logger log{false};
  DiskWatermarks marks;

  explicit Fixture(WatermarkOptions o, std::vector<std::string> roots = {"/data/a"})
      : marks(
            std::move(o), std::move(roots),
            [this](const std::string& p) -> Result<FsSpace> {
              auto it = space.find(p);
              if (it == space.end()) return make_error(p, Stage::kStatvfs, "no such filesystem");
              return it->second;
            },
            log,
            [this](const std::vector<std::string>& argv) {
              hooks.push_back(argv);
              return true;
            }) {
    log.capture_to(&lines);
  }
  size_t count(const std::string& needle) const {
    return static_cast<size_t>(std::count_if(
        lines.begin(), lines.end(), [&](const std::string& l) { return l.find(needle) != std::string::npos; }));
  }
};

WatermarkOptions bytes_mark(uint64_t bytes, std::vector<std::string> hook = {}) {
  WatermarkOptions o;
  o.min_free = MinFree{bytes, 0, false};
  o.hook_argv = std::move(hook);
  o.hook_interval_ns = 60 * kSec;
  return o;
}

TEST(DiskSpace, ParsesMinFree) {
  EXPECT_EQ(parse_min_free("0"), (MinFree{0, 0, false}));
  EXPECT_EQ(parse_min_free("512M"), (MinFree{512ull << 20, 0, false}));
  EXPECT_EQ(parse_min_free("20GiB"), (MinFree{20 * kGiB, 0, false}));
  EXPECT_EQ(parse_min_free("2TB"), (MinFree{2ull << 40, 0, false}));
  EXPECT_EQ(parse_min_free("1234"), (MinFree{1234, 0, false}));
  EXPECT_EQ(parse_min_free("5%"), (MinFree{0, 5, true}));
  for (const char* bad : {"", "%", "-1", "5 %", "101%", "1.5G", "3X", "1Gi", "99999999999T"})
    EXPECT_FALSE(parse_min_free(bad).has_value()) << bad;
  EXPECT_EQ((MinFree{0, 5, true}).threshold(1000), 50u);
  EXPECT_EQ((MinFree{0, 100, true}).threshold(UINT64_MAX), UINT64_MAX);
}

TEST(DiskSpace, WarnsOncePerCrossingWithHysteresis) {
  Fixture f(bytes_mark(10 * kGiB));
  f.space["/data/a"] = {1, 50 * kGiB, 100 * kGiB};
  f.marks.check(0);
  EXPECT_EQ(f.marks.low_count(), 0u);
  EXPECT_EQ(f.marks.status_suffix(), "");
  f.space["/data/a"].free_bytes = 9 * kGiB;  // crossing: one warning
  for (int t = 1; t <= 5; ++t) f.marks.check(t * kSec);
  EXPECT_EQ(f.count("low disk space"), 1u);
  EXPECT_EQ(f.marks.low_count(), 1u);
  EXPECT_NE(f.marks.status_suffix().find("low disk space: /data/a 9.0 GiB free (min 10.0 GiB)"), std::string::npos);
  // Just above the line is not a recovery (hysteresis: 10% of the threshold).
  f.space["/data/a"].free_bytes = 10 * kGiB + kGiB / 2;
  f.marks.check(6 * kSec);
  EXPECT_EQ(f.marks.low_count(), 1u);
  EXPECT_EQ(f.count("recovered"), 0u);
  f.space["/data/a"].free_bytes = 12 * kGiB;
  f.marks.check(7 * kSec);
  EXPECT_EQ(f.marks.low_count(), 0u);
  EXPECT_EQ(f.count("recovered"), 1u);
  // Hovering just under the threshold again: a second crossing, a second warning.
  f.space["/data/a"].free_bytes = 10 * kGiB - 1;
  f.marks.check(8 * kSec);
  f.marks.check(9 * kSec);
  EXPECT_EQ(f.count("low disk space"), 2u);
}

TEST(DiskSpace, HookIsRateLimitedAndGetsRootAndFreeBytes) {
  Fixture f(bytes_mark(10 * kGiB, {"/usr/bin/cleanup", "--fast"}));
  f.space["/data/a"] = {1, 5 * kGiB, 100 * kGiB};
  f.marks.check(0);
  ASSERT_EQ(f.hooks.size(), 1u);
  EXPECT_EQ(f.hooks[0], (std::vector<std::string>{"/usr/bin/cleanup", "--fast", "/data/a", std::to_string(5 * kGiB)}));
  for (int t = 1; t < 60; ++t) f.marks.check(t * kSec);
  EXPECT_EQ(f.hooks.size(), 1u);  // still low, but within the interval
  f.marks.check(60 * kSec);
  EXPECT_EQ(f.hooks.size(), 2u);  // still low after a whole interval: run again
  // Recovery then a new crossing within the interval: the rate limit still holds.
  f.space["/data/a"].free_bytes = 50 * kGiB;
  f.marks.check(61 * kSec);
  f.space["/data/a"].free_bytes = kGiB;
  f.marks.check(62 * kSec);
  EXPECT_EQ(f.count("low disk space"), 2u);
  EXPECT_EQ(f.hooks.size(), 2u);
  f.marks.check(120 * kSec);
  EXPECT_EQ(f.hooks.size(), 3u);
}

TEST(DiskSpace, RootsOnOneFilesystemShareOneStateAndZeroTurnsItOff) {
  Fixture f(bytes_mark(10 * kGiB, {"hook"}), {"/data/a", "/data/b", "/scratch"});
  f.space["/data/a"] = {1, kGiB, 100 * kGiB};
  f.space["/data/b"] = {1, kGiB, 100 * kGiB};
  f.space["/scratch"] = {2, 90 * kGiB, 100 * kGiB};
  f.marks.check(0);
  EXPECT_EQ(f.marks.low_count(), 1u);
  EXPECT_EQ(f.count("low disk space"), 1u);
  EXPECT_EQ(f.count("and 1 other root(s)"), 1u);
  EXPECT_EQ(f.hooks.size(), 1u);
  nlohmann::json j = f.marks.to_json();
  ASSERT_EQ(j.size(), 2u);
  EXPECT_EQ(j[0]["roots"], (nlohmann::json{"/data/a", "/data/b"}));
  EXPECT_EQ(j[0]["low"], true);
  EXPECT_EQ(j[0]["min_free_bytes"], 10 * kGiB);
  EXPECT_EQ(j[1]["low"], false);
  // A reload to min_free = 0 clears the state (logged as a recovery) and stops the hook.
  f.marks.set_options(bytes_mark(0, {"hook"}));
  f.marks.check(100 * kSec);
  EXPECT_EQ(f.marks.low_count(), 0u);
  EXPECT_EQ(f.hooks.size(), 1u);
}

TEST(DiskSpace, StatvfsErrorsAreReportedOncePerRoot) {
  Fixture f(bytes_mark(kGiB), {"/gone"});
  for (int t = 0; t < 3; ++t) f.marks.check(t * kSec);
  EXPECT_EQ(f.count("no such filesystem"), 1u);
  EXPECT_EQ(f.marks.to_json().size(), 0u);
}

TEST(DiskSpace, RealStatvfsUsesNearestExistingAncestor) {
  auto here = statvfs_space("/tmp");
  ASSERT_TRUE(here.ok());
  EXPECT_GT(here->total_bytes, 0u);
  auto missing = statvfs_space("/tmp/msit-no-such-dir/deeper/still");
  ASSERT_TRUE(missing.ok());
  EXPECT_EQ(missing->dev, here->dev);
}

TEST(DiskSpace, ConfigKeysAndOverride) {
  WatchSettings s;
  ASSERT_TRUE(apply_config_text("min_free = 2G\nlow_space_hook = /bin/notify  -x\n"
                                "low_space_hook_interval_s = 60\n",
                                "c.conf", s)
                  .ok());
  EXPECT_EQ(s.min_free, (MinFree{2 * kGiB, 0, false}));
  EXPECT_EQ(split_command(s.low_space_hook), (std::vector<std::string>{"/bin/notify", "-x"}));
  EXPECT_EQ(s.low_space_hook_interval_s, 60u);
  EXPECT_FALSE(apply_config_text("min_free = lots\n", "c.conf", s).ok());
  EXPECT_EQ(WatchSettings{}.min_free, (MinFree{0, 5, true}));
  SettingOverrides o;
  o.dirs = {"/x"};
  o.min_free = "1%";
  auto r = load_settings("", o);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->min_free, (MinFree{0, 1, true}));
  o.min_free = "1 GB";
  EXPECT_FALSE(load_settings("", o).ok());
}

}  // namespace
}  // namespace msit::daemon
