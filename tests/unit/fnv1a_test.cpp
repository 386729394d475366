// FNV-1a 64 (common/base/fnv1a.h): the published test vectors, and pieces hash as their
// concatenation (the live comparer's signatures rely on it; divergence ids in events files
// must keep their values).
#include "common/base/fnv1a.h"

#include <gtest/gtest.h>

namespace {

TEST(Fnv1a, PublishedVectors) {
  static_assert(msit::fnv1a("") == 0xcbf29ce484222325ull);
  EXPECT_EQ(msit::fnv1a("a"), 0xaf63dc4c8601ec8cull);
  EXPECT_EQ(msit::fnv1a("foobar"), 0x85944171f73967e8ull);
}

TEST(Fnv1a, PiecesHashAsTheirConcatenation) {
  EXPECT_EQ(msit::fnv1a("bar", msit::fnv1a("foo")), msit::fnv1a("foobar"));
  EXPECT_NE(msit::fnv1a("foo\x1f"
                        "bar"),
            msit::fnv1a("fo\x1f"
                        "obar"));
}

}  // namespace
