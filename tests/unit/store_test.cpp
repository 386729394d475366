// The summary store: round trips equal to the JSON form, batched durability before raw
// removal, and hostile stores (links, other users' or applications' files, newer versions,
// damage) refused by path and never rebuilt or written through.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <future>
#include <thread>
#include <vector>

#include "common/compaction/compact.h"
#include "common/compaction/compact_run.h"
#include "common/safety/beneath.h"
#include "common/store/store_catalog.h"
#include "common/store/store_registry.h"
#include "common/store/summary_store.h"
#include "npy_fixture.h"

namespace fs = std::filesystem;

namespace msit::store {
namespace {

const std::string kFx = "add_1-aten.add.Tensor.OUTPUT.0.20250101000000000000.npy";

FileSummary sample_summary() {
  FileSummary s;
  s.source_name = "Add.Add_2.44.6.1706596912161941";
  s.source_kind = "ge_bin";
  s.source_size = 123456;
  s.source_mtime_ns = 1706596912161941000;
  s.op = OpInfo{"Add", "Add_2", "44", "6", "1706596912161941", "Add_2"};
  s.created_by = "msit-compact test";
  TensorSummary a;
  a.role = "input";
  a.index = 0;
  a.dtype = "float16";
  a.shape = {4, 4096};
  a.format = "ND";
  a.original_shape = {4, 4096};
  a.count = 16384;
  a.stats.count = a.count;
  a.stats.min = -3.5;
  a.stats.max = 7.25;
  a.stats.mean = 0.125;
  a.stats.std = 1.5;
  a.stats.abs_max = 7.25;
  a.stats.l2norm = 123.5;
  a.stats.zero_count = 3;
  a.stats.nan_count = 1;
  a.stats.sketch = Sketch{8, 0x6d7369742d636d70ull, {0.1, -2.5, 3.0000001, 1e-30, 0, 5, -6, 7}};
  a.xxh3_64 = "0123456789abcdef";
  TensorSummary b;
  b.role = "output";
  b.index = 0;
  b.sub_index = 2;
  b.dtype = "int64";
  b.shape = {3};
  b.format = "ND";
  b.original_shape = {3};
  b.count = 3;
  b.stats.count = 3;
  b.stats.min_i64 = -9007199254740993;  // not a double
  b.stats.min = static_cast<double>(*b.stats.min_i64);
  b.stats.max_i64 = 5;
  b.stats.max = 5;
  b.stats.mean = std::nan("");  // non-finite statistics are null, as in JSON
  b.stats.values = std::vector<double>{-9007199254740993.0, 0, 5};
  b.xxh3_64 = "fedcba9876543210";
  TensorSummary c = b;
  c.index = 1;
  c.sub_index.reset();
  c.dtype = "uint64";
  c.stats.min_i64.reset();
  c.stats.max_i64.reset();
  c.stats.min_u64 = 1;
  c.stats.max_u64 = 18446744073709551615ull;
  c.stats.max = 18446744073709551615.0;
  c.stats_available = true;
  c.note = "a note";
  s.tensors = {a, b, c};
  s.extra_blocks = {ExtraBlock{"workspace", 0, 4096, "00000000000000ff"}};
  return s;
}

constexpr SketchPrecision kExact = SketchPrecision::kFloat64;

// The tensors of a summary as JSON (what compare's batched read returns).
// What load_many() reads of each tensor: all but the statistics compare never uses.
std::string compare_view_json(const FileSummary& f) {
  FileSummary t;
  t.tensors = f.tensors;
  for (TensorSummary& ts : t.tensors) {
    ts.sub_index.reset();
    ts.stats.std.reset();
    ts.stats.abs_max.reset();
    ts.stats.sum = 0;
    ts.stats.finite_count = 0;
    ts.stats.zero_count = 0;
  }
  return summary_to_json(t);
}

// True once thread `tid` of this process is asleep (state S in /proc), polled up to `limit`.
bool thread_sleeps_within(pid_t tid, std::chrono::seconds limit) {
  const std::string stat = "/proc/self/task/" + std::to_string(tid) + "/stat";
  for (auto deadline = std::chrono::steady_clock::now() + limit; std::chrono::steady_clock::now() < deadline;) {
    std::ifstream in(stat);
    std::string line;
    std::getline(in, line);
    const auto paren = line.rfind(')');  // the state follows the command name: "tid (comm) S ..."
    if (paren != std::string::npos && paren + 2 < line.size() && line[paren + 2] == 'S') return true;
    std::this_thread::yield();
  }
  return false;
}

class StoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/msit-store-test.XXXXXX";
    dir_ = ::mkdtemp(tmpl);
  }
  void TearDown() override { fs::remove_all(dir_); }
  DirRef dir_ref(const std::string& path) {
    auto fd = open_trusted_dir(path);
    EXPECT_TRUE(fd.ok());
    return DirRef{std::make_shared<const UniqueFd>(std::move(fd).value()), path};
  }
  std::unique_ptr<SummaryStore> writer() {
    auto s = SummaryStore::open_for_write(dir_ref(dir_));
    EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error().to_string());
    return s.ok() ? std::move(s).value() : nullptr;
  }
  static std::string read(const std::string& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  static void sql(const std::string& db, const char* text) {
    sqlite3* h = nullptr;
    ASSERT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(h, text, nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(h);
    sqlite3_close(h);
  }
  std::string db() const { return dir_ + "/" + std::string(kStoreFileName); }
  std::string dir_;
};

TEST_F(StoreTest, RoundTripEqualsTheJsonForm) {
  const FileSummary s = sample_summary();
  auto w = writer();
  ASSERT_TRUE(w);
  FileIdentity id;
  id.size = s.source_size;
  ASSERT_TRUE(w->put({StoreEntry{"a/b/" + s.source_name, id, &s, kExact}}).ok());
  auto got = w->find("a/b/" + s.source_name);
  ASSERT_TRUE(got.ok() && got->has_value()) << (got.ok() ? "missing" : got.error().to_string());
  auto via_json = summary_from_json(summary_to_json(s), "x");
  ASSERT_TRUE(via_json.ok()) << via_json.error().to_string();
  EXPECT_EQ(summary_to_json(**got), summary_to_json(*via_json));
  EXPECT_EQ((*got)->tensors[1].stats.min_i64, -9007199254740993);
  EXPECT_EQ((*got)->tensors[2].stats.max_u64, 18446744073709551615ull);
  EXPECT_FALSE((*got)->tensors[1].stats.mean.has_value());
  auto absent = w->find("a/b/other");
  ASSERT_TRUE(absent.ok());
  EXPECT_FALSE(absent->has_value());
}

// load_many (compare's batched read): every id's tensors as load() gives them, less the
// statistics compare does not read, whether the ids are neighbours (one range statement),
// scattered (one lookup each), repeated or absent.
TEST_F(StoreTest, LoadManyEqualsLoadForEveryId) {
  FileSummary s = sample_summary();
  FileSummary bare = s;
  bare.tensors.clear();  // a file without tensors: one LEFT JOIN row of nulls
  bare.extra_blocks.clear();
  auto w = writer();
  ASSERT_TRUE(w);
  std::vector<StoreEntry> batch;
  std::vector<FileSummary> keep(300, s);
  for (size_t i = 0; i < keep.size(); ++i) {
    keep[i].tensors[0].stats.max = static_cast<double>(i);
    batch.push_back(StoreEntry{"d/f" + std::to_string(i), FileIdentity{}, i % 7 == 3 ? &bare : &keep[i], kExact});
  }
  ASSERT_TRUE(w->put(batch).ok());
  auto r = SummaryStore::open_read_only(db());
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  ASSERT_TRUE((*r)->begin_snapshot().ok());
  std::vector<std::vector<int64_t>> cases = {
      {5, 3, 4, 6, 10, 9, 3}, {1, 300, 150, 2}, {299, 300, 301, 0, 298}, {42}, {}};
  std::vector<int64_t> spread;  // more than one IN list of ids 3 apart, repeats across their edges
  for (int64_t i = 0; i < 100; ++i) spread.push_back(1 + (i * 3) % 300);
  for (int64_t i = 0; i < 100; i += 9) spread.push_back(1 + (i * 3) % 300);
  cases.push_back(spread);
  for (const auto& ids : cases) {
    std::vector<std::optional<Result<FileSummary>>> got;
    (*r)->load_many(ids, got);
    ASSERT_EQ(got.size(), ids.size());
    for (size_t i = 0; i < ids.size(); ++i) {
      auto one = (*r)->load(ids[i]);
      ASSERT_TRUE(got[i].has_value());
      ASSERT_EQ(got[i]->ok(), one.ok()) << "id " << ids[i];
      if (one.ok()) {
        EXPECT_EQ(compare_view_json(got[i]->value()), compare_view_json(*one)) << "id " << ids[i];
      } else {
        EXPECT_EQ(got[i]->error().to_string(), one.error().to_string());
      }
    }
  }
}

// A tensor row that does not decode, in the middle of a range: its file gets load()'s error,
// which names the raw path, and its neighbours still load.
TEST_F(StoreTest, LoadManyReportsABadRowByPath) {
  FileSummary s = sample_summary();
  auto w = writer();
  ASSERT_TRUE(w);
  std::vector<StoreEntry> batch;
  for (int i = 0; i < 40; ++i) batch.push_back(StoreEntry{"d/f" + std::to_string(i), FileIdentity{}, &s, kExact});
  ASSERT_TRUE(w->put(batch).ok());
  w.reset();
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(db().c_str(), &raw), SQLITE_OK);
  EXPECT_EQ(
      sqlite3_exec(raw, "UPDATE tensors SET shape = 'not a shape' WHERE key >> 20 = 5", nullptr, nullptr, nullptr),
      SQLITE_OK);
  sqlite3_close(raw);
  auto r = SummaryStore::open_read_only(db());
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  ASSERT_TRUE((*r)->begin_snapshot().ok());
  std::vector<std::optional<Result<FileSummary>>> got;
  (*r)->load_many({3, 4, 5, 6, 7}, got);
  ASSERT_EQ(got.size(), 5u);
  ASSERT_FALSE(got[2]->ok());
  EXPECT_NE(got[2]->error().to_string().find("d/f4"), std::string::npos) << got[2]->error().to_string();
  EXPECT_NE(got[2]->error().to_string().find("bad shape"), std::string::npos) << got[2]->error().to_string();
  for (size_t i : {0u, 1u, 3u, 4u}) {
    ASSERT_TRUE(got[i]->ok()) << got[i]->error().to_string();
    EXPECT_EQ(compare_view_json(got[i]->value()), compare_view_json(s));
  }
  // Scattered ids (one IN list): the same error for the bad row, the others still load.
  (*r)->load_many({40, 5, 1, 22}, got);
  ASSERT_EQ(got.size(), 4u);
  ASSERT_FALSE(got[1]->ok());
  EXPECT_NE(got[1]->error().to_string().find("d/f4"), std::string::npos) << got[1]->error().to_string();
  EXPECT_NE(got[1]->error().to_string().find("bad shape"), std::string::npos) << got[1]->error().to_string();
  for (size_t i : {0u, 2u, 3u}) {
    ASSERT_TRUE(got[i]->ok()) << got[i]->error().to_string();
    EXPECT_EQ(compare_view_json(got[i]->value()), compare_view_json(s));
  }
}

// The precision is the entry's: a daemon reloaded with another sketch_bits writes its next
// batches to the store it holds open with the new one, and both kinds read back.
TEST_F(StoreTest, SketchPrecisionIsPerEntry) {
  const FileSummary s = sample_summary();
  auto w = writer();
  ASSERT_TRUE(w);
  ASSERT_TRUE(w->put({StoreEntry{"f32", FileIdentity{}, &s, SketchPrecision::kFloat32}}).ok());
  ASSERT_TRUE(w->put({StoreEntry{"f64", FileIdentity{}, &s, kExact}}).ok());
  const auto& want = s.tensors[0].stats.sketch->values;
  auto f32 = w->find("f32");
  auto f64 = w->find("f64");
  ASSERT_TRUE(f32.ok() && f32->has_value() && f64.ok() && f64->has_value());
  const auto& rounded = (*f32)->tensors[0].stats.sketch->values;
  const auto& exact = (*f64)->tensors[0].stats.sketch->values;
  ASSERT_EQ(rounded.size(), 8u);
  ASSERT_EQ(exact.size(), 8u);
  bool some_differ = false;
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(rounded[i], static_cast<double>(static_cast<float>(want[i])));
    EXPECT_EQ(exact[i], want[i]);
    some_differ |= rounded[i] != want[i];
  }
  EXPECT_TRUE(some_differ) << "the sample's buckets should not all be floats already";
}

TEST_F(StoreTest, ReaderSeesCommittedRowsWhileTheWriterIsOpen) {
  const FileSummary s = sample_summary();
  auto w = writer();
  ASSERT_TRUE(w);
  ASSERT_TRUE(w->put({StoreEntry{"one", FileIdentity{}, &s, kExact}}).ok());
  auto r = SummaryStore::open_read_only(db());
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  ASSERT_TRUE(w->put({StoreEntry{"two", FileIdentity{}, &s, kExact}}).ok());
  auto n = (*r)->file_count();
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(*n, 2u);
}

// Compact's workers look up each raw path while another thread commits a batch: the lookup
// must neither wait for that commit nor see its rows before it is durable, and must see them
// as soon as put() returns. The commit is held up here by another connection's write lock.
TEST_F(StoreTest, LookupsDoNotWaitForACommitInProgress) {
  const FileSummary s = sample_summary();
  auto w = writer();
  ASSERT_TRUE(w);
  ASSERT_TRUE(w->put({StoreEntry{"one", FileIdentity{}, &s, kExact}}).ok());
  sqlite3* other = nullptr;
  ASSERT_EQ(sqlite3_open(db().c_str(), &other), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(other, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr), SQLITE_OK);
  std::atomic<bool> put_done{false};
  Status put_status = ok_status();
  std::promise<pid_t> committer_tid;
  std::thread committer([&] {
    committer_tid.set_value(static_cast<pid_t>(::syscall(SYS_gettid)));
    put_status = w->put({StoreEntry{"two", FileIdentity{}, &s, kExact}});  // waits for `other`
    put_done = true;
  });
  // The committer is in put() once its thread sleeps (SQLite's busy handler waits for `other`).
  ASSERT_TRUE(thread_sleeps_within(committer_tid.get_future().get(), std::chrono::seconds(30)));
  auto one = w->find("one");
  auto two = w->find_identity("two");
  const bool answered_during_commit = !put_done;
  sqlite3_exec(other, "ROLLBACK", nullptr, nullptr, nullptr);
  sqlite3_close(other);
  committer.join();
  EXPECT_TRUE(answered_during_commit) << "a lookup waited for the batch commit";
  ASSERT_TRUE(one.ok() && one->has_value());
  EXPECT_EQ((*one)->tensors.size(), s.tensors.size());
  ASSERT_TRUE(two.ok());
  EXPECT_FALSE(two->has_value()) << "a row was visible before its commit";
  ASSERT_TRUE(put_status.ok()) << put_status.error().to_string();
  auto after = w->find_identity("two");
  ASSERT_TRUE(after.ok());
  EXPECT_TRUE(after->has_value()) << "a committed row was not visible after put() returned";
}

// A writer opens its store twice (writes, lookups) by name through the directory fd: the VFS
// tells which file each open reached, so a file renamed over the store between the two opens
// is seen (open_for_write then refuses the store; every test here that opens one checks that
// two opens of an unchanged store agree).
TEST_F(StoreTest, VfsTellsWhichFileEachOpenReached) {
  { ASSERT_TRUE(writer()); }
  const DirRef dir = dir_ref(dir_);
  const std::string name(kStoreFileName);
  auto open_once = [&](sqlite3** db) {
    forget_last_open();
    EXPECT_FALSE(last_open_of(name).has_value());
    ASSERT_EQ(sqlite3_open_v2(beneath_filename(dir.get(), name).c_str(), db, SQLITE_OPEN_READWRITE, beneath_vfs()),
              SQLITE_OK);
  };
  sqlite3* first = nullptr;
  open_once(&first);
  const auto first_key = last_open_of(name);
  struct stat st {};
  ASSERT_EQ(::stat(db().c_str(), &st), 0);
  ASSERT_TRUE(first_key.has_value());
  EXPECT_EQ(*first_key, FileKey(st.st_dev, st.st_ino));
  EXPECT_FALSE(last_open_of("other.db").has_value());
  fs::copy_file(db(), dir_ + "/planted", fs::copy_options::overwrite_existing);
  fs::rename(dir_ + "/planted", db());  // another file of the same content under the name
  sqlite3* second = nullptr;
  open_once(&second);
  const auto second_key = last_open_of(name);
  ASSERT_TRUE(second_key.has_value());
  EXPECT_NE(*first_key, *second_key);
  sqlite3_close(second);
  sqlite3_close(first);
}

// A writer killed with committed rows in its WAL: a reader replays it (the -shm index is gone
// too) and sees every committed row.
TEST_F(StoreTest, ReaderRecoversTheWalOfAKilledWriter) {
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    auto w = SummaryStore::open_for_write(dir_ref(dir_));
    const FileSummary s = sample_summary();
    bool ok = w.ok() && (*w)->put({StoreEntry{"one", FileIdentity{}, &s}}).ok() &&
              (*w)->put({StoreEntry{"two", FileIdentity{}, &s}}).ok();
    ::_exit(ok ? 0 : 1);  // no close: the rows are only in the WAL
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  ASSERT_TRUE(fs::exists(db() + "-wal"));
  fs::remove(db() + "-shm");
  auto r = SummaryStore::open_read_only(db());
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  auto n = (*r)->file_count();
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(*n, 2u);
}

TEST_F(StoreTest, SymlinkUnderTheStoreNameIsNeverFollowed) {
  const std::string outside = dir_ + "-outside";
  std::ofstream(outside) << "precious";
  for (const char* suffix : {"", "-wal", "-shm"}) {
    fs::remove(db() + suffix);
    ASSERT_EQ(::symlink(outside.c_str(), (db() + suffix).c_str()), 0);
    auto s = SummaryStore::open_for_write(dir_ref(dir_));
    ASSERT_FALSE(s.ok()) << suffix;
    EXPECT_NE(s.error().to_string().find("link"), std::string::npos) << s.error().to_string();
    fs::remove(db() + suffix);
  }
  EXPECT_EQ(read(outside), "precious");
  fs::remove(outside);
}

TEST_F(StoreTest, DirectorySwappedAfterOpenKeepsWritingIntoTheOpenedOne) {
  const std::string a = dir_ + "/a", moved = dir_ + "/moved", elsewhere = dir_ + "/elsewhere";
  fs::create_directories(a);
  fs::create_directories(elsewhere);
  auto w = SummaryStore::open_for_write(dir_ref(a));
  ASSERT_TRUE(w.ok());
  fs::rename(a, moved);
  ASSERT_EQ(::symlink(elsewhere.c_str(), a.c_str()), 0);
  const FileSummary s = sample_summary();
  ASSERT_TRUE((*w)->put({StoreEntry{"x", FileIdentity{}, &s}}).ok());
  w->reset();
  EXPECT_TRUE(fs::exists(moved + "/" + std::string(kStoreFileName)));
  EXPECT_TRUE(fs::is_empty(elsewhere));
}

TEST_F(StoreTest, NewerStoreIsRefusedWithAClearError) {
  ASSERT_TRUE(writer());
  sql(db(), "PRAGMA user_version = 7");
  for (bool write : {true, false}) {
    auto s = write ? SummaryStore::open_for_write(dir_ref(dir_)) : SummaryStore::open_read_only(db());
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.error().to_string().find("newer msit-compact (store version 7"), std::string::npos)
        << s.error().to_string();
  }
}

TEST_F(StoreTest, AnotherApplicationsDatabaseIsLeftAlone) {
  sql(db(), "CREATE TABLE t(x); INSERT INTO t VALUES (1);");
  const std::string before = read(db());
  auto s = SummaryStore::open_for_write(dir_ref(dir_));
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().to_string().find("another application"), std::string::npos) << s.error().to_string();
  EXPECT_TRUE(read(db()) == before) << "another application's database was modified";
}

TEST_F(StoreTest, DamagedStoreIsReportedAndNeverRebuilt) {
  {
    auto w = writer();
    ASSERT_TRUE(w);
    const FileSummary s = sample_summary();
    std::vector<StoreEntry> batch;
    std::vector<std::string> names;
    for (int i = 0; i < 200; ++i) names.push_back("f" + std::to_string(i));
    for (const auto& n : names) batch.push_back(StoreEntry{n, FileIdentity{}, &s, kExact});
    ASSERT_TRUE(w->put(batch).ok());
  }
  std::string bytes = read(db());
  ASSERT_GT(bytes.size(), 3 * 4096u);
  for (size_t i = 4096 + 100; i < 3 * 4096; ++i) bytes[i] = static_cast<char>(0x5a);
  std::ofstream(db(), std::ios::binary | std::ios::trunc) << bytes;
  auto s = SummaryStore::open_for_write(dir_ref(dir_));
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().path.find(std::string(kStoreFileName)), std::string::npos);
  EXPECT_TRUE(read(db()) == bytes) << "a damaged store was modified";
  // Not a database at all.
  std::ofstream(db(), std::ios::trunc) << "just text, not SQLite";
  auto t = SummaryStore::open_for_write(dir_ref(dir_));
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(read(db()), "just text, not SQLite");
}

// Where stores live (store_home_of, writer_store_dirs, reader_store_dirs): tests/unit/store_owners_test.cpp.

// compact with the store: raw files go only after the commit, and a different summary already
// stored under a raw file's path is never replaced (the raw file is kept).
TEST_F(StoreTest, CompactCommitsThenRemovesAndKeepsConflicts) {
  const std::string root = dir_ + "/msit_fx_dump";
  fs::create_directories(root + "/0");
  std::ofstream(root + "/0/" + kFx, std::ios::binary) << test::npy_bytes({1, 2, 3, 4});
  CompactRunOptions o;
  o.file.format = SummaryFormat::kStore;
  CompactReport r = run_compact({root}, o, {});
  ASSERT_TRUE(r.failures.empty()) << r.failures.front().reason;
  EXPECT_EQ(r.compacted, 1u);
  EXPECT_FALSE(fs::exists(root + "/0/" + kFx));
  auto st = SummaryStore::open_read_only(root + "/" + std::string(kStoreFileName));
  ASSERT_TRUE(st.ok());
  auto got = (*st)->find("0/" + kFx);
  ASSERT_TRUE(got.ok() && got->has_value());
  EXPECT_EQ((*got)->tensors[0].stats.max, 4.0);
  // Same name, other bytes: a conflict, the raw file stays.
  std::ofstream(root + "/0/" + kFx, std::ios::binary) << test::npy_bytes({9, 9});
  CompactReport again = run_compact({root}, o, {});
  ASSERT_EQ(again.failures.size(), 1u);
  EXPECT_NE(again.failures[0].reason.find("different summary"), std::string::npos) << again.failures[0].reason;
  EXPECT_TRUE(fs::exists(root + "/0/" + kFx));
  // The same bytes again: verified against the stored row, then removed.
  std::ofstream(root + "/0/" + kFx, std::ios::binary | std::ios::trunc) << test::npy_bytes({1, 2, 3, 4});
  CompactReport third = run_compact({root}, o, {});
  EXPECT_TRUE(third.failures.empty()) << third.failures.front().reason;
  EXPECT_EQ(third.verified, 1u);
  EXPECT_FALSE(fs::exists(root + "/0/" + kFx));
  // Readers find it where the raw file was.
  const std::optional<StoredFile> n = StoreCatalog::instance().find(root + "/0/" + kFx);
  ASSERT_TRUE(n.has_value());
  EXPECT_EQ(*n->db, root + "/" + std::string(kStoreFileName));
}

// Compare walks its two trees on two threads: each lists its own store, the first walk into
// a store opens it, and a store that cannot be read is reported once, whoever reaches it.
TEST_F(StoreTest, CatalogListsStoresFromSeveralThreadsAndReportsABadOneOnce) {
  std::vector<std::string> roots;
  for (const char* side : {"a", "b"}) {
    const std::string root = dir_ + "/" + side + "/msit_fx_dump";
    fs::create_directories(root + "/0");
    for (int i = 0; i < 20; ++i) {
      std::ofstream(root + "/0/" + std::to_string(i) + kFx, std::ios::binary) << test::npy_bytes({1, float(i)});
    }
    CompactRunOptions o;
    o.file.format = SummaryFormat::kStore;
    ASSERT_TRUE(run_compact({root}, o, {}).failures.empty());
    roots.push_back(root);
  }
  const std::string bad = dir_ + "/c/msit_fx_dump";
  fs::create_directories(bad + "/0");
  sql(bad + "/" + std::string(kStoreFileName), "CREATE TABLE t(x)");  // another application's
  (void)StoreCatalog::instance().take_errors();

  std::vector<StoredList> got(6);
  std::vector<const std::string*> dbs(6, nullptr);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < got.size(); ++t) {
    const std::string dir = t < 4 ? roots[t % 2] + "/0" : bad + "/0";
    threads.emplace_back([&, t, dir] { got[t] = StoreCatalog::instance().stored_in(dir, &dbs[t]); });
  }
  for (auto& th : threads) th.join();
  for (size_t t = 0; t < 4; ++t) {
    ASSERT_NE(got[t], nullptr) << t;
    EXPECT_EQ(got[t]->size(), 20u);
    ASSERT_NE(dbs[t], nullptr);
    EXPECT_EQ(*dbs[t], roots[t % 2] + "/" + std::string(kStoreFileName));
  }
  EXPECT_EQ(dbs[0], dbs[2]) << "one store opened once, shared";
  EXPECT_NE(dbs[0], dbs[1]);
  EXPECT_EQ(got[4], nullptr);
  EXPECT_EQ(got[5], nullptr);
  std::vector<Error> errors = StoreCatalog::instance().take_errors();
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].to_string().find("another application"), std::string::npos) << errors[0].to_string();
  EXPECT_NE(errors[0].to_string().find(bad), std::string::npos) << errors[0].to_string();
}

TEST_F(StoreTest, FailedCommitKeepsEveryRawFileOfTheBatch) {
  const std::string root = dir_ + "/msit_fx_dump";
  fs::create_directories(root);
  for (int i = 0; i < 3; ++i) {
    std::ofstream(root + "/" + std::to_string(i) + kFx, std::ios::binary) << test::npy_bytes({1, 2, float(i)});
  }
  // A store another application owns under the name: every commit is refused.
  sql(root + "/" + std::string(kStoreFileName), "CREATE TABLE t(x)");
  CompactRunOptions o;
  o.file.format = SummaryFormat::kStore;
  CompactReport r = run_compact({root}, o, {});
  EXPECT_EQ(r.failures.size(), 3u);
  EXPECT_EQ(r.raw_removed, 0u);
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(fs::exists(root + "/" + std::to_string(i) + kFx));
}

}  // namespace
}  // namespace msit::store
