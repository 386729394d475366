// The store catalog between two passes of the live comparer (StoreCatalog::forget_changed;
// docs/live-divergence.md "Cost"): a store that changed - rows added, deleted, renamed,
// replaced under the same id, or the database replaced by another - is read through new
// snapshots, so the catalog always says what the store holds now.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "common/safety/beneath.h"
#include "common/store/store_catalog.h"
#include "common/store/store_locator.h"
#include "common/store/summary_store.h"

namespace fs = std::filesystem;

namespace msit::store {
namespace {

FileSummary summary_of(const std::string& name, double mean) {
  FileSummary s;
  s.source_name = name;
  s.source_kind = "npy";
  s.source_size = 8;
  TensorSummary t;
  t.role = "output";
  t.index = 0;
  t.dtype = "float32";
  t.shape = {2};
  t.format = "ND";
  t.count = 2;
  t.stats.count = 2;
  t.stats.min = mean;
  t.stats.max = mean;
  t.stats.mean = mean;
  t.xxh3_64 = "0123456789abcdef";
  s.tensors.push_back(t);
  return s;
}

class StoreCatalogRefreshTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/msit-catalog-refresh-test.XXXXXX";
    dir_ = ::mkdtemp(tmpl);
    StoreCatalog::instance().forget_all();
  }
  void TearDown() override {
    StoreCatalog::instance().forget_all();
    fs::remove_all(dir_);
  }
  // Adds files d/NAME (one summary each, its mean = value) to the store in `dir`.
  static void put(const std::string& dir, const std::vector<std::pair<std::string, double>>& files) {
    auto fd = open_trusted_dir(dir);
    ASSERT_TRUE(fd.ok());
    auto w = SummaryStore::open_for_write(DirRef{std::make_shared<const UniqueFd>(std::move(fd).value()), dir});
    ASSERT_TRUE(w.ok()) << w.error().to_string();
    std::vector<FileSummary> sums;
    sums.reserve(files.size());
    std::vector<StoreEntry> batch;
    for (const auto& [name, mean] : files) {
      sums.push_back(summary_of(name, mean));
      batch.push_back(StoreEntry{"d/" + name, FileIdentity{}, &sums.back(), SketchPrecision::kFloat64});
    }
    ASSERT_TRUE((*w)->put(batch).ok());
  }
  static void sql(const std::string& db, const std::string& text) {
    sqlite3* h = nullptr;
    ASSERT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(h, text.c_str(), nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(h);
    sqlite3_close(h);
  }
  std::string db() const { return dir_ + "/" + std::string(kStoreFileName); }
  // The names the catalog lists in d/, and each one's stored mean as loaded through the catalog.
  std::vector<std::pair<std::string, double>> listed() {
    std::vector<std::pair<std::string, double>> out;
    const StoredList names = StoreCatalog::instance().stored_in(dir_ + "/d");
    if (names == nullptr) return out;
    for (const StoredName& n : *names) {
      auto s = StoreCatalog::instance().load(*n.db, n.id);
      EXPECT_TRUE(s.ok()) << n.name;
      out.emplace_back(std::string(n.name), s.ok() && !s->tensors.empty() ? s->tensors[0].stats.mean.value_or(-1) : -1);
    }
    return out;
  }
  using Files = std::vector<std::pair<std::string, double>>;
  std::string dir_;
};

TEST_F(StoreCatalogRefreshTest, NewRowsAreListedAfterARefresh) {
  put(dir_, {{"b.npy", 2}, {"d.npy", 4}});
  EXPECT_EQ(listed(), (Files{{"b.npy", 2}, {"d.npy", 4}}));
  put(dir_, {{"c.npy", 3}, {"a.npy", 1}});  // new rows, sorting before and between the old ones
  put(dir_, {{"e.npy", 5}});
  EXPECT_EQ(listed().size(), 2u);  // the snapshot read before the refresh
  StoreCatalog::instance().forget_changed();
  EXPECT_EQ(listed(), (Files{{"a.npy", 1}, {"b.npy", 2}, {"c.npy", 3}, {"d.npy", 4}, {"e.npy", 5}}));
}

// close_idle() between the independent parts of a run (compare's msProbe rank folders, the live
// comparer's passes): the connections and their page caches go, what was listed stays usable
// (its store paths too) and reads the same rows through a new connection.
TEST_F(StoreCatalogRefreshTest, ClosedIdleConnectionsAreOpenedAgainOnTheNextRead) {
  put(dir_, {{"a.npy", 1}, {"b.npy", 2}});
  const StoredList names = StoreCatalog::instance().stored_in(dir_ + "/d");
  ASSERT_NE(names, nullptr);
  EXPECT_EQ(listed(), (Files{{"a.npy", 1}, {"b.npy", 2}}));
  // Debian's SQLite keeps no memory statistics: the connection is seen by its open database file.
  auto open_fds = [this] {
    int n = 0;
    for (const auto& e : fs::directory_iterator("/proc/self/fd")) {
      std::error_code ec;
      n += fs::read_symlink(e.path(), ec) == fs::path(db()) ? 1 : 0;
    }
    return n;
  };
  EXPECT_GT(open_fds(), 0);
  StoreCatalog::instance().close_idle();
  EXPECT_EQ(open_fds(), 0);
  for (const StoredName& n : *names) {
    auto s = StoreCatalog::instance().load(*n.db, n.id);
    ASSERT_TRUE(s.ok()) << s.error().to_string();
    EXPECT_EQ(s->tensors[0].stats.mean.value_or(-1), n.name == "a.npy" ? 1 : 2);
  }
  EXPECT_EQ(listed(), (Files{{"a.npy", 1}, {"b.npy", 2}}));
}

// close_unused() after each live pass: a store some pass read within the last kUnusedCalls
// calls keeps its connection (and page cache); one no pass read for that long is closed.
TEST_F(StoreCatalogRefreshTest, OnlyStoresUnreadForSeveralCallsAreClosed) {
  put(dir_, {{"a.npy", 1}});
  auto open_fds = [this] {
    int n = 0;
    for (const auto& e : fs::directory_iterator("/proc/self/fd")) {
      std::error_code ec;
      n += fs::read_symlink(e.path(), ec) == fs::path(db()) ? 1 : 0;
    }
    return n;
  };
  EXPECT_EQ(listed(), (Files{{"a.npy", 1}}));
  for (unsigned i = 1; i < StoreCatalog::kUnusedCalls; ++i) {
    StoreCatalog::instance().close_unused();
    if (i == 3) {
      EXPECT_EQ(listed(), (Files{{"a.npy", 1}}));  // read again: counted afresh
    }
  }
  EXPECT_GT(open_fds(), 0);
  for (unsigned i = 0; i < 3; ++i) StoreCatalog::instance().close_unused();
  EXPECT_GT(open_fds(), 0);  // 7 calls since the read at call 3
  StoreCatalog::instance().close_unused();
  EXPECT_EQ(open_fds(), 0);
  EXPECT_EQ(listed(), (Files{{"a.npy", 1}}));  // and opened again when read
}

TEST_F(StoreCatalogRefreshTest, DeletedRowIsGoneAfterARefresh) {
  put(dir_, {{"a.npy", 1}, {"b.npy", 2}});
  EXPECT_EQ(listed().size(), 2u);
  sql(db(),
      "DELETE FROM tensors WHERE key >> 20 = (SELECT id FROM files WHERE name = 'a.npy');"
      "DELETE FROM files WHERE name = 'a.npy'");
  put(dir_, {{"c.npy", 3}});  // and one more row: the count alone would not tell
  StoreCatalog::instance().forget_changed();
  EXPECT_EQ(listed(), (Files{{"b.npy", 2}, {"c.npy", 3}}));
}

TEST_F(StoreCatalogRefreshTest, RowRenamedInPlaceIsListedUnderItsNewName) {
  put(dir_, {{"a.npy", 1}, {"b.npy", 2}});
  EXPECT_EQ(listed().size(), 2u);
  sql(db(), "UPDATE files SET name = 'z.npy' WHERE name = 'a.npy'");  // same id, same count
  StoreCatalog::instance().forget_changed();
  EXPECT_EQ(listed(), (Files{{"b.npy", 2}, {"z.npy", 1}}));
}

TEST_F(StoreCatalogRefreshTest, LastRowReplacedUnderTheSameIdIsListedAfresh) {
  put(dir_, {{"a.npy", 1}, {"b.npy", 2}});
  EXPECT_EQ(listed().size(), 2u);
  // SQLite gives a new row the largest id + 1: deleting the last row and adding another reuses
  // its id, so the same count and the same largest id hold another file.
  sql(db(),
      "DELETE FROM tensors WHERE key >> 20 = (SELECT id FROM files WHERE name = 'b.npy');"
      "DELETE FROM files WHERE name = 'b.npy'");
  put(dir_, {{"c.npy", 3}});
  StoreCatalog::instance().forget_changed();
  EXPECT_EQ(listed(), (Files{{"a.npy", 1}, {"c.npy", 3}}));
}

TEST_F(StoreCatalogRefreshTest, DirectoryRenamedInPlaceIsListedAfresh) {
  put(dir_, {{"a.npy", 1}});
  EXPECT_EQ(listed().size(), 1u);
  sql(db(), "UPDATE dirs SET path = 'e' WHERE path = 'd'");
  StoreCatalog::instance().forget_changed();
  EXPECT_TRUE(listed().empty());  // d/ holds nothing now
  const StoredList names = StoreCatalog::instance().stored_in(dir_ + "/e");
  ASSERT_NE(names, nullptr);
  EXPECT_EQ(names->size(), 1u);
}

TEST_F(StoreCatalogRefreshTest, StoreReplacedByAnotherDatabaseIsListedAfresh) {
  put(dir_, {{"a.npy", 1}, {"b.npy", 2}});
  EXPECT_EQ(listed().size(), 2u);
  // Another store with more rows, renamed over this one: other files at the same ids.
  const std::string other = dir_ + "/other";
  fs::create_directories(other);
  put(other, {{"x.npy", 7}, {"y.npy", 8}, {"w.npy", 9}});
  fs::rename(other + "/" + std::string(kStoreFileName), db());
  for (const char* suffix : {"-wal", "-shm"}) fs::remove(db() + suffix);
  for (const char* suffix : {"-wal", "-shm"}) {
    std::error_code ec;
    fs::rename(other + "/" + std::string(kStoreFileName) + suffix, db() + suffix, ec);
  }
  StoreCatalog::instance().forget_changed();
  EXPECT_EQ(listed(), (Files{{"w.npy", 9}, {"x.npy", 7}, {"y.npy", 8}}));
}

}  // namespace
}  // namespace msit::store
