// Live divergence settings: config keys, command-line overrides and the checks that pair each
// golden with a watched root (errors name the setting, what is wrong and what to do).
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "cli/msit_spellings.h"
#include "daemon/config.h"
#include "daemon_fakes.h"

namespace msit::daemon {
namespace {

using testing::TempDir;
using testing::write_file;
namespace fs = std::filesystem;

std::string message(const Status& s) { return s.ok() ? std::string("ok") : s.error().to_string(); }

TEST(LiveSettings, ConfigKeysAreParsed) {
  WatchSettings s;
  ASSERT_TRUE(apply_config_text("golden = /g/a\n"
                                "golden = /data/b=/g/b\n"
                                "op_mapping_file = /etc/msit-map\n"
                                "events = /var/lib/msit/events.jsonl\n"
                                "on_divergence = /usr/local/bin/page -x\n"
                                "on_divergence_interval_s = 10\n"
                                "keep_raw_near_divergence = 3\n"
                                "held_raw_cap = 512M\n",
                                "c.conf", s)
                  .ok());
  ASSERT_EQ(s.live.goldens.size(), 2u);
  EXPECT_EQ(s.live.goldens[0].root, "");
  EXPECT_EQ(s.live.goldens[0].golden, "/g/a");
  EXPECT_EQ(s.live.goldens[1].root, "/data/b");
  EXPECT_EQ(s.live.goldens[1].golden, "/g/b");
  EXPECT_EQ(s.live.op_mapping_file, "/etc/msit-map");
  EXPECT_EQ(s.live.events_file, "/var/lib/msit/events.jsonl");
  EXPECT_EQ(s.live.on_divergence, "/usr/local/bin/page -x");
  EXPECT_EQ(s.live.on_divergence_interval_s, 10u);
  EXPECT_EQ(s.live.keep_raw_near_divergence, 3u);
  EXPECT_EQ(s.live.held_raw_cap_bytes, uint64_t{512} << 20);
}

TEST(LiveSettings, DefaultsAreOffWithAFourGibCap) {
  WatchSettings s;
  EXPECT_FALSE(s.live.enabled());
  EXPECT_EQ(s.live.keep_raw_near_divergence, 0u);
  EXPECT_EQ(s.live.on_divergence_interval_s, 60u);
  EXPECT_EQ(s.live.held_raw_cap_bytes, uint64_t{4} << 30);
}

TEST(LiveSettings, BadValuesNameTheKeyAndWhatIsExpected) {
  struct Case {
    const char* line;
    const char* expected;
  };
  for (const Case& c :
       {Case{"held_raw_cap = 5%", "expected bytes with an optional K/M/G/T suffix"},
        Case{"held_raw_cap = lots", "expected bytes"}, Case{"on_divergence_interval_s = 0", "from 1 to 86400"},
        Case{"keep_raw_near_divergence = -1", "from 0 to 100000"},
        Case{"keep_raw_near_divergence = 100001", "from 0 to 100000"},
        Case{"golden = ", "expected GOLDEN or ROOT=GOLDEN"},
        Case{"golden = /data/a=", "expected GOLDEN or ROOT=GOLDEN"}}) {
    WatchSettings s;
    Status st = apply_config_text(std::string(c.line) + "\n", "/etc/m.conf", s);
    ASSERT_FALSE(st.ok()) << c.line;
    EXPECT_EQ(st.error().path, "/etc/m.conf:1");
    EXPECT_NE(st.error().message.find(std::string(c.line).substr(0, std::string(c.line).find(' '))), std::string::npos)
        << st.error().message;
    EXPECT_NE(st.error().message.find(c.expected), std::string::npos) << st.error().message;
  }
}

TEST(LiveSettings, CommandLineGoldensReplaceTheFilesAndSizesAreChecked) {
  TempDir t;
  write_file(t.path + "/m.conf", "dir = /data/a\ngolden = /g/file\nevents = /e1\n");
  SettingOverrides o;
  o.goldens = {"/g/cli"};
  o.events_file = "/e2";
  o.held_raw_cap = "1G";
  o.keep_raw_near_divergence = 2;
  auto s = load_settings(t.path + "/m.conf", o);
  ASSERT_TRUE(s.ok()) << (s.ok() ? "" : s.error().to_string());
  ASSERT_EQ(s->live.goldens.size(), 1u);
  EXPECT_EQ(s->live.goldens[0].golden, "/g/cli");
  EXPECT_EQ(s->live.events_file, "/e2");
  EXPECT_EQ(s->live.held_raw_cap_bytes, uint64_t{1} << 30);
  EXPECT_EQ(s->live.keep_raw_near_divergence, 2u);
  o.held_raw_cap = "10%";
  auto bad = load_settings(t.path + "/m.conf", o);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().path, "--held-raw-cap 10%");
}

TEST(LiveSettings, GoldenSpecSplitsAtTheFirstEquals) {
  EXPECT_EQ(parse_golden_spec("/g").root, "");
  EXPECT_EQ(parse_golden_spec("/g").golden, "/g");
  LiveGolden g = parse_golden_spec("/data/a=/g/x=y");
  EXPECT_EQ(g.root, "/data/a");
  EXPECT_EQ(g.golden, "/g/x=y");
}

struct Trees {
  TempDir t;
  std::string a = t.path + "/a", b = t.path + "/b", ga = t.path + "/golden_a", gb = t.path + "/golden_b";
  Trees() {
    for (const auto& d : {a, b, ga, gb}) fs::create_directory(d);
  }
};

Status check(LiveSettings& live, const std::vector<std::string>& roots, bool skip_other_roots = false) {
  return check_live_settings(live, roots, LiveCheck{"--golden", skip_other_roots});
}

TEST(LiveSettings, ABareGoldenPairsTheOnlyRoot) {
  Trees x;
  LiveSettings live;
  live.goldens = {{"", x.ga}};
  ASSERT_TRUE(check(live, {x.a}).ok());
  EXPECT_EQ(live.goldens[0].root, x.a);
  EXPECT_EQ(live.goldens[0].golden, x.ga);
  EXPECT_TRUE(live.enabled());
}

TEST(LiveSettings, ABareGoldenWithSeveralRootsIsRefused) {
  Trees x;
  LiveSettings live;
  live.goldens = {{"", x.ga}};
  Status st = check(live, {x.a, x.b});
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("2 roots are watched"), std::string::npos) << message(st);
  EXPECT_NE(st.error().message.find("give ROOT=GOLDEN for each"), std::string::npos) << message(st);
}

TEST(LiveSettings, RootEqualsGoldenPairsEachRoot) {
  Trees x;
  LiveSettings live;
  live.goldens = {{x.b + "/", x.gb}, {x.a, x.ga}};  // a trailing slash names the same root
  ASSERT_TRUE(check(live, {x.a, x.b}).ok()) << message(check(live, {x.a, x.b}));
  EXPECT_EQ(live.goldens[0].root, x.b);
  EXPECT_EQ(live.goldens[1].root, x.a);
}

TEST(LiveSettings, ARootThatIsNotWatchedIsRefusedOnTheCommandLineAndSkippedFromASharedConfig) {
  Trees x;
  LiveSettings live;
  live.goldens = {{x.b, x.gb}};
  Status st = check(live, {x.a});
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("is not a watched root"), std::string::npos) << message(st);
  EXPECT_NE(st.error().path.find("--golden"), std::string::npos);
  // The systemd unit: DIR from the command line, goldens of every instance in one config file.
  live.goldens = {{x.b, x.gb}, {x.a, x.ga}};
  ASSERT_TRUE(check(live, {x.a}, true).ok());
  ASSERT_EQ(live.goldens.size(), 1u);
  EXPECT_EQ(live.goldens[0].golden, x.ga);
}

TEST(LiveSettings, TwoGoldensForOneRootAreRefused) {
  Trees x;
  LiveSettings live;
  live.goldens = {{x.a, x.ga}, {"", x.gb}};
  Status st = check(live, {x.a});
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("already has the golden"), std::string::npos) << message(st);
}

TEST(LiveSettings, AGoldenThatIsAFileIsRefusedAMissingOneIsAccepted) {
  Trees x;
  write_file(x.t.path + "/file");
  LiveSettings live;
  live.goldens = {{"", x.t.path + "/file"}};
  Status st = check(live, {x.a});
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("is not a directory"), std::string::npos) << message(st);
  // Being dumped right now, by a run that has not started yet.
  live.goldens = {{"", x.t.path + "/later"}};
  EXPECT_TRUE(check(live, {x.a}).ok());
}

TEST(LiveSettings, AGoldenInsideAWatchedRootOrARootInsideTheGoldenIsRefused) {
  Trees x;
  fs::create_directory(x.a + "/golden");
  LiveSettings live;
  live.goldens = {{"", x.a + "/golden"}};
  Status st = check(live, {x.a});
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("is inside the watched root"), std::string::npos) << message(st);
  // Inside another watched root is refused too: that root would compact it.
  live.goldens = {{x.b, x.a + "/golden"}};
  EXPECT_FALSE(check(live, {x.a, x.b}).ok());
  live.goldens = {{"", x.t.path}};
  st = check(live, {x.a});
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("is inside the golden"), std::string::npos) << message(st);
  // Reached through a symlink, the golden is still where it is.
  fs::create_directory_symlink(x.a + "/golden", x.t.path + "/link");
  live.goldens = {{"", x.t.path + "/link"}};
  EXPECT_FALSE(check(live, {x.a}).ok());
  // A sibling whose name starts like the root is not inside it.
  fs::create_directory(x.t.path + "/a2");
  live.goldens = {{"", x.t.path + "/a2"}};
  EXPECT_TRUE(check(live, {x.a}).ok());
}

TEST(LiveSettings, TheOpMappingFileIsADirectoryAsForCompare) {
  Trees x;
  LiveSettings live;
  live.goldens = {{"", x.ga}};
  live.op_mapping_file = x.t.path + "/missing";
  Status st = check(live, {x.a});
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().path.find("op_mapping_file"), std::string::npos) << message(st);
  write_file(x.t.path + "/op_mapping_file.json", "{}");
  live.op_mapping_file = x.t.path + "/op_mapping_file.json";
  st = check(live, {x.a});
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("holding op_mapping_file.json"), std::string::npos) << message(st);
  live.op_mapping_file = x.t.path;
  EXPECT_TRUE(check(live, {x.a}).ok());
}

TEST(LiveSettings, WatchTakesMsitsMfSpellingAndNothingElseOfCompares) {
  auto args = cli::rewrite_msit_args({"msit-compact", "watch", "/d", "-mf", "m.csv", "-gp", "/g", "--", "-mf"});
  EXPECT_EQ(args, (std::vector<std::string>{"msit-compact", "watch", "/d", "--op-mapping-file", "m.csv", "-gp", "/g",
                                            "--", "-mf"}));
  EXPECT_EQ(cli::rewrite_msit_args({"msit-compact", "watch", "-mf=m.csv"})[2], "--op-mapping-file=m.csv");
}

}  // namespace
}  // namespace msit::daemon
