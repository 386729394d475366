// Batches sized to the descriptor limit: a run with many workers under systemd's default soft
// limit of 1,024 must not fail files with EMFILE.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include "common/base/fd_limit.h"

namespace msit {
namespace {

TEST(FdLimitTest, BatchFitsTheLimit) {
  // 8 workers x 2 batches x 3 descriptors under a limit of 1,024: (1024 - 128) / 48 = 18.
  EXPECT_EQ(batch_size_within_fd_limit(64, 1024, 8, 2, 3), 18u);
  EXPECT_EQ(batch_size_within_fd_limit(64, 1 << 20, 8, 2, 3), 64u);  // plenty: what was asked
  EXPECT_EQ(batch_size_within_fd_limit(64, 100, 8, 2, 3), 1u);       // never below one
  EXPECT_EQ(batch_size_within_fd_limit(64, 1024, 0, 0, 0), 64u);     // zeros count as one
}

TEST(FdLimitTest, RaisesSoftLimitToHard) {
  struct rlimit before {};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &before), 0);
  size_t now = raise_fd_limit();
  struct rlimit after {};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &after), 0);
  EXPECT_EQ(after.rlim_cur, after.rlim_max);
  EXPECT_GE(now, static_cast<size_t>(before.rlim_cur == RLIM_INFINITY ? 1 : before.rlim_cur));
}

}  // namespace
}  // namespace msit
