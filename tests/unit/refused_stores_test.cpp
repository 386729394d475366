// Issue 43 part 3 (docs/safety.md R6): a store refused for another user's side file is named
// with that file's owner, once a minute while it is there, and forgotten once it is gone.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "daemon/refused_stores.h"
#include "daemon_fakes.h"

namespace msit::daemon {
namespace {

namespace fs = std::filesystem;
constexpr int64_t kS = 1'000'000'000;

TEST(RefusedStores, ANamedSideFileIsSaidOnceAMinuteUntilItIsGone) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to make a file of another owner";
  testing::TempDir tmp;
  const std::string wal = tmp.path + "/msit-summary.db-wal";
  testing::write_file(tmp.path + "/msit-summary.db", "");
  testing::write_file(wal, "forged");
  ASSERT_EQ(::chown(wal.c_str(), 65534, 65534), 0);
  RefusedStores r;
  r.note(wal);
  r.note(wal);
  ASSERT_EQ(r.files().size(), 1u);
  EXPECT_EQ(r.files()[0].owner, 65534u);
  EXPECT_EQ(r.files()[0].store_owner, 0u);
  auto lines = r.tick(100 * kS);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find(wal + ": belongs to uid 65534, not to uid 0"), std::string::npos) << lines[0];
  EXPECT_TRUE(r.tick(130 * kS).empty()) << "once a minute";
  EXPECT_EQ(r.tick(160 * kS).size(), 1u);
  fs::remove(wal);
  lines = r.tick(161 * kS);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("gone"), std::string::npos) << lines[0];
  EXPECT_TRUE(r.files().empty());
}

TEST(RefusedStores, AFileOfTheStoresOwnerIsNotNoted) {
  testing::TempDir tmp;
  testing::write_file(tmp.path + "/msit-summary.db", "");
  testing::write_file(tmp.path + "/msit-summary.db-wal", "");
  RefusedStores r;
  r.note(tmp.path + "/msit-summary.db-wal");
  r.note(tmp.path + "/nothing-db-wal");
  EXPECT_TRUE(r.files().empty());
}

}  // namespace
}  // namespace msit::daemon
