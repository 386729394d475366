// Config file parsing for `watch`: keys, comments, errors naming file:line, and precedence.
#include <gtest/gtest.h>

#include <cstdio>

#include "daemon/config.h"
#include "daemon_fakes.h"

namespace msit::daemon {
namespace {

TEST(DaemonConfig, ParsesKeysCommentsAndRepeatedDirs) {
  WatchSettings s;
  const char* text =
      "# msit-compact watch\n"
      "dir = /data/a\n"
      "  dir=/data/b  \n"
      "\n"
      "settle_ms = 50\r\n"
      "jobs = 3\n"
      "summary_format = msit\n"
      "keep_raw = yes\n"
      "rescan_interval_s = 7\n"
      "json_status = /run/x.json\n";
  ASSERT_TRUE(apply_config_text(text, "c.conf", s).ok());
  EXPECT_EQ(s.dirs, (std::vector<std::string>{"/data/a", "/data/b"}));
  EXPECT_EQ(s.settle_ms, 50u);
  EXPECT_EQ(s.jobs, 3u);
  EXPECT_EQ(s.compact.format, SummaryFormat::kMsit);
  EXPECT_TRUE(s.compact.keep_raw);
  EXPECT_EQ(s.rescan_interval_s, 7u);
  EXPECT_EQ(s.json_status, "/run/x.json");
}

TEST(DaemonConfig, ErrorsNameFileLineAndKey) {
  WatchSettings s;
  auto r = apply_config_text("dir = /x\nsettle_ms = fast\n", "/etc/m.conf", s);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().path, "/etc/m.conf:2");
  EXPECT_EQ(r.error().stage, Stage::kConfig);
  EXPECT_NE(r.error().message.find("settle_ms"), std::string::npos);
  EXPECT_FALSE(apply_config_text("colour = blue\n", "m", s).ok());
  EXPECT_FALSE(apply_config_text("no equals sign\n", "m", s).ok());
  EXPECT_FALSE(apply_config_text("summary_format = npz\n", "m", s).ok());
  EXPECT_FALSE(apply_config_text("keep_raw = maybe\n", "m", s).ok());
  EXPECT_FALSE(apply_config_text("jobs = -1\n", "m", s).ok());
}

// `watch` and `compact` build their CompactOptions with the same function from the same
// settings (they once drifted: the daemon ignored zstd workers and the sketch settings).
TEST(DaemonConfig, CompactSettingsReachTheCompactOptions) {
  WatchSettings s;
  ASSERT_TRUE(apply_config_text("archive = true\nzstd_level = -3\nzstd_workers = 4\nsketch_width = 256\n"
                                "sketch_bits = 64\nsummary_format = json\n",
                                "c.conf", s)
                  .ok());
  const CompactOptions c = compact_options(s.compact);
  EXPECT_EQ(c.format, SummaryFormat::kRich);
  EXPECT_EQ(c.raw, RawAction::kArchive);
  EXPECT_EQ(c.archive.level, -3);
  EXPECT_EQ(c.archive.workers, 4);
  EXPECT_EQ(c.stats.sketch_width, 256u);
  EXPECT_EQ(c.store_sketch, store::SketchPrecision::kFloat64);
  EXPECT_FALSE(c.dry_run);
  // Defaults: the same as `compact` without options.
  const CompactOptions d = compact_options(CompactSettings{});
  EXPECT_EQ(d.raw, RawAction::kDelete);
  EXPECT_EQ(d.archive.level, kZstdLevel.def);
  EXPECT_EQ(d.archive.workers, kZstdWorkers.def);
  EXPECT_EQ(d.stats.sketch_width, static_cast<uint32_t>(kSketchWidth.def));
  EXPECT_EQ(d.store_sketch, store::SketchPrecision::kFloat32);
  EXPECT_FALSE(apply_config_text("sketch_width = 100\n", "m", s).ok());  // not a power of two
  EXPECT_FALSE(apply_config_text("sketch_bits = 16\n", "m", s).ok());
  EXPECT_FALSE(apply_config_text("zstd_workers = 0\n", "m", s).ok());
}

// The example config installed with the package is valid.
TEST(DaemonConfig, ExampleConfigParses) {
  std::string text;
  {
    std::FILE* f = std::fopen(MSIT_SOURCE_DIR "/systemd/msit-compact.conf", "re");
    ASSERT_NE(f, nullptr);
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
    std::fclose(f);
  }
  WatchSettings s;
  Status st = apply_config_text(text, "msit-compact.conf", s);
  ASSERT_TRUE(st.ok()) << st.error().to_string();
  EXPECT_EQ(s.compact.format, SummaryFormat::kStore);
}

TEST(DaemonConfig, CommandLineWinsOverTheFile) {
  testing::TempDir tmp;
  std::string conf = tmp.path + "/m.conf";
  testing::write_file(conf, "dir = /from/file\nsettle_ms = 10\njobs = 2\n");
  SettingOverrides o;
  o.settle_ms = 300;
  auto s = load_settings(conf, o);
  ASSERT_TRUE(s.ok()) << s.error().to_string();
  EXPECT_EQ(s->settle_ms, 300u);
  EXPECT_EQ(s->jobs, 2u);
  EXPECT_EQ(s->dirs, std::vector<std::string>{"/from/file"});
  o.dirs = {"/from/cli"};
  EXPECT_EQ(load_settings(conf, o)->dirs, std::vector<std::string>{"/from/cli"});
}

TEST(DaemonConfig, MissingFileOrNoDirectoryIsAConfigError) {
  SettingOverrides o;
  auto missing = load_settings("/nonexistent/msit.conf", o);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().stage, Stage::kConfig);
  EXPECT_FALSE(load_settings("", o).ok());
  o.dirs = {"/x"};
  EXPECT_TRUE(load_settings("", o).ok());
  o.rescan_interval_s = 0;
  EXPECT_FALSE(load_settings("", o).ok());
}

}  // namespace
}  // namespace msit::daemon
