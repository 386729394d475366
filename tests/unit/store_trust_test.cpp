// The store's trust rules (docs/safety.md "Store readers", T1-T5): a store's side files must
// be regular, single-link files of the database's owner for readers and writers alike, a
// reader creates, writes, truncates and re-owns nothing, and a crafted store (views, triggers,
// tables or indexes of its own, values over the limit, runaway queries) is refused by path.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "common/safety/beneath.h"
#include "common/store/store_open.h"
#include "common/store/store_vfs.h"
#include "common/store/summary_store.h"

namespace fs = std::filesystem;

namespace msit::store {
namespace {

FileSummary small_summary() {
  FileSummary f;
  f.source_kind = "npy";
  f.source_size = 152;
  f.created_by = "msit-compact test";
  TensorSummary t;
  t.role = "output";
  t.dtype = "float32";
  t.shape = {2, 3};
  t.original_shape = {2, 3};
  t.format = "ND";
  t.count = 6;
  t.stats.count = 6;
  t.stats.finite_count = 6;
  t.stats.min = -1;
  t.stats.max = 2;
  t.stats.abs_max = 2;
  t.stats.values = std::vector<double>{-1, 0, 0, 1, 1, 2};
  t.xxh3_64 = "0123456789abcdef";
  f.tensors.push_back(t);
  return f;
}

class StoreTrustTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/msit-store-trust.XXXXXX";
    dir_ = ::mkdtemp(tmpl);
    outside_ = dir_ + "-outside";
  }
  void TearDown() override {
    fs::remove_all(dir_);
    fs::remove(outside_);
  }
  DirRef dir_ref() const {
    auto fd = open_trusted_dir(dir_);
    EXPECT_TRUE(fd.ok());
    return DirRef{std::make_shared<const UniqueFd>(std::move(fd).value()), dir_};
  }
  std::string db() const { return dir_ + "/" + std::string(kStoreFileName); }
  // A closed store of two entries.
  void make_store() {
    auto w = SummaryStore::open_for_write(dir_ref());
    ASSERT_TRUE(w.ok()) << w.error().to_string();
    const FileSummary s = small_summary();
    ASSERT_TRUE((*w)->put({StoreEntry{"a.npy", FileIdentity{}, &s}, StoreEntry{"b.npy", FileIdentity{}, &s}}).ok());
  }
  static void sql(const std::string& db, const char* text) {
    sqlite3* h = nullptr;
    ASSERT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(h, text, nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(h);
    sqlite3_close(h);
  }
  static std::string read(const std::string& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  std::set<std::string> listing() const {
    std::set<std::string> out;
    for (const auto& e : fs::directory_iterator(dir_)) out.insert(e.path().filename().string());
    return out;
  }
  // "owner mode bytes" of a file, to see that nothing changed it.
  static std::string ident(const std::string& p) {
    struct stat st {};
    if (::lstat(p.c_str(), &st) != 0) return "missing";
    return std::to_string(st.st_uid) + " " + std::to_string(st.st_mode) + " " + read(p);
  }
  // Both ways in refuse the store, with `what` in the message, and name `file`.
  void expect_refused(const std::string& file, const std::string& what) {
    auto r = SummaryStore::open_read_only(db());
    ASSERT_FALSE(r.ok()) << "reader opened it";
    EXPECT_NE(r.error().to_string().find(what), std::string::npos) << r.error().to_string();
    EXPECT_NE(r.error().path.find(file), std::string::npos) << r.error().to_string();
    auto w = SummaryStore::open_for_write(dir_ref());
    ASSERT_FALSE(w.ok()) << "writer opened it";
    EXPECT_NE(w.error().to_string().find(what), std::string::npos) << w.error().to_string();
  }
  std::string dir_, outside_;
};

TEST_F(StoreTrustTest, ReaderCreatesNoFileBesideAClosedStore) {
  make_store();
  const auto before = listing();
  const std::string bytes = read(db());
  {
    auto r = SummaryStore::open_read_only(db());
    ASSERT_TRUE(r.ok()) << r.error().to_string();
    ASSERT_TRUE((*r)->begin_snapshot().ok());
    auto n = (*r)->file_count();
    ASSERT_TRUE(n.ok());
    EXPECT_EQ(*n, 2u);
    EXPECT_EQ(listing(), before) << "a reader created a file";
  }
  EXPECT_EQ(listing(), before);
  EXPECT_TRUE(read(db()) == bytes) << "a reader changed the store";
}

// A writer killed with rows only in its WAL: a reader sees them, with the stale -shm index or
// without it, and writes nothing (no -shm made, WAL and index bytes as they were).
TEST_F(StoreTrustTest, ReaderReadsTheWalOfAKilledWriterWithoutWritingAnything) {
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    auto w = SummaryStore::open_for_write(dir_ref());
    const FileSummary s = small_summary();
    ::_exit(w.ok() && (*w)->put({StoreEntry{"a.npy", FileIdentity{}, &s}}).ok() ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  for (bool with_index : {true, false}) {
    if (!with_index) fs::remove(db() + "-shm");
    const auto before = listing();
    const std::string db_bytes = read(db()), wal = read(db() + "-wal"), shm = read(db() + "-shm");
    ASSERT_FALSE(wal.empty());
    {
      auto r = SummaryStore::open_read_only(db());
      ASSERT_TRUE(r.ok()) << r.error().to_string();
      auto n = (*r)->file_count();
      ASSERT_TRUE(n.ok()) << n.error().to_string();
      EXPECT_EQ(*n, 1u) << "with the -shm index: " << with_index;
    }
    EXPECT_EQ(listing(), before) << "with the -shm index: " << with_index;
    EXPECT_TRUE(read(db()) == db_bytes && read(db() + "-wal") == wal && read(db() + "-shm") == shm)
        << "a reader wrote a store file (with the -shm index: " << with_index << ")";
  }
}

// Issue 28, 1: links named like the store's side files, to anyone's files.
TEST_F(StoreTrustTest, HardLinkedSideFilesAreRefusedAndLeftAlone) {
  make_store();
  std::ofstream(outside_) << "someone else's file";
  ASSERT_EQ(::chmod(outside_.c_str(), 0600), 0);
  const std::string before = ident(outside_);
  for (const char* suffix : {"-wal", "-shm", "-journal"}) {
    ASSERT_EQ(::link(outside_.c_str(), (db() + suffix).c_str()), 0);
    expect_refused(std::string(kStoreFileName) + suffix, "hard links");
    fs::remove(db() + suffix);
    EXPECT_EQ(ident(outside_), before) << suffix;
  }
}

TEST_F(StoreTrustTest, DatabaseWithTwoLinksIsRefused) {
  make_store();
  ASSERT_EQ(::link(db().c_str(), outside_.c_str()), 0);
  expect_refused(std::string(kStoreFileName), "hard links");
}

TEST_F(StoreTrustTest, SymlinkedOrSpecialSideFilesAreRefused) {
  make_store();
  std::ofstream(outside_) << "precious";
  ASSERT_EQ(::symlink(outside_.c_str(), (db() + "-wal").c_str()), 0);
  expect_refused(std::string(kStoreFileName) + "-wal", "not a regular file");
  fs::remove(db() + "-wal");
  ASSERT_EQ(::mkfifo((db() + "-shm").c_str(), 0600), 0);  // would block an open without O_NONBLOCK
  expect_refused(std::string(kStoreFileName) + "-shm", "not a regular file");
  EXPECT_EQ(read(outside_), "precious");
}

// Issue 28, 2: another user's WAL beside a store forges its newest rows; neither a reader nor
// a writer (which would checkpoint it into the store) may use it.
TEST_F(StoreTrustTest, SideFileOfAnotherOwnerIsRefusedByReadersAndWriters) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to give a file to another uid";
  make_store();
  for (const char* suffix : {"-wal", "-shm", "-journal"}) {
    std::ofstream(db() + suffix) << std::string(4096, 'x');
    ASSERT_EQ(::chown((db() + suffix).c_str(), 54321, 54321), 0);
    const std::string before = ident(db() + suffix), store = read(db());
    expect_refused(std::string(kStoreFileName) + suffix, "belongs to uid 54321");
    EXPECT_EQ(ident(db() + suffix), before) << suffix;
    EXPECT_TRUE(read(db()) == store) << suffix;
    fs::remove(db() + suffix);
  }
}

// The check is made again on the descriptor SQLite opens: a file planted after
// check_store_files() (here: named with another owner than the file's) is refused, by name.
TEST_F(StoreTrustTest, VfsChecksEveryFileItOpens) {
  make_store();
  const DirRef dir = dir_ref();
  struct stat st {};
  ASSERT_EQ(::stat(db().c_str(), &st), 0);
  for (BeneathAccess access : {BeneathAccess::kRead, BeneathAccess::kWrite}) {
    forget_refusal();
    sqlite3* h = nullptr;
    const std::string name = beneath_filename(dir.get(), kStoreFileName, access, st.st_uid + 1);
    const int flags = access == BeneathAccess::kRead ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE;
    EXPECT_NE(sqlite3_open_v2(name.c_str(), &h, flags, beneath_vfs()), SQLITE_OK);
    sqlite3_close(h);
    auto refused = last_refusal();
    ASSERT_TRUE(refused.has_value());
    EXPECT_EQ(refused->name, std::string(kStoreFileName));
    EXPECT_NE(refused->why.find("belongs to uid " + std::to_string(st.st_uid)), std::string::npos) << refused->why;
  }
  // A FIFO reached through the VFS neither blocks nor is used.
  ASSERT_EQ(::mkfifo((dir_ + "/fifo.db").c_str(), 0600), 0);
  forget_refusal();
  sqlite3* h = nullptr;
  EXPECT_NE(sqlite3_open_v2(beneath_filename(dir.get(), "fifo.db", BeneathAccess::kRead, ::geteuid()).c_str(), &h,
                            SQLITE_OPEN_READONLY, beneath_vfs()),
            SQLITE_OK);
  sqlite3_close(h);
  ASSERT_TRUE(last_refusal().has_value());
  EXPECT_NE(last_refusal()->why.find("not a regular file"), std::string::npos);
}

// A reader's names create nothing, even when SQLite asks to.
TEST_F(StoreTrustTest, ReaderNamesCreateNothing) {
  const DirRef dir = dir_ref();
  sqlite3* h = nullptr;
  const int rc = sqlite3_open_v2(beneath_filename(dir.get(), "new.db", BeneathAccess::kRead, ::geteuid()).c_str(), &h,
                                 SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, beneath_vfs());
  if (rc == SQLITE_OK) { EXPECT_NE(sqlite3_exec(h, "CREATE TABLE t(x)", nullptr, nullptr, nullptr), SQLITE_OK); }
  sqlite3_close(h);
  EXPECT_TRUE(listing().empty()) << "a reader's name created a file";
}

// Running as root, SQLite gives the journals it opens to the database's owner (fchown) and
// sets the mode of empty files it opens (fchmod): through the unix VFS this process wraps,
// no owner ever changes, and no mode through a descriptor opened for reading.
TEST_F(StoreTrustTest, SqliteChangesNoOwnerAndNoModeOfAFileOpenedForReading) {
  ASSERT_NE(beneath_vfs(), nullptr);
  sqlite3_vfs* unix_vfs = sqlite3_vfs_find("unix");
  ASSERT_NE(unix_vfs, nullptr);
  auto fchown_fn = reinterpret_cast<int (*)(int, uid_t, gid_t)>(unix_vfs->xGetSystemCall(unix_vfs, "fchown"));
  auto fchmod_fn = reinterpret_cast<int (*)(int, mode_t)>(unix_vfs->xGetSystemCall(unix_vfs, "fchmod"));
  ASSERT_NE(fchown_fn, nullptr);
  ASSERT_NE(fchmod_fn, nullptr);
  std::ofstream(outside_) << "";
  ASSERT_EQ(::chmod(outside_.c_str(), 0600), 0);
  UniqueFd ro(::open(outside_.c_str(), O_RDONLY | O_CLOEXEC));
  ASSERT_TRUE(ro.valid());
  EXPECT_NE(fchown_fn(ro.get(), ::geteuid() + 1, static_cast<gid_t>(-1)), 0);
  EXPECT_NE(fchmod_fn(ro.get(), 0644), 0);
  struct stat st {};
  ASSERT_EQ(::stat(outside_.c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, ::geteuid());
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  EXPECT_EQ(fchown_fn(ro.get(), ::geteuid(), static_cast<gid_t>(-1)), 0) << "no change asked: nothing to refuse";
}

// Issue 28, 9: crafted stores. Each is refused by readers and writers before any query of
// ours runs, naming what is wrong, and left as it was.
TEST_F(StoreTrustTest, CraftedSchemasAreRefused) {
  struct Case {
    const char* sql;
    const char* message;
  };
  const Case cases[] = {
      {"CREATE VIEW huge AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) "
       "SELECT x, zeroblob(1000000) FROM c",
       "has a view \"huge\""},
      {"ALTER TABLE files RENAME TO files_real; CREATE VIEW files AS SELECT id, printf('%.*c', 1000000, 'x') AS path "
       "FROM files_real",
       "has a view \"files\""},
      {"CREATE TRIGGER t AFTER INSERT ON files BEGIN DELETE FROM tensors; END", "has a trigger \"t\""},
      {"CREATE TABLE extra(x)", "has a table \"extra\""},
      {"CREATE INDEX by_abs_max ON tensors(abs_max)", "has an index \"by_abs_max\""},
      {"ALTER TABLE files ADD COLUMN g BLOB GENERATED ALWAYS AS (zeroblob(1000000000)) VIRTUAL",
       "defines its table \"files\" otherwise"},
      {"DROP TABLE extra_blocks", "lacks the table \"extra_blocks\""},
  };
  for (const Case& c : cases) {
    fs::remove(db());
    make_store();
    sql(db(), c.sql);
    const std::string bytes = read(db());
    expect_refused(std::string(kStoreFileName), c.message);
    EXPECT_NE(SummaryStore::open_read_only(db()).error().to_string().find("crafted or modified"), std::string::npos);
    EXPECT_TRUE(read(db()) == bytes) << c.sql;
  }
}

// A value over kMaxStoreValueBytes is refused by SQLite before it is allocated.
TEST_F(StoreTrustTest, ValueOverTheLimitIsRefusedByPath) {
  make_store();
  const std::string update = "UPDATE tensors SET elements = zeroblob(" + std::to_string(kMaxStoreValueBytes + 1) +
                             ") WHERE key >> 20 = (SELECT id FROM files WHERE name = 'b.npy')";
  sql(db(), update.c_str());
  auto r = SummaryStore::open_read_only(db());
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  Status st = (*r)->for_each([](std::string_view, const FileSummary&) { return ok_status(); });
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().to_string().find("over 4 MiB"), std::string::npos) << st.error().to_string();
  auto a = (*r)->find("a.npy");
  EXPECT_TRUE(a.ok() && a->has_value()) << "the other entries stay readable";
}

// A query that runs away (what a crafted store's SQL would do) is interrupted by the budget.
TEST_F(StoreTrustTest, RunawayQueryIsInterrupted) {
  make_store();
  const DirRef dir = dir_ref();
  auto files = check_store_files(dir, kStoreFileName, StoreAccess::kRead);
  ASSERT_TRUE(files.ok()) << files.error().to_string();
  auto db = open_store_connection(dir, kStoreFileName, StoreAccess::kRead, *files, false, this->db());
  ASSERT_TRUE(db.ok()) << db.error().to_string();
  sqlite3_stmt* s = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db->get(),
                               "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c",
                               -1, &s, nullptr),
            SQLITE_OK);
  EXPECT_EQ(sqlite3_step(s), SQLITE_INTERRUPT);
  sqlite3_finalize(s);
  const Error e = sqlite_error(db->get(), this->db(), Stage::kStore, "cannot read");
  EXPECT_NE(e.to_string().find("work budget"), std::string::npos) << e.to_string();
  // The connection stays usable for queries within the budget.
  EXPECT_EQ(sqlite3_exec(db->get(), "SELECT count(*) FROM files", nullptr, nullptr, nullptr), SQLITE_OK);
}

}  // namespace
}  // namespace msit::store
