// Store versions (docs/store.md, "Versioning"): new stores are version 2; a version 1 store,
// as msit-compact f9f92a0 wrote it (tests/data/store_v1), is still read entry for entry as its
// JSON summaries, and appended to in its own form; each version's schema is checked exactly.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "common/safety/beneath.h"
#include "common/store/store_overview.h"
#include "common/store/summary_store.h"
#include "common/summary/summary.h"

namespace fs = std::filesystem;

namespace msit::store {
namespace {

// tests/data/store_v1: `msit-dumpgen tree --out T --layout ge-rank --files 6 --max-elements 300
// --seed 5 --dtypes float16,float32,int64,uint64,float64`, compacted by the f9f92a0 binary once
// into its store (default options: float32 sketches) and once with --summary-format json.
const std::string kV1 = std::string(MSIT_TESTDATA_DIR) + "/store_v1";

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// The JSON summaries of the fixture by path relative to the store, with their sketch buckets
// rounded to float32 as the store keeps them.
std::map<std::string, std::string> expected_entries() {
  std::map<std::string, std::string> out;
  const fs::path root = fs::path(kV1) / "json";
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    const std::string p = e.path().string();
    const std::string suffix = ".summary.json";
    if (!e.is_regular_file() || !p.ends_with(suffix)) continue;
    auto s = summary_from_json(read_file(e.path()), p);
    EXPECT_TRUE(s.ok()) << p;
    if (!s.ok()) continue;
    for (TensorSummary& t : s->tensors) {
      if (!t.stats.sketch) continue;
      for (double& v : t.stats.sketch->values) v = static_cast<double>(static_cast<float>(v));
    }
    const std::string rel = fs::relative(e.path(), root).string();
    out[rel.substr(0, rel.size() - suffix.size())] = summary_to_json(*s);
  }
  return out;
}

int64_t pragma_of(const std::string& db, const char* sql) {
  sqlite3* h = nullptr;
  EXPECT_EQ(sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  int64_t v = -1;
  if (sqlite3_prepare_v2(h, sql, -1, &s, nullptr) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW)
    v = sqlite3_column_int64(s, 0);
  sqlite3_finalize(s);
  sqlite3_close(h);
  return v;
}

void exec_sql(const std::string& db, const std::string& text) {
  sqlite3* h = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(h, text.c_str(), nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(h);
  sqlite3_close(h);
}

FileSummary small_summary(double max) {
  FileSummary s;
  s.source_kind = "npy";
  s.source_size = 200;
  s.created_by = "msit-compact test";
  TensorSummary t;
  t.role = "output";
  t.dtype = "float32";
  t.shape = {3};
  t.format = "ND";
  t.original_shape = {3};
  t.count = 3;
  t.stats.count = 3;
  t.stats.finite_count = 3;
  t.stats.min = -1;
  t.stats.max = max;
  t.stats.mean = 0.5;
  t.stats.std = 0.25;
  t.stats.abs_max = std::fabs(max);
  t.stats.values = std::vector<double>{-1, 0.5, max};
  t.xxh3_64 = "0123456789abcdef";
  s.tensors = {t, t};
  s.tensors[1].role = "input";
  return s;
}

class StoreVersionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/msit-store-version.XXXXXX";
    dir_ = ::mkdtemp(tmpl);
  }
  void TearDown() override { fs::remove_all(dir_); }
  DirRef dir_ref() {
    auto fd = open_trusted_dir(dir_);
    EXPECT_TRUE(fd.ok());
    return DirRef{std::make_shared<const UniqueFd>(std::move(fd).value()), dir_};
  }
  std::string db() const { return dir_ + "/" + std::string(kStoreFileName); }
  void copy_v1() { fs::copy_file(fs::path(kV1) / kStoreFileName, db()); }
  std::string dir_;
};

TEST_F(StoreVersionTest, Version1StoreOfTheOldBinaryReadsAsItsJsonSummaries) {
  copy_v1();
  const std::map<std::string, std::string> want = expected_entries();
  ASSERT_EQ(want.size(), 6u);
  auto r = SummaryStore::open_read_only(db());
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ((*r)->version(), 1);
  ASSERT_TRUE((*r)->begin_snapshot().ok());
  std::vector<std::string> listed;
  std::vector<int64_t> ids;
  ASSERT_TRUE((*r)->list([&](int64_t id, std::string_view rel) {
                    listed.emplace_back(rel);
                    ids.push_back(id);
                  })
                  .ok());
  std::vector<std::string> want_paths;
  for (const auto& [rel, json] : want) want_paths.push_back(rel);
  EXPECT_EQ(listed, want_paths);  // version 1: in path order
  size_t seen = 0;
  ASSERT_TRUE((*r)->for_each([&](std::string_view rel, const FileSummary& s) -> Status {
                    auto it = want.find(std::string(rel));
                    EXPECT_NE(it, want.end()) << rel;
                    if (it != want.end()) { EXPECT_EQ(summary_to_json(s), it->second) << rel; }
                    ++seen;
                    return ok_status();
                  })
                  .ok());
  EXPECT_EQ(seen, want.size());
  std::vector<std::optional<Result<FileSummary>>> many;
  (*r)->load_many(ids, many);
  for (size_t i = 0; i < ids.size(); ++i) {
    ASSERT_TRUE(many[i] && many[i]->ok()) << listed[i];
    auto one = (*r)->load(ids[i]);
    ASSERT_TRUE(one.ok());
    EXPECT_EQ((**many[i]).tensors.size(), one->tensors.size()) << listed[i];
  }
  auto o = read_overview(db(), 3);
  ASSERT_TRUE(o.ok()) << o.error().to_string();
  EXPECT_EQ(o->version, 1);
  EXPECT_EQ(o->files, 6u);
  EXPECT_EQ(o->tensors, 23u);
  EXPECT_EQ(o->top.size(), 3u);
  EXPECT_FALSE(fs::exists(db() + "-wal"));  // a reader writes nothing
}

TEST_F(StoreVersionTest, WriterAppendsToAVersion1StoreInItsOwnForm) {
  copy_v1();
  const FileSummary s = small_summary(7);
  {
    auto w = SummaryStore::open_for_write(dir_ref());
    ASSERT_TRUE(w.ok()) << w.error().to_string();
    EXPECT_EQ((*w)->version(), 1);
    ASSERT_TRUE(
        (*w)->put({StoreEntry{"new/dir/a.npy", FileIdentity{}, &s}, StoreEntry{"b.npy", FileIdentity{}, &s}}).ok());
    auto got = (*w)->find("new/dir/a.npy");
    ASSERT_TRUE(got.ok() && got->has_value());
    EXPECT_EQ((*got)->tensors.size(), 2u);
  }
  EXPECT_EQ(pragma_of(db(), "PRAGMA user_version"), 1);
  EXPECT_EQ(pragma_of(db(), "SELECT count(*) FROM sqlite_schema WHERE name = 'dirs'"), 0);
  EXPECT_EQ(pragma_of(db(), "SELECT count(*) FROM files WHERE path = 'new/dir/a.npy'"), 1);
  auto r = SummaryStore::open_read_only(db());
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  auto n = (*r)->file_count();
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(*n, 8u);
  auto old = (*r)->find(expected_entries().begin()->first);
  ASSERT_TRUE(old.ok() && old->has_value());
  EXPECT_EQ(summary_to_json(**old), expected_entries().begin()->second);
}

TEST_F(StoreVersionTest, NewStoresAreVersion2WithEachDirectoryStoredOnce) {
  std::vector<FileSummary> kept;
  for (int i = 0; i < 6; ++i) kept.push_back(small_summary(i));
  // Out of name order, as parallel workers commit them; "a-b" sorts before "a/" as a path.
  const std::vector<std::string> rels = {"a/y.npy", "top.npy", "a/b/z.npy", "a-b/x.npy", "a/x.npy", "a/b/c.npy"};
  for (size_t i = 0; i < rels.size(); ++i) kept[i].source_name = fs::path(rels[i]).filename().string();
  {
    auto w = SummaryStore::open_for_write(dir_ref());
    ASSERT_TRUE(w.ok()) << w.error().to_string();
    EXPECT_EQ((*w)->version(), kStoreVersion);
    for (size_t i = 0; i < rels.size(); ++i)  // one batch each: the directory cache across commits
      ASSERT_TRUE((*w)->put({StoreEntry{rels[i], FileIdentity{}, &kept[i]}}).ok()) << rels[i];
    for (size_t i = 0; i < rels.size(); ++i) {
      auto got = (*w)->find(rels[i]);
      ASSERT_TRUE(got.ok() && got->has_value()) << rels[i];
      EXPECT_EQ(summary_to_json(**got), summary_to_json(kept[i])) << rels[i];
    }
    auto absent = (*w)->find("a/b");  // a directory is not a file
    ASSERT_TRUE(absent.ok());
    EXPECT_FALSE(absent->has_value());
  }
  EXPECT_EQ(pragma_of(db(), "PRAGMA user_version"), 2);
  EXPECT_EQ(pragma_of(db(), "SELECT count(*) FROM dirs"), 4);  // "", "a", "a/b", "a-b"
  auto r = SummaryStore::open_read_only(db());
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  std::vector<std::string> listed;
  ASSERT_TRUE((*r)->list([&](int64_t, std::string_view rel) { listed.emplace_back(rel); }).ok());
  const std::vector<std::string> by_dir = {"top.npy", "a/x.npy", "a/y.npy", "a-b/x.npy", "a/b/c.npy", "a/b/z.npy"};
  EXPECT_EQ(listed, by_dir);
  size_t under = 0;
  ASSERT_TRUE((*r)->for_each(
                      [&](std::string_view rel, const FileSummary&) -> Status {
                        EXPECT_TRUE(rel.starts_with("a/b/")) << rel;
                        ++under;
                        return ok_status();
                      },
                      "a/b")
                  .ok());
  EXPECT_EQ(under, 2u);
  auto o = read_overview(db(), 2);
  ASSERT_TRUE(o.ok()) << o.error().to_string();
  EXPECT_EQ(o->version, 2);
  EXPECT_EQ(o->tensors, 12u);
  ASSERT_EQ(o->top.size(), 2u);
  EXPECT_EQ(o->top[0].path, "a/b/c.npy");  // the largest max (5), its path rebuilt from dirs
  EXPECT_EQ(pragma_of(db(), "SELECT count(*) FROM tensor_stats WHERE path = 'top.npy'"), 2);
}

// Each version's schema exactly: a version 1 schema stamped 2, or the reverse, is a modified
// store, refused before any query by readers and writers alike.
TEST_F(StoreVersionTest, SchemaMustBeExactlyThatOfTheStampedVersion) {
  copy_v1();
  exec_sql(db(), "PRAGMA user_version = 2");
  auto r = SummaryStore::open_read_only(db());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().to_string().find("crafted or modified store"), std::string::npos) << r.error().to_string();
  EXPECT_NE(r.error().to_string().find("store version 2"), std::string::npos) << r.error().to_string();
  fs::remove(db());
  const FileSummary s = small_summary(1);
  {
    auto w = SummaryStore::open_for_write(dir_ref());
    ASSERT_TRUE(w.ok());
    ASSERT_TRUE((*w)->put({StoreEntry{"d/a.npy", FileIdentity{}, &s}}).ok());
  }
  exec_sql(db(), "PRAGMA user_version = 1");
  auto r1 = SummaryStore::open_read_only(db());
  ASSERT_FALSE(r1.ok());
  EXPECT_NE(r1.error().to_string().find("crafted or modified store"), std::string::npos) << r1.error().to_string();
  auto w1 = SummaryStore::open_for_write(dir_ref());
  EXPECT_FALSE(w1.ok());
  exec_sql(db(), "PRAGMA user_version = 2; CREATE INDEX by_name ON files(name)");
  auto r2 = SummaryStore::open_read_only(db());
  ASSERT_FALSE(r2.ok());
  EXPECT_NE(r2.error().to_string().find("has an index \"by_name\""), std::string::npos) << r2.error().to_string();
}

}  // namespace
}  // namespace msit::store

// export's walk steps the listing a window at a time (SummaryStore::kForEachWindow): across the
// windows every entry comes once, in the listing's order, `under` filtering as in one window.
namespace msit::store {
namespace {
TEST_F(StoreVersionTest, ForEachCrossesListingWindowsInOrder) {
  const size_t n = SummaryStore::kForEachWindow * 2 + 3;
  FileSummary s = small_summary(1);
  std::vector<std::string> rels;
  for (size_t i = 0; i < n; ++i) rels.push_back((i % 2 ? "b/" : "a/") + std::to_string(100000 + i) + ".npy");
  {
    auto w = SummaryStore::open_for_write(dir_ref());
    ASSERT_TRUE(w.ok()) << w.error().to_string();
    std::vector<StoreEntry> batch;
    for (const std::string& rel : rels) batch.push_back(StoreEntry{rel, FileIdentity{}, &s});
    ASSERT_TRUE((*w)->put(batch).ok());
  }
  auto r = SummaryStore::open_read_only(db());
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  std::vector<std::string> listed, walked, under_b;
  ASSERT_TRUE((*r)->list([&](int64_t, std::string_view rel) { listed.emplace_back(rel); }).ok());
  ASSERT_EQ(listed.size(), n);
  auto walk = [&](std::vector<std::string>& out, std::string_view under) {
    return (*r)->for_each(
        [&](std::string_view rel, const FileSummary&) -> Status {
          out.emplace_back(rel);
          return ok_status();
        },
        under);
  };
  ASSERT_TRUE(walk(walked, {}).ok());
  EXPECT_EQ(walked, listed);
  ASSERT_TRUE(walk(under_b, "b").ok());
  EXPECT_EQ(under_b.size(), n / 2);
  EXPECT_TRUE(std::is_sorted(under_b.begin(), under_b.end()));
}
}  // namespace
}  // namespace msit::store
