// The live divergence alert sink: events file (dedupe across reopen, torn last line, append-only,
// refused paths), log line, the command's environment and its rate limit, status counters.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "daemon/counters.h"
#include "daemon/divergence_alerts.h"
#include "daemon/log.h"
#include "daemon_fakes.h"

namespace msit::daemon {
namespace {

using testing::FakeClock;
using testing::TempDir;
using testing::write_file;
namespace fs = std::filesystem;

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<nlohmann::json> lines_of(const std::string& path) {
  std::vector<nlohmann::json> out;
  std::istringstream in(read(path));
  for (std::string line; std::getline(in, line);) out.push_back(nlohmann::json::parse(line));
  return out;
}

DivergenceEvent event(const std::string& id, const std::string& op = "Add_3") {
  DivergenceEvent e;
  e.id = id;
  e.rank = 0;
  e.token = "0";
  e.op = op;
  e.op_type = "Add";
  e.cosine = 0.91;
  e.red = 0.08;
  e.error_level = 0.41;
  e.error_jump = 38.5;
  e.my_path = "/data/d/msit_ge_dump/0/Add.Add_3.1.2.3";
  e.golden_path = "/data/g/msit_fx_dump/add_3-aten.add.Tensor.OUTPUT.0.4.npy";
  e.root = "/data/d";
  e.golden_root = "/data/g";
  return e;
}

struct Sink {
  Logger log{false};
  std::vector<std::string> lines;
  FakeClock clock;
  std::vector<CommandRun> runs;
  std::unique_ptr<DivergenceAlerts> alerts;

  explicit Sink(LiveSettings s) {
    log.capture_to(&lines);
    AlertHooks hooks;
    hooks.clock = &clock;
    hooks.run = [this](CommandRun r) { runs.push_back(std::move(r)); };
    auto a = open_divergence_alerts(s, log, std::move(hooks));
    EXPECT_TRUE(a.ok()) << (a.ok() ? "" : a.error().to_string());
    if (a.ok()) alerts = std::move(a).value();
  }
  size_t lines_with(const std::string& text) const {
    return static_cast<size_t>(
        std::count_if(lines.begin(), lines.end(), [&](const std::string& l) { return l.find(text) != l.npos; }));
  }
};

LiveSettings with_events(const std::string& path) {
  LiveSettings s;
  s.goldens = {{"/data/d", "/data/g"}};
  s.events_file = path;
  return s;
}

TEST(DivergenceAlerts, AnEventIsOneJsonLineWithEveryField) {
  TempDir t;
  Sink s(with_events(t.path + "/events.jsonl"));
  ASSERT_TRUE(s.alerts->report(event("r0/t0/Add_3")));
  auto lines = lines_of(t.path + "/events.jsonl");
  ASSERT_EQ(lines.size(), 1u);
  const auto& j = lines[0];
  EXPECT_EQ(j["id"], "r0/t0/Add_3");
  EXPECT_GT(j["time"].get<int64_t>(), 1'600'000'000);  // set by report(): Unix seconds
  EXPECT_EQ(j["rank"], 0);
  EXPECT_EQ(j["token"], "0");
  EXPECT_EQ(j["op"], "Add_3");
  EXPECT_EQ(j["op_type"], "Add");
  EXPECT_DOUBLE_EQ(j["cosine"].get<double>(), 0.91);
  EXPECT_DOUBLE_EQ(j["red"].get<double>(), 0.08);
  EXPECT_FALSE(j.contains("kl"));  // unset metrics are omitted
  EXPECT_DOUBLE_EQ(j["error_level"].get<double>(), 0.41);
  EXPECT_DOUBLE_EQ(j["error_jump"].get<double>(), 38.5);
  EXPECT_EQ(j["my_path"], "/data/d/msit_ge_dump/0/Add.Add_3.1.2.3");
  EXPECT_EQ(j["golden_path"], "/data/g/msit_fx_dump/add_3-aten.add.Tensor.OUTPUT.0.4.npy");
  struct stat st {};
  ASSERT_EQ(::stat((t.path + "/events.jsonl").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_EQ(s.lines_with("first diverging op Add_3 (Add)"), 1u);
  EXPECT_EQ(s.lines_with("error jump 38.5"), 1u);
}

TEST(DivergenceAlerts, AnIdIsReportedOnceAlsoAfterReopening) {
  TempDir t;
  const std::string path = t.path + "/events.jsonl";
  {
    Sink s(with_events(path));
    EXPECT_TRUE(s.alerts->report(event("a")));
    EXPECT_FALSE(s.alerts->report(event("a")));
    EXPECT_TRUE(s.alerts->report(event("b", "Mul_4")));
    EXPECT_EQ(s.alerts->count(), 2u);
  }
  Sink again(with_events(path));
  EXPECT_TRUE(again.alerts->already_reported("a"));
  EXPECT_TRUE(again.alerts->already_reported("b"));
  EXPECT_EQ(again.alerts->count(), 2u);
  ASSERT_TRUE(again.alerts->last());
  EXPECT_EQ(again.alerts->last()->op, "Mul_4");  // the status shows the last one after a restart
  EXPECT_FALSE(again.alerts->report(event("a")));
  EXPECT_TRUE(again.alerts->report(event("c")));
  auto lines = lines_of(path);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[2]["id"], "c");
}

TEST(DivergenceAlerts, EarlierLinesAreNeverRewritten) {
  TempDir t;
  const std::string path = t.path + "/events.jsonl";
  { Sink(with_events(path)).alerts->report(event("a")); }
  const std::string before = read(path);
  { Sink(with_events(path)).alerts->report(event("b")); }
  const std::string after = read(path);
  ASSERT_GT(after.size(), before.size());
  EXPECT_EQ(after.substr(0, before.size()), before);
  EXPECT_EQ(lines_of(path).size(), 2u);
}

TEST(DivergenceAlerts, ATornLastLineIsRemovedAndThatEventReportedAgain) {
  TempDir t;
  const std::string path = t.path + "/events.jsonl";
  { Sink(with_events(path)).alerts->report(event("a")); }
  std::string whole = read(path);
  {
    std::ofstream out(path, std::ios::app | std::ios::binary);
    out << R"({"id":"b","time":17000,"ra)";  // killed in the middle of a write
  }
  Sink s(with_events(path));
  EXPECT_EQ(s.lines_with("removed a torn last line"), 1u);
  EXPECT_EQ(read(path), whole);
  EXPECT_FALSE(s.alerts->already_reported("b"));
  EXPECT_TRUE(s.alerts->report(event("b")));
  auto lines = lines_of(path);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[1]["id"], "b");
}

TEST(DivergenceAlerts, AWholeLastEventWithoutItsNewlineIsKept) {
  TempDir t;
  const std::string path = t.path + "/events.jsonl";
  write_file(path, R"({"id":"a","op":"Add_3"})");
  ::chmod(path.c_str(), 0600);
  Sink s(with_events(path));
  EXPECT_TRUE(s.alerts->already_reported("a"));
  EXPECT_TRUE(s.alerts->report(event("b")));
  EXPECT_EQ(lines_of(path).size(), 2u);
}

TEST(DivergenceAlerts, WatchesSharingOneEventsFileCountTheirOwnRootsAndMendATornTail) {
  TempDir t;
  const std::string path = t.path + "/events.jsonl";
  LiveSettings a = with_events(path), b = with_events(path);
  b.goldens = {{"/data/other", "/data/g2"}};
  Sink sa(a);
  Sink sb(b);
  DivergenceEvent eb = event("other/t0/Mul_1", "Mul_1");
  eb.root = "/data/other";
  ASSERT_TRUE(sb.alerts->report(eb));
  ASSERT_TRUE(sa.alerts->report(event("d/t0/Add_3")));
  // A third watch on the file died in the middle of a line: the next append is not glued to it.
  {
    std::ofstream out(path, std::ios::app | std::ios::binary);
    out << R"({"id":"dead","op")";
  }
  eb.id = "other/t1/Mul_1";
  ASSERT_TRUE(sb.alerts->report(eb));
  auto lines = lines_of(path);  // every line parses
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[2]["id"], "other/t1/Mul_1");
  // After a restart each watch counts (and shows) only its own roots' events.
  Sink again(a);
  EXPECT_EQ(again.alerts->count(), 1u);
  ASSERT_TRUE(again.alerts->last());
  EXPECT_EQ(again.alerts->last()->op, "Add_3");
  EXPECT_TRUE(again.alerts->already_reported("other/t0/Mul_1"));
}

Result<std::unique_ptr<DivergenceAlerts>> open_at(const std::string& path) {
  static Logger log(false);
  static std::vector<std::string> sink;
  log.capture_to(&sink);
  return open_divergence_alerts(with_events(path), log);
}

TEST(DivergenceAlerts, ASymlinkedEventsPathIsRefusedAndItsTargetUntouched) {
  TempDir t;
  write_file(t.path + "/precious", "root's data\n");
  ::symlink((t.path + "/precious").c_str(), (t.path + "/events.jsonl").c_str());
  auto a = open_at(t.path + "/events.jsonl");
  ASSERT_FALSE(a.ok());
  EXPECT_NE(a.error().to_string().find("symbolic link"), std::string::npos) << a.error().to_string();
  EXPECT_EQ(read(t.path + "/precious"), "root's data\n");
  // A dangling one is not created through either.
  ::symlink((t.path + "/new").c_str(), (t.path + "/dangling").c_str());
  EXPECT_FALSE(open_at(t.path + "/dangling").ok());
  EXPECT_FALSE(fs::exists(t.path + "/new"));
}

TEST(DivergenceAlerts, FilesThatAreNotOursToAppendToAreRefused) {
  TempDir t;
  write_file(t.path + "/notes.txt", "my notes\n");
  ::chmod((t.path + "/notes.txt").c_str(), 0600);
  auto a = open_at(t.path + "/notes.txt");
  ASSERT_FALSE(a.ok());
  EXPECT_NE(a.error().to_string().find("not an event of msit-compact"), std::string::npos) << a.error().to_string();
  EXPECT_EQ(read(t.path + "/notes.txt"), "my notes\n");

  write_file(t.path + "/shared.jsonl", "");
  ::chmod((t.path + "/shared.jsonl").c_str(), 0622);
  a = open_at(t.path + "/shared.jsonl");
  ASSERT_FALSE(a.ok());
  EXPECT_NE(a.error().to_string().find("chmod go-w"), std::string::npos) << a.error().to_string();

  write_file(t.path + "/one.jsonl", "");
  ::chmod((t.path + "/one.jsonl").c_str(), 0600);
  ::link((t.path + "/one.jsonl").c_str(), (t.path + "/two.jsonl").c_str());
  a = open_at(t.path + "/two.jsonl");
  ASSERT_FALSE(a.ok());
  EXPECT_NE(a.error().to_string().find("hard links"), std::string::npos) << a.error().to_string();

  ::mkfifo((t.path + "/fifo").c_str(), 0600);
  a = open_at(t.path + "/fifo");  // must not block
  ASSERT_FALSE(a.ok());
  EXPECT_NE(a.error().to_string().find("not a regular file"), std::string::npos) << a.error().to_string();

  fs::create_directory(t.path + "/dir");
  EXPECT_FALSE(open_at(t.path + "/dir/").ok());
}

TEST(DivergenceAlerts, TheCommandGetsTheEventInItsEnvironmentAtMostOncePerInterval) {
  LiveSettings live;
  live.goldens = {{"/data/d", "/data/g"}};
  live.on_divergence = "/usr/local/bin/page  --team npu";
  live.on_divergence_interval_s = 60;
  Sink s(live);
  ASSERT_TRUE(s.alerts->report(event("a")));
  ASSERT_EQ(s.runs.size(), 1u);
  EXPECT_EQ(s.runs[0].argv, (std::vector<std::string>{"/usr/local/bin/page", "--team", "npu"}));
  const auto& env = s.runs[0].env;
  for (const char* want :
       {"MSIT_DIVERGENCE_ID=a", "MSIT_DIVERGENCE_OP=Add_3", "MSIT_DIVERGENCE_OP_TYPE=Add", "MSIT_DIVERGENCE_TOKEN=0",
        "MSIT_DIVERGENCE_RANK=0", "MSIT_DIVERGENCE_COSINE=0.91", "MSIT_DIVERGENCE_RED=0.08",
        "MSIT_DIVERGENCE_ERROR_JUMP=38.5", "MSIT_DIVERGENCE_MY_PATH=/data/d/msit_ge_dump/0/Add.Add_3.1.2.3",
        "MSIT_DIVERGENCE_GOLDEN_PATH=/data/g/msit_fx_dump/add_3-aten.add.Tensor.OUTPUT.0.4.npy"})
    EXPECT_NE(std::find(env.begin(), env.end(), want), env.end()) << want;
  s.clock.advance_ms(59'000);
  ASSERT_TRUE(s.alerts->report(event("b")));
  EXPECT_EQ(s.runs.size(), 1u);
  EXPECT_EQ(s.lines_with("on_divergence not run for b: it ran 59 s ago"), 1u);
  s.clock.advance_ms(1'000);
  ASSERT_TRUE(s.alerts->report(event("c")));
  ASSERT_EQ(s.runs.size(), 2u);
  EXPECT_EQ(s.runs[1].about, " for c");
  // A reload changes the command and its interval.
  s.alerts->set_command("/bin/other", 1);
  s.clock.advance_ms(1'000);
  ASSERT_TRUE(s.alerts->report(event("d")));
  ASSERT_EQ(s.runs.size(), 3u);
  EXPECT_EQ(s.runs[2].argv, (std::vector<std::string>{"/bin/other"}));
  // A duplicate runs nothing.
  s.clock.advance_ms(10'000);
  EXPECT_FALSE(s.alerts->report(event("d")));
  EXPECT_EQ(s.runs.size(), 3u);
}

TEST(DivergenceAlerts, TextFromTheDumpStaysOnOneLogLine) {
  LiveSettings live;
  live.goldens = {{"/data/d", "/data/g"}};
  Sink s(live);
  DivergenceEvent e = event("x", "evil\nmsit-compact watch: error: forged\x1b[31m");
  e.rank = -1;
  ASSERT_TRUE(s.alerts->report(e));
  ASSERT_EQ(s.lines.size(), 1u);
  EXPECT_EQ(s.lines[0].find('\n'), std::string::npos);
  EXPECT_EQ(s.lines[0].find('\x1b'), std::string::npos);
  EXPECT_NE(s.lines[0].find("rank -,"), std::string::npos) << s.lines[0];
  // The environment carries the name as it is: no shell reads it.
  std::string line = divergence_log_line(e);
  EXPECT_EQ(line.find('\n'), std::string::npos);
}

TEST(DivergenceAlerts, EventsRoundTripAndInvalidUtf8NeverThrows) {
  DivergenceEvent e = event("id\xff");
  e.time = 1'700'000'000;
  e.rank = -1;
  e.kl = 0.5;
  std::optional<DivergenceEvent> back = divergence_from_json(divergence_json(event("r")));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->op, "Add_3");
  EXPECT_EQ(back->cosine, 0.91);
  EXPECT_FALSE(back->kl);
  nlohmann::json j = divergence_json(e);
  EXPECT_TRUE(j["rank"].is_null());
  std::string text = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  EXPECT_NE(text.find("\"kl\":0.5"), std::string::npos);
}

TEST(DivergenceAlerts, StatusLineAndJsonShowTheCountAndTheLastOne) {
  Counters c;
  EXPECT_EQ(c.status_line().find("divergence"), std::string::npos);  // without --golden: as before
  c.live_divergence = true;
  EXPECT_NE(c.status_line().find("; divergences 0"), std::string::npos);
  c.divergences = 2;
  c.last_divergence = event("a");
  EXPECT_NE(c.status_line().find("; divergences 2, last: rank 0 token 0 Add_3 (Add)"), std::string::npos)
      << c.status_line();
  nlohmann::json j = c.to_json(1, "running");
  EXPECT_EQ(j["live_divergence"], true);
  EXPECT_EQ(j["divergences"], 2);
  EXPECT_EQ(j["last_divergence"]["op"], "Add_3");
  EXPECT_DOUBLE_EQ(j["last_divergence"]["error_jump"].get<double>(), 38.5);
  // The status file is world-readable: the dump's file paths stay in the events file (0600).
  EXPECT_FALSE(j["last_divergence"].contains("my_path"));
  EXPECT_FALSE(j["last_divergence"].contains("golden_path"));
}

}  // namespace
}  // namespace msit::daemon

namespace msit::daemon {
namespace {

// A coverage gap (docs/live-divergence.md "Coverage"): its own kind in the events file, its own
// count (not a divergence: no command run, not the last divergence), read back at restart.
TEST(DivergenceAlerts, ANotComparedEventIsCountedApartAndRunsNoCommand) {
  TempDir t;
  const std::string path = t.path + "/events.jsonl";
  LiveSettings live = with_events(path);
  live.on_divergence = "/usr/local/bin/stop-run";
  DivergenceEvent gap;
  gap.kind = EventKind::kNotCompared;
  gap.id = "gap-r1";
  gap.rank = 1;
  gap.not_compared = "rank 1 of /data/d/msit_ge_dump has no counterpart in the golden /data/g: not compared";
  gap.root = "/data/d";
  gap.golden_root = "/data/g";
  {
    Sink s(live);
    ASSERT_TRUE(s.alerts->report(gap));
    EXPECT_FALSE(s.alerts->report(gap));
    EXPECT_EQ(s.alerts->count(), 0u);
    EXPECT_EQ(s.alerts->not_compared(), 1u);
    EXPECT_FALSE(s.alerts->last());
    EXPECT_TRUE(s.runs.empty());
    EXPECT_EQ(s.lines_with("coverage: rank 1 of /data/d/msit_ge_dump has no counterpart"), 1u);
  }
  auto lines = lines_of(path);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0]["kind"], "not_compared");
  EXPECT_EQ(lines[0]["rank"], 1);
  EXPECT_FALSE(lines[0].contains("op"));
  Sink again(live);
  EXPECT_TRUE(again.alerts->already_reported("gap-r1"));
  EXPECT_EQ(again.alerts->not_compared(), 1u);
  EXPECT_EQ(again.alerts->count(), 0u);
  Counters c;
  c.live_divergence = true;
  c.not_compared = 1;
  EXPECT_NE(c.status_line().find("; divergences 0; not compared 1"), std::string::npos) << c.status_line();
  EXPECT_EQ(c.to_json(1, "running")["not_compared"], 1);
}

}  // namespace
}  // namespace msit::daemon
