// The live comparer on msProbe dumps (daemon/live_compare_msprobe.cpp, docs/live-divergence.md
// "msProbe dumps"): a step is answered once a later step has begun and its dump.json read the
// same twice; a half-written dump.json is "not yet", never an answer or an error that loses it.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "daemon/live_root_compare.h"
#include "tests/unit/compare_fixtures.h"

namespace msit::daemon {
namespace {

using compare_test::TempDir;
using compare_test::write_file;
namespace fs = std::filesystem;

// A statistics dump.json of `calls` chained Functional.linear calls; from call `diverge` on (-1:
// none) every statistic is 1.5 times the golden's.
std::string stats_dump(int diverge, int calls = 6) {
  auto rec = [](double m) {
    return R"({"type": "torch.Tensor", "dtype": "torch.float32", "shape": [4], "Max": )" + std::to_string(m) +
           R"(, "Min": )" + std::to_string(-m) + R"(, "Mean": )" + std::to_string(m / 4) + R"(, "Norm": )" +
           std::to_string(2 * m) + R"(, "requires_grad": false})";
  };
  std::string data;
  for (int i = 0; i < calls; ++i) {
    const double in = diverge >= 0 && i > diverge ? 1.5 : 1.0, out = diverge >= 0 && i >= diverge ? 1.5 : 1.0;
    data += std::string(i ? ",\n" : "") + "\"Functional.linear." + std::to_string(i) +
            ".forward\": {\"input_args\": [" + rec(in) + "], \"input_kwargs\": {}, \"output\": [" + rec(out) + "]}";
  }
  return R"({"task": "statistics", "level": "L1", "framework": "pytorch", "dump_data_dir": null, "data": {)" + data +
         "}}";
}

bool has(const std::vector<std::string>& notes, const std::string& text) {
  for (const std::string& n : notes)
    if (n.find(text) != std::string::npos) return true;
  return false;
}

// The golden: steps 0 and 1 of one rank, written beforehand.
void write_golden(const fs::path& g, const std::string& rank) {
  for (const char* step : {"step0", "step1"}) write_file(g / step / rank / "dump.json", stats_dump(-1));
}

TEST(LiveCompareMsprobe, HalfWrittenDumpJsonWaitsThenTheStepIsAnswered) {
  TempDir tmp;
  const fs::path mine = tmp.path / "dump", golden = tmp.path / "golden";
  write_golden(golden, "rank0");
  fs::create_directories(mine);
  LiveRootCompare live(mine.string(), golden.string(), Finality{0, 60'000'000'000});
  std::vector<std::string> notes;
  // Nothing dumped yet, then step 0's tensor folder only (msProbe writes dump.json at the end).
  EXPECT_TRUE(live.pass(1, notes).empty());
  fs::create_directories(mine / "step0" / "rank0" / "dump_tensor_data");
  EXPECT_TRUE(live.pass(2, notes).empty());
  // Step 0's dump.json caught mid-rewrite (truncated, then written whole), step 1 begun: the step
  // is final by rule 1 but does not parse: not answered, the comparer keeps asking.
  const std::string full = stats_dump(3);
  write_file(mine / "step0" / "rank0" / "dump.json", full.substr(0, full.size() / 2));
  fs::create_directories(mine / "step1" / "rank0" / "dump_tensor_data");
  for (int64_t t = 3; t < 6; ++t) EXPECT_TRUE(live.pass(t, notes).empty()) << t;
  EXPECT_TRUE(live.pending());
  EXPECT_TRUE(has(notes, "rank 0, step 0 waits: ")) << ::testing::PrintToString(notes);
  // Written whole: answered after two passes that read the same file, naming the API.
  write_file(mine / "step0" / "rank0" / "dump.json", full);
  std::vector<DivergenceEvent> events;
  for (int64_t t = 6; t < 9 && events.empty(); ++t) events = live.pass(t, notes);
  ASSERT_EQ(events.size(), 1u) << ::testing::PrintToString(notes);
  EXPECT_EQ(events[0].op, "Functional.linear.3.forward");
  EXPECT_EQ(events[0].rank, 0);
  EXPECT_EQ(events[0].token, "step0");
  EXPECT_TRUE(has(notes, "rank 0, step 0 final: watched side done by")) << ::testing::PrintToString(notes);
  // Answered once: later passes raise nothing for it; step 1 (no dump.json) is never answered.
  for (int64_t t = 9; t < 12; ++t) EXPECT_TRUE(live.pass(t, notes).empty());
}

TEST(LiveCompareMsprobe, CleanStepIsJudgedOnceAndTheLastStepWaitsForQuiet) {
  TempDir tmp;
  const fs::path mine = tmp.path / "dump", golden = tmp.path / "golden";
  write_golden(golden, "rank1");
  write_file(mine / "step0" / "rank1" / "dump.json", stats_dump(-1));
  const int64_t quiet = 5'000'000'000;
  LiveRootCompare live(mine.string(), golden.string(), Finality{0, quiet});
  std::vector<std::string> notes;
  // The only step, no later one: not final until the tree has been quiet for quiet_ns.
  for (int64_t t = 1; t < 4; ++t) EXPECT_TRUE(live.pass(t, notes).empty());
  EXPECT_FALSE(has(notes, "judged clean")) << ::testing::PrintToString(notes);
  EXPECT_TRUE(live.pass(quiet + 10, notes).empty());
  EXPECT_TRUE(has(notes, "rank 1, step 0 judged clean (no divergence); final: watched side done by"))
      << ::testing::PrintToString(notes);
}

// The golden's step 0 lacks the last two calls (docs/live-divergence.md "Coverage"): the clean
// step says so, and one not_compared event names them, once.
TEST(LiveCompareMsprobe, ApisWithoutBenchPartnerAreSaidOncePerStep) {
  TempDir tmp;
  const fs::path mine = tmp.path / "dump", golden = tmp.path / "golden";
  write_file(golden / "step0" / "rank0" / "dump.json", stats_dump(-1, 4));
  write_file(mine / "step0" / "rank0" / "dump.json", stats_dump(-1));
  LiveRootCompare live(mine.string(), golden.string(), Finality{0, 0});
  std::vector<std::string> notes;
  std::vector<DivergenceEvent> events;
  for (int64_t t = 1; t < 4 && events.empty(); ++t) events = live.pass(t, notes);
  ASSERT_EQ(events.size(), 1u) << ::testing::PrintToString(notes);
  EXPECT_EQ(events[0].kind, EventKind::kNotCompared);
  EXPECT_EQ(events[0].rank, 0);
  EXPECT_EQ(events[0].token, "step0");
  EXPECT_EQ(events[0].not_compared, "step 0 of rank 0 of " + mine.string() +
                                        ": 4 of my 12 tensors have no golden counterpart (Functional.linear.4.forward, "
                                        "Functional.linear.5.forward) in the golden " +
                                        golden.string() + ": not compared; it could hold the divergence");
  EXPECT_TRUE(has(notes,
                  "rank 0, step 0 judged clean (no divergence; 4 of my 12 tensors not compared (no golden "
                  "counterpart)); final:"))
      << ::testing::PrintToString(notes);
  for (int64_t t = 4; t < 7; ++t) EXPECT_TRUE(live.pass(t, notes).empty());
}

}  // namespace
}  // namespace msit::daemon
