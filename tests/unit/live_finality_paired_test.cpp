// Rule 4 of finality (docs/live-divergence.md "When a token's answer is final"): the watched
// side is done with a token, its last one too, once the golden side is done with it, every
// golden file of it is paired, and the watched side shows the same whole files at two passes.
// No test here lets time pass unless a time rule is what it checks.
#include <gtest/gtest.h>

#include "daemon/live_compare.h"

namespace msit::daemon {
namespace {

constexpr int64_t kS = 1'000'000'000;
using Key = TokenFinality::Key;
using Sides = std::map<Key, SideToken>;

SideToken golden_old(uint64_t sig) { return SideToken{sig, true, -10 * kS, false}; }  // written long ago
SideToken mine_side(uint64_t sig, bool whole, bool paired) { return SideToken{sig, whole, std::nullopt, paired}; }

TEST(TokenFinalityPaired, LastTokenPairedAndWholeIsFinalOnTheNextPassWithoutQuiet) {
  TokenFinality f(Finality{kS, 3 * kS});
  Sides golden{{{0, 0}, golden_old(5)}}, mine{{{0, 0}, mine_side(5, true, true)}};
  f.observe_sides(mine, golden, 0);
  EXPECT_FALSE(f.is_final({0, 0}, 0));  // one look: a file may have been caught mid-summary
  EXPECT_TRUE(f.final_on_next_pass(0));
  f.observe_sides(mine, golden, 1);
  EXPECT_TRUE(f.is_final({0, 0}, 1));
  auto [m, g] = f.rules({0, 0}, 1);
  EXPECT_EQ(m, FinalRule::kPaired);
  EXPECT_EQ(g, FinalRule::kQuietWrites);
}

TEST(TokenFinalityPaired, AGoldenFileNotPairedWaitsForTheQuietRule) {
  TokenFinality f(Finality{kS, 3 * kS});
  Sides golden{{{0, 0}, golden_old(5)}}, mine{{{0, 0}, mine_side(4, true, false)}};
  f.observe_sides(mine, golden, 0);
  f.observe_sides(mine, golden, 1);
  EXPECT_FALSE(f.is_final({0, 0}, 1));
  EXPECT_FALSE(f.final_on_next_pass(1));
  f.observe_sides(mine, golden, 3 * kS);
  EXPECT_TRUE(f.is_final({0, 0}, 3 * kS));
  EXPECT_EQ(f.rules({0, 0}, 3 * kS).first, FinalRule::kQuiet);
}

TEST(TokenFinalityPaired, AWatchedFileNotWholeOrChangedIsNotFinal) {
  TokenFinality f(Finality{kS, 3 * kS});
  Sides golden{{{0, 0}, golden_old(5)}};
  f.observe_sides({{{0, 0}, mine_side(5, false, true)}}, golden, 0);
  f.observe_sides({{{0, 0}, mine_side(5, false, true)}}, golden, 1);
  EXPECT_FALSE(f.is_final({0, 0}, 1));  // a raw file the watcher has not summarised yet
  f.observe_sides({{{0, 0}, mine_side(6, true, true)}}, golden, 2);
  EXPECT_FALSE(f.is_final({0, 0}, 2));  // summarised just now: the second look is still to come
  f.observe_sides({{{0, 0}, mine_side(6, true, true)}}, golden, 3);
  EXPECT_TRUE(f.is_final({0, 0}, 3));
}

TEST(TokenFinalityPaired, NotBeforeTheGoldenSideIsDone) {
  TokenFinality f(Finality{kS, 3 * kS});
  // A golden still being written (write time now): its files of the token may grow.
  Sides golden{{{0, 0}, SideToken{5, true, 0, false}}}, mine{{{0, 0}, mine_side(5, true, true)}};
  f.observe_sides(mine, golden, 0);
  f.observe_sides(mine, golden, 1);
  EXPECT_FALSE(f.is_final({0, 0}, 1));
  EXPECT_EQ(f.rules({0, 0}, 1).first, FinalRule::kNone);
}

TEST(TokenFinalityPaired, ATimeRuleThatHoldsIsNamedInsteadOfPairing) {
  TokenFinality f(Finality{kS, 3 * kS});
  Sides golden{{{0, 0}, golden_old(5)}}, mine{{{0, 0}, mine_side(5, true, true)}};
  f.observe_sides(mine, golden, 0);
  f.observe_sides(mine, golden, 3 * kS);  // the first look was 3 s ago: silence holds too
  EXPECT_TRUE(f.is_final({0, 0}, 3 * kS));
  EXPECT_EQ(f.rules({0, 0}, 3 * kS).first, FinalRule::kQuiet);
}

}  // namespace
}  // namespace msit::daemon
