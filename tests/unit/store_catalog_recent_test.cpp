// StoreCatalog::forget_changed keeps a store's listing only while its database and WAL are as
// they were (size, mtime, inode) and were not written in the last seconds: mtime comes from a
// coarse clock, so two writes in one tick can leave one stamp (docs/live-divergence.md "Cost").
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ctime>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "common/compaction/compact_run.h"
#include "common/store/store_catalog.h"
#include "npy_fixture.h"

namespace fs = std::filesystem;

namespace msit {
namespace {

class StoreCatalogRecentTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/msit-store-recent-test.XXXXXX";
    dir_ = ::mkdtemp(tmpl);
    root_ = dir_ + "/msit_fx_dump";
    fs::create_directories(root_ + "/0");
    std::ofstream(root_ + "/0/x-aten.add.Tensor.OUTPUT.0.20250101000000000000.npy", std::ios::binary)
        << test::npy_bytes({1, 2});
    CompactRunOptions o;
    o.file.format = SummaryFormat::kStore;
    ASSERT_TRUE(run_compact({root_}, o, {}).failures.empty());
  }
  void TearDown() override {
    store::StoreCatalog::instance().forget_all();
    fs::remove_all(dir_);
  }
  std::vector<fs::path> store_files() {  // database, WAL, ...
    std::vector<fs::path> out;
    for (const auto& e : fs::recursive_directory_iterator(dir_))
      if (e.path().filename().string().rfind("msit-summary.db", 0) == 0) out.push_back(e.path());
    return out;
  }
  void date_store(timespec t) {
    timespec ts[2] = {t, t};
    for (const auto& p : store_files()) ASSERT_EQ(::utimensat(AT_FDCWD, p.c_str(), ts, AT_SYMLINK_NOFOLLOW), 0) << p;
  }
  static timespec now_plus(int64_t s) {
    timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    t.tv_sec += s;
    return t;
  }
  // Lists the store, then overwrites its database's header in place (the size stays) and gives
  // its files back the mtime `t`: size, mtime and inode are as they were when it was listed, as
  // after a second write in the same clock tick. Returns how many names forget_changed() then
  // leaves listed (0: the store was opened again and found unreadable).
  size_t names_after_same_stamp_change(timespec t) {
    date_store(t);
    auto& catalog = store::StoreCatalog::instance();
    catalog.forget_all();
    const std::string* db = nullptr;
    store::StoredList names = catalog.stored_in(root_ + "/0", &db);
    EXPECT_TRUE(names != nullptr && names->size() == 1);
    {
      std::fstream f(*db, std::ios::in | std::ios::out | std::ios::binary);
      f.seekp(0);
      f << "not a database!!";
    }
    date_store(t);
    catalog.forget_changed();
    names = catalog.stored_in(root_ + "/0");
    (void)catalog.take_errors();
    return names == nullptr ? 0 : names->size();
  }
  std::string dir_, root_;
};

TEST_F(StoreCatalogRecentTest, AStoreWhoseStampDidNotChangeIsKeptWhenItsFilesAreAMinuteOld) {
  EXPECT_EQ(names_after_same_stamp_change(now_plus(-60)), 1u);  // trusted: not opened again
}

// An mtime an hour ahead stands for "this clock tick" however slowly the test runs.
TEST_F(StoreCatalogRecentTest, AStoreWrittenInTheLastSecondsIsListedAgainThoughItsStampDidNotChange) {
  EXPECT_EQ(names_after_same_stamp_change(now_plus(3600)), 0u);  // opened again: the change shows
}

}  // namespace
}  // namespace msit
