// Rule 5 of finality (docs/live-divergence.md "When a token's answer is final"): a golden dumped
// at the same time is done with a token, its last one too, once the token shows the ops of its
// previous token (which rules 1-3 made done), all whole, the same files at two passes, and the
// watched side's token shows its own previous token's ops. A token whose ops differ from the
// previous token's waits for the time rules. No test here lets time pass unless a time rule is
// what it checks.
#include <gtest/gtest.h>

#include "daemon/live_compare.h"

namespace msit::daemon {
namespace {

constexpr int64_t kS = 1'000'000'000;
using Key = TokenFinality::Key;
using Sides = std::map<Key, SideToken>;

// A golden token being written now (its write time is the pass's time: rule 3 by write times
// cannot hold), whole (summarised by its own watch, or complete by its headers).
SideToken golden_now(uint64_t sig, uint64_t shape, int64_t now) { return SideToken{sig, true, now, false, shape}; }
SideToken mine_side(uint64_t sig, uint64_t shape, bool paired = true) {
  return SideToken{sig, true, std::nullopt, paired, shape};
}

// Two passes over tokens 0 and 1 on both sides, then token 1's files as given: token 0 is done
// on both sides by rule 1 (token 1 had started in an earlier pass).
TokenFinality two_tokens(const SideToken& g1, const SideToken& m1) {
  TokenFinality f(Finality{kS, 3 * kS});
  Sides golden{{{0, 0}, golden_now(5, 77, 0)}, {{0, 1}, golden_now(1, 11, 0)}};
  Sides mine{{{0, 0}, mine_side(5, 88)}, {{0, 1}, mine_side(1, 22)}};
  f.observe_sides(mine, golden, 0);
  golden[{0, 1}] = g1;
  mine[{0, 1}] = m1;
  f.observe_sides(mine, golden, 1);
  return f;
}

TEST(TokenFinalityShape, LastGoldenTokenWithThePreviousTokensOpsIsFinalWithoutQuiet) {
  TokenFinality f = two_tokens(golden_now(5, 77, 1), mine_side(5, 88));
  EXPECT_EQ(f.rules({0, 0}, 1).second, FinalRule::kLaterToken);
  EXPECT_FALSE(f.is_final({0, 1}, 1));  // one look at token 1's files: a file may be mid-summary
  EXPECT_TRUE(f.final_on_next_pass(1));
  f.observe_sides({{{0, 0}, mine_side(5, 88)}, {{0, 1}, mine_side(5, 88)}},
                  {{{0, 0}, golden_now(5, 77, 0)}, {{0, 1}, golden_now(5, 77, 2)}}, 2);
  EXPECT_TRUE(f.is_final({0, 1}, 2));
  auto [m, g] = f.rules({0, 1}, 2);
  EXPECT_EQ(g, FinalRule::kSameShape);
  EXPECT_EQ(m, FinalRule::kPaired);
  EXPECT_STREQ(final_rule_name(g), "the ops of its previous token, the same whole files (rule 5)");
}

// The fallback: a last token whose ops differ from the previous token's (prefill then decode,
// another graph, an extra op) is never done by its shape; it waits for rule 3.
TEST(TokenFinalityShape, AnotherSetOfOpsWaitsForTheTimeRules) {
  Sides mine{{{0, 0}, mine_side(5, 88)}, {{0, 1}, mine_side(5, 88)}};
  Sides golden{{{0, 0}, golden_now(5, 77, 0)}, {{0, 1}, golden_now(6, 78, 1)}};
  TokenFinality f = two_tokens(golden[{0, 1}], mine[{0, 1}]);
  f.observe_sides(mine, golden, 2);
  EXPECT_FALSE(f.is_final({0, 1}, 2));
  EXPECT_EQ(f.rules({0, 1}, 2).second, FinalRule::kNone);
  EXPECT_FALSE(f.final_on_next_pass(2));
  f.observe_sides(mine, golden, 4 * kS + 1);  // the golden's last write 4 s ago
  EXPECT_TRUE(f.is_final({0, 1}, 4 * kS + 1));
  EXPECT_EQ(f.rules({0, 1}, 4 * kS + 1).second, FinalRule::kQuiet);
}

TEST(TokenFinalityShape, TheWatchedSideMustShowItsPreviousTokensOpsToo) {
  Sides mine{{{0, 0}, mine_side(5, 88)}, {{0, 1}, mine_side(5, 89)}};
  Sides golden{{{0, 0}, golden_now(5, 77, 0)}, {{0, 1}, golden_now(5, 77, 1)}};
  TokenFinality f = two_tokens(golden[{0, 1}], mine[{0, 1}]);
  f.observe_sides(mine, golden, 2);
  EXPECT_EQ(f.rules({0, 1}, 2).second, FinalRule::kNone);
  EXPECT_FALSE(f.is_final({0, 1}, 2));
}

TEST(TokenFinalityShape, NotWholeOrChangedOrUnknownShapeIsNotDone) {
  // A raw golden file not complete yet.
  TokenFinality a = two_tokens(SideToken{5, false, 1, false, 77}, mine_side(5, 88));
  a.observe_sides({{{0, 0}, mine_side(5, 88)}, {{0, 1}, mine_side(5, 88)}},
                  {{{0, 0}, golden_now(5, 77, 0)}, {{0, 1}, SideToken{5, false, 2, false, 77}}}, 2);
  EXPECT_EQ(a.rules({0, 1}, 2).second, FinalRule::kNone);
  // Files changed since the previous pass: the second look is still to come.
  TokenFinality b = two_tokens(golden_now(5, 77, 1), mine_side(5, 88));
  b.observe_sides({{{0, 0}, mine_side(5, 88)}, {{0, 1}, mine_side(5, 88)}},
                  {{{0, 0}, golden_now(5, 77, 0)}, {{0, 1}, golden_now(6, 77, 2)}}, 2);
  EXPECT_EQ(b.rules({0, 1}, 2).second, FinalRule::kNone);
  // No shape (ATB rows, signatures only): the rule is off.
  TokenFinality c(Finality{kS, 3 * kS});
  c.observe({{{0, 0}, 5}, {{0, 1}, 1}}, {{{0, 0}, 5}, {{0, 1}, 1}}, 0);
  c.observe({{{0, 0}, 5}, {{0, 1}, 5}}, {{{0, 0}, 5}, {{0, 1}, 5}}, 1);
  c.observe({{{0, 0}, 5}, {{0, 1}, 5}}, {{{0, 0}, 5}, {{0, 1}, 5}}, 2);
  EXPECT_EQ(c.rules({0, 1}, 2).second, FinalRule::kNone);
}

TEST(TokenFinalityShape, NotWhileThePreviousTokenIsNotDone) {
  // Token 0 seen for the first time together with token 1: rule 1 needs token 1 to have started
  // in an earlier pass, so token 0 is not done and token 1 cannot lean on it.
  TokenFinality f(Finality{kS, 3 * kS});
  Sides mine{{{0, 0}, mine_side(5, 88)}, {{0, 1}, mine_side(5, 88)}};
  Sides golden{{{0, 0}, golden_now(5, 77, 0)}, {{0, 1}, golden_now(5, 77, 0)}};
  f.observe_sides(mine, golden, 0);
  EXPECT_EQ(f.rules({0, 1}, 0).second, FinalRule::kNone);
  f.observe_sides(mine, golden, 1);  // now token 0 is done (rule 1), and token 1 by its shape
  EXPECT_EQ(f.rules({0, 0}, 1).second, FinalRule::kLaterToken);
  EXPECT_EQ(f.rules({0, 1}, 1).second, FinalRule::kSameShape);
}

}  // namespace
}  // namespace msit::daemon
