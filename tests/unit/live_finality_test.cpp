// When a token's answer is final by events rather than time (docs/live-divergence.md "When a
// token's answer is final"): a later token started in an earlier pass, the same files in two
// passes, all of them whole. No test here lets time pass unless the time rule is what it checks.
#include <gtest/gtest.h>

#include "daemon/live_compare.h"

namespace msit::daemon {
namespace {

constexpr int64_t kS = 1'000'000'000;
using Key = TokenFinality::Key;
using Sides = std::map<Key, SideToken>;

SideToken whole(uint64_t sig, std::optional<int64_t> written_ns = std::nullopt) {
  return SideToken{sig, true, written_ns};
}
SideToken partial(uint64_t sig) { return SideToken{sig, false, std::nullopt}; }

TEST(TokenFinalityEvents, WholeTokenFollowedByAnotherIsFinalOnTheNextPassWithoutWaiting) {
  TokenFinality f(Finality{kS, 3 * kS});
  Sides mine{{{0, 0}, whole(5)}, {{0, 1}, whole(1)}}, golden{{{0, 0}, whole(5)}, {{0, 1}, whole(5)}};
  f.observe_sides(mine, golden, 0);
  // The pass that first sees token 1 may have listed token 0 before its last file was created.
  EXPECT_FALSE(f.is_final({0, 0}, 0));
  EXPECT_TRUE(f.final_on_next_pass(0));
  f.observe_sides(mine, golden, 1);  // 1 ns later: only the second pass matters
  EXPECT_TRUE(f.is_final({0, 0}, 1));
  EXPECT_FALSE(f.is_final({0, 1}, 1));  // the last token still waits
}

TEST(TokenFinalityEvents, ChangedFilesNeedAnotherPassWithTheSameFiles) {
  TokenFinality f(Finality{kS, 3 * kS});
  Sides golden{{{0, 0}, whole(5)}, {{0, 1}, whole(5)}};
  f.observe_sides({{{0, 0}, whole(4)}, {{0, 1}, whole(1)}}, golden, 0);
  f.observe_sides({{{0, 0}, whole(5)}, {{0, 1}, whole(1)}}, golden, 1);  // a late file of token 0
  EXPECT_FALSE(f.is_final({0, 0}, 1));
  f.observe_sides({{{0, 0}, whole(5)}, {{0, 1}, whole(1)}}, golden, 2);
  EXPECT_TRUE(f.is_final({0, 0}, 2));
}

TEST(TokenFinalityEvents, ARawFileNotKnownWholeFallsBackToTheTimeRule) {
  TokenFinality f(Finality{kS, 3 * kS});
  Sides mine{{{0, 0}, partial(5)}, {{0, 1}, whole(1)}}, golden{{{0, 0}, whole(5)}, {{0, 1}, whole(5)}};
  f.observe_sides(mine, golden, 0);
  f.observe_sides(mine, golden, 1);
  EXPECT_FALSE(f.is_final({0, 0}, 1));
  EXPECT_FALSE(f.final_on_next_pass(1));
  f.observe_sides(mine, golden, kS);
  EXPECT_TRUE(f.is_final({0, 0}, kS));  // unchanged for token_settle_ns with a later token
}

TEST(TokenFinalityEvents, GoldenLastTokenWrittenLongAgoIsDoneWithoutQuietTime) {
  TokenFinality f(Finality{kS, 3 * kS});
  // A golden dumped before the watch: its files' write times are known and old.
  Sides golden{{{0, 0}, whole(5, -10 * kS)}};
  Sides mine{{{0, 0}, whole(5)}, {{0, 1}, whole(1)}};
  f.observe_sides(mine, golden, 0);
  EXPECT_FALSE(f.is_final({0, 0}, 0));  // one pass: the golden's listing not confirmed yet
  f.observe_sides(mine, golden, 1);
  EXPECT_TRUE(f.is_final({0, 0}, 1));
}

TEST(TokenFinalityEvents, GoldenLastTokenWithRecentOrUnknownWritesWaitsForQuiet) {
  for (std::optional<int64_t> written : {std::optional<int64_t>{}, std::optional<int64_t>{0}}) {
    TokenFinality f(Finality{kS, 3 * kS});
    Sides golden{{{0, 0}, whole(5, written)}};
    Sides mine{{{0, 0}, whole(5)}, {{0, 1}, whole(1)}};
    f.observe_sides(mine, golden, 0);
    f.observe_sides(mine, golden, kS);
    EXPECT_FALSE(f.is_final({0, 0}, kS)) << written.value_or(-1);
    f.observe_sides(mine, golden, 3 * kS);
    EXPECT_TRUE(f.is_final({0, 0}, 3 * kS)) << written.value_or(-1);
  }
}

TEST(TokenFinalityEvents, WatchedLastTokenWaitsForItsTreeToGoQuiet) {
  TokenFinality f(Finality{kS, 3 * kS});
  Sides mine{{{0, 0}, whole(5)}}, golden{{{0, 0}, whole(5, -10 * kS)}, {{0, 1}, whole(5, -10 * kS)}};
  f.observe_sides(mine, golden, 0);
  f.observe_sides(mine, golden, 1);
  EXPECT_FALSE(f.is_final({0, 0}, 1));  // nothing but silence tells the end of a dump
  f.observe_sides(mine, golden, 3 * kS);
  EXPECT_TRUE(f.is_final({0, 0}, 3 * kS));
}

TEST(TokenFinalityEvents, ATokenMissingOnOneSideIsNeverFinal) {
  TokenFinality f(Finality{kS, 3 * kS});
  Sides mine{{{0, 0}, whole(5)}, {{0, 1}, whole(1)}}, golden{{{0, 1}, whole(5, -10 * kS)}};
  for (int64_t t : {int64_t{0}, int64_t{1}, 100 * kS}) f.observe_sides(mine, golden, t);
  EXPECT_FALSE(f.is_final({0, 0}, 100 * kS));
}

TEST(TokenFinalityEvents, RanksAreIndependent) {
  TokenFinality f(Finality{kS, 3 * kS});
  Sides mine{{{0, 0}, whole(5)}, {{0, 1}, whole(1)}, {{1, 0}, whole(5)}};
  Sides golden{{{0, 0}, whole(5)}, {{0, 1}, whole(5)}, {{1, 0}, whole(5)}, {{1, 1}, whole(5)}};
  f.observe_sides(mine, golden, 0);
  f.observe_sides(mine, golden, 1);
  EXPECT_TRUE(f.is_final({0, 0}, 1));
  EXPECT_FALSE(f.is_final({1, 0}, 1));  // rank 1 has not started token 1 on the watched side
}

TEST(TokenFinalityEvents, NextTimeRuleIsWhenTheEarliestRuleCanFire) {
  TokenFinality f(Finality{kS, 3 * kS});
  Sides mine{{{0, 0}, partial(5)}, {{0, 1}, whole(1)}}, golden{{{0, 0}, whole(5)}, {{0, 1}, whole(5)}};
  f.observe_sides(mine, golden, 0);
  f.observe_sides(mine, golden, kS / 2);
  // Token 0 waits for its raw file's settle time (1 s after it was first seen), token 1 for quiet.
  EXPECT_EQ(f.next_time_rule_ns(kS / 2), kS);
  f.observe_sides(mine, golden, kS);
  EXPECT_TRUE(f.is_final({0, 0}, kS));
  EXPECT_EQ(f.next_time_rule_ns(kS), 3 * kS);
  f.observe_sides(mine, golden, 3 * kS);
  EXPECT_FALSE(f.any_pending(3 * kS));
  EXPECT_FALSE(f.next_time_rule_ns(3 * kS).has_value());
}

}  // namespace
}  // namespace msit::daemon
