// The live comparer's ATB/torch passes are incremental and answer the last token by an event
// (docs/live-divergence.md "ATB and torch"): a token answered while final is left out of later
// passes unread while none of its directories changed (only stat()ed), a changed one is listed
// again; the last token is final once it shows the very files of its final previous token
// (rule 6), long before the 3 s of silence.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>

#include "common/compare_atb/atb_compare.h"
#include "daemon/live_compare.h"
#include "daemon/live_compare_atb.h"
#include "tests/unit/atb_fixtures.h"

namespace msit::daemon {
namespace {

using namespace atb_test;

constexpr int64_t kSec = 1'000'000'000;

// F3's trees (docs/formats/atb-torch.md §5), 11 blocks of a LayerNorm then a Linear, in `tokens`
// token directories on both sides; every output equal on both sides except the Linear of block
// 10 (the last op) in every token. Written an hour ago: the golden's files are whole by their
// write times and every directory is old enough to be skipped.
struct Trees {
  TempDir tmp;
  fs::path torch_proc, atb_root, atb_proc;
  explicit Trees(int tokens) {
    torch_proc = tmp.p / "msit_dump_20260101_000000" / "torch_tensors" / "cpu_100";
    atb_root = tmp.p / "atb" / "msit_dump_20260101_000001";
    atb_proc = atb_root / "tensors" / "0_200";
    write_file(torch_proc / "model_tree.json", torch_tree_json(f3_torch_tree()));
    write_file(atb_root / "model" / "200" / "M.json", f3_atb_model("BlockLayer", 0, 11));
    for (int t = 0; t < tokens; ++t) add_token(t, true);
    age();
  }
  // Token t on both sides; without `last_linear`, the watched side lacks block 10's Linear.
  void add_token(int t, bool last_linear) {
    std::string tok = std::to_string(t);
    for (int i = 0; i <= 10; ++i) {
      std::string b = "root.layers." + std::to_string(i);
      write_torch_tensor(torch_proc / tok / b / "output.pth", {1, 2, 3, 4}, {1, 4});
      write_torch_tensor(torch_proc / tok / (b + ".ln") / "output.pth", {-1, -0.5, 0.5, 1}, {1, 4});
      write_torch_tensor(torch_proc / tok / (b + ".fc") / "input_0.pth", {-1, -0.5, 0.5, 1}, {1, 4});
      write_torch_tensor(torch_proc / tok / (b + ".fc") / "output.pth", {1, 2, 3, 4}, {1, 4});
      fs::path l = atb_proc / tok / (std::to_string(i) + "_BlockLayer");
      write_atb_bin(l / "after" / "outtensor0.bin", {1, 2, 3, 4}, {1, 4}, false);
      write_atb_bin(l / "0_LayerNormOperation" / "after" / "outtensor0.bin", {-1, -0.5, 0.5, 1}, {1, 4}, false);
      write_atb_bin(l / "1_LinearOperation" / "before" / "intensor0.bin", {-1, -0.5, 0.5, 1}, {1, 4}, false);
      if (i < 10 || last_linear)
        write_atb_bin(l / "1_LinearOperation" / "after" / "outtensor0.bin", {1, 2, 3, i == 10 ? 5.0f : 4.0f}, {1, 4},
                      false);
    }
  }
  void age() const {
    auto old = fs::file_time_type::clock::now() - std::chrono::hours(1);
    for (const auto& root : {tmp.p}) {
      for (const auto& e : fs::recursive_directory_iterator(root)) fs::last_write_time(e.path(), old);
    }
  }
  size_t dirs_of_token(int t) const {
    size_t n = 0;
    for (const fs::path& p : {atb_proc / std::to_string(t), torch_proc / std::to_string(t)}) {
      n += 1;
      for (const auto& e : fs::recursive_directory_iterator(p)) n += e.is_directory() ? 1 : 0;
    }
    return n;
  }
};

TEST(LiveCompareAtbIncremental, AnsweredTokensAreLeftOutUnreadUntilADirectoryOfThemChanges) {
  constexpr int kTokens = 4;
  Trees t(kTokens);
  // Time rules at once: the first pass answers every token.
  LiveRootCompare live(t.atb_root.string(), t.torch_proc.string(), Finality{0, 0});
  std::vector<std::string> notes;
  auto events = live.pass(1, notes);
  ASSERT_EQ(events.size(), static_cast<size_t>(kTokens));
  const AtbLiveState* st = live.atb_state();
  ASSERT_NE(st, nullptr);
  size_t all_dirs = 0;
  for (int k = 0; k < kTokens; ++k) all_dirs += t.dirs_of_token(k);
  EXPECT_EQ(st->tokens_listed, static_cast<size_t>(kTokens));
  EXPECT_EQ(st->dirs_listed, all_dirs);
  EXPECT_EQ(st->retired.size(), static_cast<size_t>(kTokens));
  EXPECT_GT(live.atb_evaluated(), 0u);

  // Nothing changed: no directory read, no pair evaluated; every directory only stat()ed.
  EXPECT_TRUE(live.pass(2, notes).empty());
  EXPECT_EQ(st->tokens_listed, 0u);
  EXPECT_EQ(st->tokens_unlisted, static_cast<size_t>(kTokens));
  EXPECT_EQ(st->dirs_listed, 0u);
  EXPECT_GE(st->dirs_checked, all_dirs);
  EXPECT_EQ(live.atb_evaluated(), 0u);
  EXPECT_EQ(live.cached_rows(), 0u);  // the answered tokens' rows left the cache

  // A file added to token 3: that token alone is listed (both sides) and read again; it is
  // answered already (one event per token and process), so nothing is raised twice.
  write_file(t.atb_proc / "3" / "0_BlockLayer" / "0_LayerNormOperation" / "after" / "outtensor1.bin", "x");
  EXPECT_TRUE(live.pass(3, notes).empty());
  EXPECT_EQ(st->tokens_listed, 1u);
  EXPECT_EQ(st->tokens_unlisted, static_cast<size_t>(kTokens - 1));
  EXPECT_EQ(st->dirs_listed, t.dirs_of_token(3));
  EXPECT_GT(live.atb_evaluated(), 0u);
}

// A second rank (tensors/0_201) that has tokens 0-2 only: rank 0_201's directory is stamped for
// token 3, so that token 3 appearing there lists that token again, and only that one.
TEST(LiveCompareAtbIncremental, ATokenAppearingInAnotherRankListsItAgain) {
  Trees t(4);
  fs::path rank2 = t.atb_root / "tensors" / "0_201";
  fs::create_directories(rank2);
  for (int k = 0; k < 3; ++k)
    fs::copy(t.atb_proc / std::to_string(k), rank2 / std::to_string(k), fs::copy_options::recursive);
  t.age();
  LiveRootCompare live(t.atb_root.string(), t.torch_proc.string(), Finality{0, 0});
  std::vector<std::string> notes;
  live.pass(1, notes);
  const AtbLiveState* st = live.atb_state();
  ASSERT_NE(st, nullptr);
  EXPECT_EQ(st->retired.size(), 4u);
  live.pass(2, notes);
  EXPECT_EQ(st->tokens_listed, 0u);
  EXPECT_EQ(st->tokens_unlisted, 4u);
  fs::copy(t.atb_proc / "3", rank2 / "3", fs::copy_options::recursive);
  live.pass(3, notes);
  EXPECT_EQ(st->tokens_listed, 1u);
  EXPECT_EQ(st->tokens_unlisted, 3u);
}

TEST(LiveCompareAtbIncremental, TheLastTokenIsFinalByItsPreviousTokensFilesBeforeAnySilence) {
  Trees t(2);
  // Default limits (1 s, 3 s) on a clock that never reaches them: only events can decide.
  LiveRootCompare live(t.atb_root.string(), t.torch_proc.string());
  live.set_held_check([](const std::string&) { return true; });  // the watcher holds every file complete
  std::vector<std::string> notes;
  std::vector<std::string> tokens;
  for (int64_t now = 1; now <= 4; ++now)
    for (const auto& e : live.pass(now * 1000, notes)) tokens.push_back(e.token);
  EXPECT_EQ(tokens, (std::vector<std::string>{"0", "1"}));
  std::string all;
  for (const auto& n : notes) all += n + "\n";
  EXPECT_NE(all.find("token 0 final: watched side done by a later token, the same whole files (rule 1)"),
            std::string::npos)
      << all;
  EXPECT_NE(all.find("token 1 final: watched side done by the files of its final previous token, all whole (rule 6), "
                     "golden by its files' write times (rule 3)"),
            std::string::npos)
      << all;
}

TEST(LiveCompareAtbIncremental, ALastTokenMissingAFileOfItsPreviousTokenWaitsForSilence) {
  Trees t(1);
  t.add_token(1, false);  // token 1 lacks block 10's Linear output: still being dumped
  t.age();
  LiveRootCompare live(t.atb_root.string(), t.torch_proc.string());
  live.set_held_check([](const std::string&) { return true; });
  std::vector<std::string> notes;
  std::vector<std::string> tokens;
  for (int64_t now = 1; now <= 4; ++now)
    for (const auto& e : live.pass(now * 1000, notes)) tokens.push_back(e.token);
  EXPECT_EQ(tokens, std::vector<std::string>{"0"});  // token 1 not final: not judged on part of it
  EXPECT_TRUE(live.pending());
  // Its missing output comes (summarised or held: whole): the very next pass sees token 0's
  // files and answers it (rule 6 needs no second look).
  write_atb_bin(t.atb_proc / "1" / "10_BlockLayer" / "1_LinearOperation" / "after" / "outtensor0.bin", {1, 2, 3, 5},
                {1, 4}, false);
  for (const auto& e : live.pass(5000, notes)) tokens.push_back(e.token);
  EXPECT_EQ(tokens, (std::vector<std::string>{"0", "1"}));
  std::string all;
  for (const auto& n : notes) all += n + "\n";
  EXPECT_NE(all.find("token 1 final: watched side done by the files of its final previous token"), std::string::npos)
      << all;
}

}  // namespace
}  // namespace msit::daemon
