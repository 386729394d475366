// Raw files held back near a live divergence: the kept window, the cap, tokens and accounting.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "daemon/raw_holdback.h"

namespace msit::daemon {
namespace {

HeldFile file(const std::string& token, uint64_t order, int n = 0, uint64_t bytes = 100) {
  return HeldFile{token + "/op" + std::to_string(order) + "_" + std::to_string(n), bytes, token, order};
}

std::set<std::string> paths(const std::vector<HeldFile>& v) {
  std::set<std::string> out;
  for (const auto& f : v) out.insert(f.path);
  return out;
}

std::set<uint64_t> orders(const std::vector<HeldFile>& v) {
  std::set<uint64_t> out;
  for (const auto& f : v) out.insert(f.order);
  return out;
}

TEST(RawHoldback, DivergenceKeepsItsOpAndTheNOpsBeforeItAndReleasesTheRest) {
  RawHoldback h(2, 1u << 30);
  for (uint64_t op = 0; op < 8; ++op) EXPECT_TRUE(h.hold(file("r0/t0", op)).empty());
  RawHoldback::Decision d = h.diverged_at("r0/t0", 5);
  EXPECT_EQ(orders(d.keep), (std::set<uint64_t>{3, 4, 5}));
  EXPECT_EQ(orders(d.release), (std::set<uint64_t>{0, 1, 2, 6, 7}));
  EXPECT_EQ(h.held_files(), 0u);
  EXPECT_EQ(h.held_bytes(), 0u);
}

TEST(RawHoldback, NOpsBeforeCountDistinctOpsNotFiles) {
  RawHoldback h(1, 1u << 30);
  // Op 2 has three files, op 4 two, op 7 one; orders have gaps (ops without held files).
  for (int n = 0; n < 3; ++n) h.hold(file("t", 2, n));
  for (int n = 0; n < 2; ++n) h.hold(file("t", 4, n));
  h.hold(file("t", 7));
  RawHoldback::Decision d = h.diverged_at("t", 7);
  EXPECT_EQ(paths(d.keep), (std::set<std::string>{"t/op4_0", "t/op4_1", "t/op7_0"}));
  EXPECT_EQ(paths(d.release), (std::set<std::string>{"t/op2_0", "t/op2_1", "t/op2_2"}));
}

TEST(RawHoldback, FirstOpDivergingKeepsOnlyItself) {
  RawHoldback h(3, 1u << 30);
  h.hold(file("t", 0, 0));
  h.hold(file("t", 0, 1));
  h.hold(file("t", 1));
  RawHoldback::Decision d = h.diverged_at("t", 0);
  EXPECT_EQ(paths(d.keep), (std::set<std::string>{"t/op0_0", "t/op0_1"}));
  EXPECT_EQ(orders(d.release), (std::set<uint64_t>{1}));
}

TEST(RawHoldback, ClearedOpsBeyondTheWindowAreReleased) {
  RawHoldback h(2, 1u << 30);
  for (uint64_t op = 0; op < 6; ++op) h.hold(file("t", op));
  // Ops 0-4 fine: a divergence can only come at 5 or later, so ops 3 and 4 may still be needed.
  EXPECT_EQ(orders(h.cleared_through("t", 4)), (std::set<uint64_t>{0, 1, 2}));
  EXPECT_EQ(h.held_files(), 3u);
  EXPECT_EQ(orders(h.cleared_through("t", 5)), (std::set<uint64_t>{3}));
  // Clearing is monotonic: an older frontier changes nothing.
  EXPECT_TRUE(h.cleared_through("t", 1).empty());
  RawHoldback::Decision d = h.diverged_at("t", 6);
  EXPECT_EQ(orders(d.keep), (std::set<uint64_t>{4, 5}));
  EXPECT_TRUE(d.release.empty());
}

TEST(RawHoldback, LateFileOfAClearedOpOutsideTheWindowIsReleasedAtOnce) {
  RawHoldback h(1, 1u << 30);
  for (uint64_t op = 0; op < 4; ++op) h.hold(file("t", op));
  EXPECT_EQ(orders(h.cleared_through("t", 3)), (std::set<uint64_t>{0, 1, 2}));
  EXPECT_EQ(paths(h.hold(file("t", 1, 1))), (std::set<std::string>{"t/op1_1"}));
  EXPECT_TRUE(h.hold(file("t", 3, 1)).empty());  // op 3 is the window: held
  EXPECT_EQ(h.held_files(), 2u);
}

TEST(RawHoldback, CapForcesTheOldestHeldFilesOutFirst) {
  RawHoldback h(8, 1000);
  for (uint64_t op = 0; op < 5; ++op) EXPECT_TRUE(h.hold(file("a", op, 0, 200)).empty());
  std::vector<HeldFile> out = h.hold(file("b", 0, 0, 350));
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].path, "a/op0_0");
  EXPECT_EQ(out[1].path, "a/op1_0");
  EXPECT_EQ(h.held_bytes(), 950u);
  // A file larger than the cap is never held.
  out = h.hold(file("c", 0, 0, 5000));
  EXPECT_EQ(paths(out), (std::set<std::string>{"a/op2_0", "a/op3_0", "a/op4_0", "b/op0_0", "c/op0_0"}));
  EXPECT_EQ(h.held_bytes(), 0u);
  EXPECT_EQ(h.held_files(), 0u);
}

TEST(RawHoldback, OpsForcedOutByTheCapStillCountAsOpsBefore) {
  RawHoldback h(2, 300);
  for (uint64_t op = 0; op < 5; ++op) h.hold(file("t", op, 0, 100));  // ops 0 and 1 forced out
  EXPECT_EQ(h.held_files(), 3u);
  h.hold(file("t", 5, 0, 100));  // op 2 forced out
  RawHoldback::Decision d = h.diverged_at("t", 5);
  // The two ops before 5 are 3 and 4, whatever the cap released earlier.
  EXPECT_EQ(orders(d.keep), (std::set<uint64_t>{3, 4, 5}));
  EXPECT_TRUE(d.release.empty());
}

TEST(RawHoldback, TokensAreIndependent) {
  RawHoldback h(1, 1u << 30);
  for (uint64_t op = 0; op < 4; ++op) {
    h.hold(file("r0/t0", op));
    h.hold(file("r0/t1", op));
    h.hold(file("r1/t0", op));
  }
  RawHoldback::Decision d = h.diverged_at("r0/t0", 2);
  EXPECT_EQ(paths(d.keep), (std::set<std::string>{"r0/t0/op1_0", "r0/t0/op2_0"}));
  EXPECT_EQ(d.release.size(), 2u);
  for (const auto& f : d.release) EXPECT_EQ(f.token_key, "r0/t0");
  EXPECT_EQ(orders(h.cleared_through("r0/t1", 3)), (std::set<uint64_t>{0, 1, 2}));
  EXPECT_EQ(h.held_files(), 4u + 1u);  // r1/t0 untouched, r0/t1 keeps op 3
}

TEST(RawHoldback, LaterFilesOfADivergedTokenAreReleasedAsTheyCome) {
  RawHoldback h(2, 1u << 30);
  h.hold(file("t", 0));
  h.diverged_at("t", 0);
  EXPECT_EQ(paths(h.hold(file("t", 1))), (std::set<std::string>{"t/op1_0"}));
  EXPECT_EQ(paths(h.hold(file("t", 0, 1))), (std::set<std::string>{"t/op0_1"}));
  EXPECT_EQ(h.held_files(), 0u);
  // One first divergence per token: a second verdict keeps nothing more.
  RawHoldback::Decision again = h.diverged_at("t", 3);
  EXPECT_TRUE(again.keep.empty());
  EXPECT_TRUE(h.cleared_through("t", 9).empty());
}

TEST(RawHoldback, TokenDoneReleasesEverythingStillHeldAndStartsAfresh) {
  RawHoldback h(4, 1u << 30);
  for (uint64_t op = 0; op < 3; ++op)
    for (int n = 0; n < 2; ++n) h.hold(file("t", op, n));
  h.hold(file("other", 0));
  EXPECT_EQ(h.token_done("t").size(), 6u);
  EXPECT_EQ(h.held_files(), 1u);
  EXPECT_EQ(h.held_bytes(), 100u);
  EXPECT_TRUE(h.token_done("never-seen").empty());
  // A diverged token that is done no longer releases new files at once.
  h.diverged_at("other", 0);
  h.token_done("other");
  EXPECT_TRUE(h.hold(file("other", 0)).empty());
}

// Random operations against a model of what is held: the byte and file counts never drift and
// every file comes out exactly once.
TEST(RawHoldback, HeldBytesAccountingNeverDrifts) {
  std::mt19937_64 rng(30);
  RawHoldback h(3, 20'000);
  std::map<std::string, uint64_t> held;  // path -> bytes
  uint64_t made = 0;
  auto out = [&held](const std::vector<HeldFile>& v) {
    for (const auto& f : v) ASSERT_EQ(held.erase(f.path), 1u) << f.path << " came out twice";
  };
  std::map<std::string, uint64_t> next_op;
  for (int step = 0; step < 20'000; ++step) {
    std::string token = "t" + std::to_string(rng() % 6);
    switch (rng() % 10) {
      case 0: out(h.cleared_through(token, next_op[token] > 2 ? next_op[token] - 2 : 0)); break;
      case 1: {
        RawHoldback::Decision d = h.diverged_at(token, next_op[token]);
        out(d.keep);
        out(d.release);
        break;
      }
      case 2:
        out(h.token_done(token));
        next_op[token] = 0;
        break;
      default: {
        HeldFile f{"f" + std::to_string(made++), 1 + rng() % 3000, token, next_op[token]};
        if (rng() % 3 == 0) ++next_op[token];
        held[f.path] = f.bytes;
        out(h.hold(f));
      }
    }
    uint64_t bytes = 0;
    for (const auto& [p, b] : held) bytes += b;
    ASSERT_EQ(h.held_bytes(), bytes) << "step " << step;
    ASSERT_EQ(h.held_files(), held.size()) << "step " << step;
    ASSERT_LE(h.held_bytes(), 20'000u);
  }
}

}  // namespace
}  // namespace msit::daemon
