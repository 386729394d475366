// Owners and the places of summaries (issue 28 items 5 and 7, docs/safety.md "Owners and
// locks"): one store locator for writers and readers, every store covering a directory read,
// and tree locks that another user's files or descriptors cannot take or block.
#include <gtest/gtest.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "common/compaction/compact_run.h"
#include "common/safety/beneath.h"
#include "common/safety/tree_lock.h"
#include "common/store/store_catalog.h"
#include "common/store/store_locator.h"
#include "npy_fixture.h"

namespace fs = std::filesystem;

namespace msit {
namespace {

const std::string kFx1 = "add_1-aten.add.Tensor.OUTPUT.0.20250101000000000000.npy";
const std::string kFx2 = "add_2-aten.add.Tensor.OUTPUT.0.20250101000000000001.npy";

class OwnersTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/msit-owners-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { fs::remove_all(dir_); }
  void npy(const std::string& path, std::vector<float> v) {
    fs::create_directories(fs::path(path).parent_path());
    std::ofstream(path, std::ios::binary) << test::npy_bytes(v);
  }
  static CompactReport compact_store(const std::string& root) {
    CompactRunOptions o;
    o.file.format = SummaryFormat::kStore;
    return run_compact({root}, o, {});
  }
  std::string dir_;
};

TEST(StoreLocator, TheHomeIsTheOutermostDumpRootOnTheWholePath) {
  using store::store_home_of;
  EXPECT_EQ(store_home_of("/data/run/msit_fx_dump/worldsize1_global_rank0/gm_1_dump/0"), "/data/run/msit_fx_dump");
  EXPECT_EQ(store_home_of("/data/run/msit_ge_dump/20250101120000/0/graph_1_0"), "/data/run/msit_ge_dump");
  EXPECT_EQ(store_home_of("/data/x/msit_dump_1/tensors/0_1/0"), "/data/x/msit_dump_1");
  EXPECT_EQ(store_home_of("/data/run/msit_ge_dump"), "/data/run/msit_ge_dump");
  EXPECT_EQ(store_home_of("/home/user/work"), "");
}

TEST(StoreLocator, WritersLookUpToTheHomeReadersUpToTheRoot) {
  const std::string d = "/data/msit_ge_dump/rank0/sub";
  EXPECT_EQ(store::writer_store_dirs(d),
            (std::vector<std::string>{d, "/data/msit_ge_dump/rank0", "/data/msit_ge_dump"}));
  EXPECT_TRUE(store::writer_store_dirs("/home/user").empty());
  EXPECT_EQ(store::reader_store_dirs("/a/b"), (std::vector<std::string>{"/a/b", "/a", "/"}));
}

// compact of one rank writes into the dump's home: never a nested store.
TEST_F(OwnersTest, CompactOfOneRankWritesIntoTheDumpsHome) {
  const std::string home = dir_ + "/msit_fx_dump";
  npy(home + "/rank0/" + kFx1, {1, 2});
  npy(home + "/rank1/" + kFx2, {3, 4});
  CompactReport r = compact_store(home + "/rank0");
  ASSERT_TRUE(r.failures.empty()) << r.failures.front().reason;
  EXPECT_FALSE(fs::exists(home + "/rank0/" + std::string(kStoreFileName)));
  ASSERT_TRUE(fs::exists(home + "/" + std::string(kStoreFileName)));
  r = compact_store(home);
  ASSERT_TRUE(r.failures.empty()) << r.failures.front().reason;
  auto& catalog = store::StoreCatalog::instance();
  const std::optional<store::StoredFile> n = catalog.find(home + "/rank0/" + kFx1);
  ASSERT_TRUE(n.has_value());
  EXPECT_EQ(*n->db, home + "/" + std::string(kStoreFileName));
  EXPECT_TRUE(catalog.find(home + "/rank1/" + kFx2).has_value());
}

// A nested store of an earlier version and the outer store both hold rows of one directory:
// readers list both; a writer adds to the nested one, which wins for a path both hold.
TEST_F(OwnersTest, ReadersSeeEveryStoreCoveringADirectoryAndWritersKeepToTheNearest) {
  const std::string home = dir_ + "/msit_fx_dump";
  npy(home + "/rank0/" + kFx1, {1, 2});
  ASSERT_TRUE(compact_store(home).failures.empty());  // outer store: rank0/kFx1
  // The old layout: a store made for rank0 alone, moved in afterwards.
  const std::string old = dir_ + "/old/msit_fx_dump";
  npy(old + "/" + kFx2, {5, 6});
  ASSERT_TRUE(compact_store(old).failures.empty());
  fs::rename(old + "/" + std::string(kStoreFileName), home + "/rank0/" + std::string(kStoreFileName));
  auto& catalog = store::StoreCatalog::instance();
  const store::StoredList names = catalog.stored_in(home + "/rank0");
  ASSERT_NE(names, nullptr);
  std::set<std::string> got;
  for (const auto& n : *names) got.insert(std::string(n.name) + "@" + *n.db);
  EXPECT_EQ(got, (std::set<std::string>{kFx1 + "@" + home + "/" + std::string(kStoreFileName),
                                        kFx2 + "@" + home + "/rank0/" + std::string(kStoreFileName)}));
  // A new file of rank0 goes to the nested store, the nearest existing one.
  const std::string kFx3 = "add_3-aten.add.Tensor.OUTPUT.0.20250101000000000002.npy";
  npy(home + "/rank0/" + kFx3, {7});
  ASSERT_TRUE(compact_store(home).failures.empty());
  auto nested = store::SummaryStore::open_read_only(home + "/rank0/" + std::string(kStoreFileName));
  ASSERT_TRUE(nested.ok());
  auto row = (*nested)->find(kFx3);
  ASSERT_TRUE(row.ok());
  EXPECT_TRUE(row->has_value());
}

TEST_F(OwnersTest, TheLockIsPrivateAndPublishedLocked) {
  fs::create_directories(dir_ + "/msit_ge_dump");
  auto root = open_trusted_dir(dir_ + "/msit_ge_dump");
  ASSERT_TRUE(root.ok());
  auto lock = TreeLock::acquire(root->get(), dir_ + "/msit_ge_dump");
  ASSERT_TRUE(lock.ok()) << lock.error().to_string();
  struct stat st {};
  ASSERT_EQ(::stat((dir_ + "/msit_ge_dump/" + std::string(kLockName)).c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  EXPECT_EQ(check_lock(root->get(), dir_ + "/msit_ge_dump").state, LockCheck::State::kLive);
  *lock = TreeLock();
  EXPECT_FALSE(fs::exists(dir_ + "/msit_ge_dump/" + std::string(kLockName)));
}

// A killed run's lock, held (shared) by another process through a descriptor it kept: ignored
// with a warning, replaced by a new lock; the holder keeps its descriptor of the old file.
TEST_F(OwnersTest, AStaleLockHeldOpenBySomeoneElseDoesNotBlock) {
  const std::string root_path = dir_ + "/msit_ge_dump";
  fs::create_directories(root_path);
  const std::string lock_path = root_path + "/" + std::string(kLockName);
  std::ofstream(lock_path) << "";
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  pid_t child = ::fork();
  if (child == 0) {
    int fd = ::open(lock_path.c_str(), O_RDONLY);
    char c = fd >= 0 && ::flock(fd, LOCK_SH) == 0 ? 'y' : 'n';
    (void)!::write(ready[1], &c, 1);
    ::pause();
    std::_Exit(0);
  }
  char c = 0;
  ASSERT_EQ(::read(ready[0], &c, 1), 1);
  ASSERT_EQ(c, 'y');
  struct stat before {};
  ASSERT_EQ(::stat(lock_path.c_str(), &before), 0);
  auto root = open_trusted_dir(root_path);
  ASSERT_TRUE(root.ok());
  EXPECT_EQ(check_lock(root->get(), root_path).state, LockCheck::State::kIgnored);
  std::vector<std::string> warnings;
  auto lock = TreeLock::acquire(root->get(), root_path, &warnings);
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  ASSERT_TRUE(lock.ok()) << lock.error().to_string();
  ASSERT_FALSE(warnings.empty());
  EXPECT_NE(warnings[0].find("ignored"), std::string::npos) << warnings[0];
  struct stat now {};
  ASSERT_EQ(::stat(lock_path.c_str(), &now), 0);
  EXPECT_NE(now.st_ino, before.st_ino);
  EXPECT_EQ(locked_ancestor(root_path + "/sub").dir, root_path);
}

// Another user's file under the lock name (as root only: chown): never honoured, moved aside
// (kept), and the tree is taken.
TEST_F(OwnersTest, AnotherUsersLockFileIsMovedAsideNotHonoured) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to give a file to another user";
  const std::string root_path = dir_ + "/msit_ge_dump";
  fs::create_directories(root_path + "/sub");
  const std::string planted = root_path + "/" + std::string(kLockName);
  std::ofstream(planted) << "mine";
  ASSERT_EQ(::chown(planted.c_str(), 65534, 65534), 0);
  auto root = open_trusted_dir(root_path);
  ASSERT_TRUE(root.ok());
  EXPECT_TRUE(locked_ancestor(root_path + "/sub").dir.empty());
  std::vector<std::string> warnings;
  auto lock = TreeLock::acquire(root->get(), root_path, &warnings);
  ASSERT_TRUE(lock.ok()) << lock.error().to_string();
  ASSERT_FALSE(warnings.empty());
  EXPECT_NE(warnings.back().find("moved aside"), std::string::npos) << warnings.back();
  size_t aside = 0;
  for (const auto& e : fs::directory_iterator(root_path)) {
    if (e.path().filename().string().starts_with(std::string(kLockName) + ".ignored.")) {
      ++aside;
      std::ifstream in(e.path());
      std::string text;
      std::getline(in, text);
      EXPECT_EQ(text, "mine");
    }
  }
  EXPECT_EQ(aside, 1u);
}

// A subtree a live owner holds is found below a root; a stale lock below is not an owner.
TEST_F(OwnersTest, LiveOwnersBelowARootAreFound) {
  const std::string root_path = dir_ + "/msit_ge_dump";
  fs::create_directories(root_path + "/rank0");
  fs::create_directories(root_path + "/rank1");
  std::ofstream(root_path + "/rank1/" + std::string(kLockName)) << "";  // stale
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  pid_t child = ::fork();
  if (child == 0) {
    auto sub = open_trusted_dir(root_path + "/rank0");
    auto l = sub.ok() ? TreeLock::acquire(sub->get(), root_path + "/rank0") : Result<TreeLock>(sub.error());
    char c = l.ok() ? 'y' : 'n';
    (void)!::write(ready[1], &c, 1);
    ::pause();
    std::_Exit(0);
  }
  char c = 0;
  ASSERT_EQ(::read(ready[0], &c, 1), 1);
  ASSERT_EQ(c, 'y');
  auto root = open_trusted_dir(root_path);
  ASSERT_TRUE(root.ok());
  std::vector<OwnedSubtree> owned = owned_subtrees(root->get(), root_path);
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  ASSERT_EQ(owned.size(), 1u);
  EXPECT_EQ(owned[0].rel, "rank0");
  EXPECT_NE(owned[0].holder.find("pid " + std::to_string(child)), std::string::npos) << owned[0].holder;
  EXPECT_TRUE(owned_subtrees(root->get(), root_path).empty());  // its holder is gone
}

}  // namespace
}  // namespace msit
