// Issue 28, items 6 and 9 (docs/safety.md, "Private dumps and hostile volume", V1-V7):
// outputs never readable by more people than the raw file, one class of readers per store,
// hard-linked dump names left alone; bounded memory and log lines for bad files, and a cap on
// watches per root.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "common/compaction/compact_run.h"
#include "common/io/derived_names.h"
#include "common/safety/output_access.h"
#include "common/store/store_export.h"
#include "common/store/summary_store.h"
#include "daemon/bad_files.h"
#include "daemon/watch_tree.h"
#include "daemon_fakes.h"
#include "npy_fixture.h"

namespace msit {
namespace {

namespace fs = std::filesystem;
using daemon::BadFileLimits;
using daemon::BadFiles;

const std::string kFx = "Add_1-aten.add.Tensor.OUTPUT.0.1706596912.npy";
const std::string kFx2 = "Add_2-aten.add.Tensor.OUTPUT.0.1706596913.npy";

class TrustPrivate : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/msit-trust-private.XXXXXX";
    dir_ = ::mkdtemp(tmpl);
    root_ = dir_ + "/msit_fx_dump";
    fs::create_directories(root_ + "/0");
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string raw(const std::string& name, mode_t mode, uid_t uid = ::geteuid(), gid_t gid = ::getegid()) {
    const std::string p = root_ + "/0/" + name;
    std::ofstream(p, std::ios::binary) << test::npy_bytes({1, 2, 3, 4});
    EXPECT_EQ(::chown(p.c_str(), uid, gid), 0);
    EXPECT_EQ(::chmod(p.c_str(), mode), 0);
    return p;
  }
  static struct stat stat_of(const std::string& p) {
    struct stat st {};
    EXPECT_EQ(::lstat(p.c_str(), &st), 0) << p;
    return st;
  }
  CompactReport run(SummaryFormat f, RawAction a = RawAction::kDelete) {
    CompactRunOptions o;
    o.file.format = f;
    o.file.raw = a;
    return run_compact({root_}, o, {});
  }
  std::string dir_, root_;
};

TEST(OutputAccess, NeverWiderThanTheRawFile) {
  const OutputAccess a = output_access_for(1234, 2345, 04755, 2345);
  EXPECT_EQ(a.mode, 0644u);  // no exec, setuid or sticky bit: data, never a program
  if (::geteuid() == 0) {
    EXPECT_TRUE(a.chown);
    EXPECT_EQ(a.uid, 1234u);
    EXPECT_EQ(a.gid, 2345u);
  } else {
    EXPECT_FALSE(a.chown);
    EXPECT_EQ(a.uid, ::geteuid());
    // Our group is not the raw file's: its members get nothing the raw file did not give them.
    EXPECT_EQ(output_access_for(1234, 2345, 0640, 999).mode, 0600u);
  }
  EXPECT_EQ(store_mode_of(output_access_for(1, 2, 0666, 2)) & 0022, 0u);  // nobody else writes a store
  EXPECT_TRUE(same_readers(a, a.uid, a.gid, 0644));
  EXPECT_FALSE(same_readers(a, a.uid, a.gid, 0600));
  EXPECT_FALSE(same_readers(a, a.uid + 1, a.gid, 0644));
}

// P1 of trust_private.sh without real accounts: as root, every output of a 0600 file of uid
// 4242 is 4242's and 0600 (JSON, _min_max, archive, store).
TEST_F(TrustPrivate, EveryOutputGetsTheRawFilesOwnerAndMode) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to give files away";
  const std::string p = raw(kFx, 0600, 4242, 4343);
  ASSERT_TRUE(run(SummaryFormat::kRich, RawAction::kArchive).failures.empty());
  for (const std::string& out : {summary_name_for(p), archive_name_for(p)}) {
    const struct stat st = stat_of(out);
    EXPECT_EQ(st.st_uid, 4242u) << out;
    EXPECT_EQ(st.st_gid, 4343u) << out;
    EXPECT_EQ(st.st_mode & 07777, 0600u) << out;
  }
  raw(kFx2, 0640, 4242, 4343);
  ASSERT_TRUE(run(SummaryFormat::kMsit).failures.empty());
  const struct stat mm = stat_of(min_max_name_for(root_ + "/0/" + kFx2));
  EXPECT_EQ(mm.st_uid, 4242u);
  EXPECT_EQ(mm.st_mode & 07777, 0640u);
}

// The store takes the class of its first file; a file whose readers differ gets a JSON
// summary with its own owner and mode; later files of the store's class go into the store.
TEST_F(TrustPrivate, AStoreHoldsOneClassOfReaders) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to give files away";
  raw(kFx, 0600, 4242, 4242);
  ASSERT_TRUE(run(SummaryFormat::kStore).failures.empty());
  const struct stat db = stat_of(root_ + "/" + std::string(kStoreFileName));
  EXPECT_EQ(db.st_uid, 4242u);
  EXPECT_EQ(db.st_mode & 07777, 0600u);
  const std::string pub = raw(kFx2, 0644, 4242, 4242);
  ASSERT_TRUE(run(SummaryFormat::kStore).failures.empty());
  const struct stat js = stat_of(summary_name_for(pub));  // not in the private store
  EXPECT_EQ(js.st_uid, 4242u);
  EXPECT_EQ(js.st_mode & 07777, 0644u);
  EXPECT_FALSE(fs::exists(pub));
  // The store's class again (a second run reopens the 4242-owned store as root).
  const std::string priv = raw("Add_3-aten.add.Tensor.OUTPUT.0.1706596914.npy", 0600, 4242, 4242);
  ASSERT_TRUE(run(SummaryFormat::kStore).failures.empty());
  EXPECT_FALSE(fs::exists(priv));
  EXPECT_FALSE(fs::exists(summary_name_for(priv)));
}

TEST_F(TrustPrivate, ExportedSummariesGetTheStoresOwnerAndMode) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to give files away";
  raw(kFx, 0640, 4242, 4343);
  ASSERT_TRUE(run(SummaryFormat::kStore).failures.empty());
  const std::string out = dir_ + "/out";
  fs::create_directories(out);
  auto fd = open_trusted_dir(out);
  ASSERT_TRUE(fd.ok());
  store::JsonExportResult r;
  ASSERT_TRUE(store::export_store_json(root_ + "/" + std::string(kStoreFileName),
                                       DirRef{std::make_shared<const UniqueFd>(std::move(fd).value()), out}, "", r)
                  .ok());
  ASSERT_EQ(r.written, 1u);
  const struct stat st = stat_of(out + "/0/" + kFx + ".summary.json");
  EXPECT_EQ(st.st_uid, 4242u);
  EXPECT_EQ(st.st_gid, 4343u);
  EXPECT_EQ(st.st_mode & 07777, 0640u);
}

// A store file another user owns, with a side file of a third owner: refused, raw file kept.
TEST_F(TrustPrivate, StoreSideFilesMustHaveTheDatabasesOwner) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to give files away";
  raw(kFx, 0600, 4242, 4242);
  ASSERT_TRUE(run(SummaryFormat::kStore).failures.empty());
  const std::string wal = root_ + "/" + std::string(kStoreFileName) + "-wal";
  std::ofstream(wal) << "";
  ASSERT_EQ(::chown(wal.c_str(), 4343, 4343), 0);
  const std::string again = raw(kFx2, 0600, 4242, 4242);
  CompactReport r = run(SummaryFormat::kStore);
  ASSERT_EQ(r.failures.size(), 1u);
  EXPECT_NE(r.failures[0].reason.find("but the store belongs to uid 4242"), std::string::npos) << r.failures[0].reason;
  EXPECT_TRUE(fs::exists(again));
}

// A root writer's new -wal and -shm of user A's store are A's (the VFS gives them the
// database's owner; SQLite's own fchown is neutralised there): else the next open of the store
// refuses its own side files (docs/safety.md, V4 and R1).
TEST_F(TrustPrivate, RootWritersNewSideFilesGetTheStoresOwner) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to give files away";
  raw(kFx, 0600, 4242, 4343);
  ASSERT_TRUE(run(SummaryFormat::kStore).failures.empty());
  const std::string db = root_ + "/" + std::string(kStoreFileName);
  ASSERT_EQ(stat_of(db).st_uid, 4242u);
  ASSERT_FALSE(fs::exists(db + "-wal"));  // the run closed it: side files are made by the next open
  UniqueFd fd(::open(root_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  ASSERT_TRUE(fd.valid());
  const DirRef dir{std::make_shared<const UniqueFd>(std::move(fd)), root_};
  auto first = store::SummaryStore::open_for_write(dir);
  ASSERT_TRUE(first.ok()) << first.error().to_string();
  for (const char* side : {"-wal", "-shm"}) {
    const struct stat st = stat_of(db + side);
    EXPECT_EQ(st.st_uid, 4242u) << side;
    EXPECT_EQ(st.st_gid, 4343u) << side;
    EXPECT_EQ(st.st_nlink, 1u) << side;
  }
  // A second open, while the first holds the store (side files present), and a second run.
  auto second = store::SummaryStore::open_for_write(dir);
  ASSERT_TRUE(second.ok()) << second.error().to_string();
  second->reset();
  first->reset();
  const std::string again = raw(kFx2, 0600, 4242, 4343);
  const CompactReport r = run(SummaryFormat::kStore);
  EXPECT_TRUE(r.failures.empty()) << r.failures[0].reason;
  EXPECT_FALSE(fs::exists(again));
  EXPECT_FALSE(fs::exists(summary_name_for(again)));
}

TEST_F(TrustPrivate, HardLinkedDumpNamesAreLeftAloneAndReported) {
  const std::string p = raw(kFx, 0644);
  ASSERT_EQ(::link(p.c_str(), (root_ + "/0/" + kFx2).c_str()), 0);
  for (RawAction a : {RawAction::kDelete, RawAction::kArchive, RawAction::kKeep}) {
    CompactReport r = run(SummaryFormat::kRich, a);
    EXPECT_TRUE(r.failures.empty());
    ASSERT_EQ(r.left_alone.size(), 2u);
    EXPECT_EQ(r.left_alone[0].reason, LeftAlone::kHardLinked);
    EXPECT_EQ(r.compacted, 0u);
  }
  EXPECT_TRUE(fs::exists(p));
  EXPECT_FALSE(fs::exists(summary_name_for(p)));
  EXPECT_FALSE(fs::exists(archive_name_for(p)));
}

TEST(BadFilesTest, MemoryIsBoundedAndUnchangedFilesAreSkipped) {
  BadFileLimits l;
  l.max_remembered = 100;
  BadFiles b(l);
  FileIdentity id;
  for (int i = 0; i < 1000; ++i) {
    id.ino = static_cast<uint64_t>(i);
    b.remember("/d/f" + std::to_string(i), id);
  }
  EXPECT_EQ(b.remembered(), 100u);
  EXPECT_EQ(b.not_remembered(), 900u);
  id.ino = 5;
  EXPECT_TRUE(b.unchanged("/d/f5", id));
  id.size = 1;  // it changed: looked at again
  EXPECT_FALSE(b.unchanged("/d/f5", id));
  EXPECT_FALSE(b.known("/d/f999"));  // beyond the table: retried by the next rescan
  b.forget("/d/f5");
  EXPECT_FALSE(b.known("/d/f5"));
}

TEST(BadFilesTest, LinesPerReasonAreRateLimitedAndSummedUp) {
  BadFileLimits l;
  l.lines_per_window = 3;
  l.examples = 2;
  l.window_ns = 1000;
  BadFiles b(l);
  int logged = 0;
  for (int i = 0; i < 10000; ++i) logged += b.count("header", "/d/f" + std::to_string(i), 10) ? 1 : 0;
  logged += b.count("links", "/d/x", 10) ? 1 : 0;
  EXPECT_EQ(logged, 4);
  EXPECT_TRUE(b.take_summary_lines(500).empty());  // the window has not passed
  auto lines = b.take_summary_lines(1010);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("9997 more files failed at stage header"), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find("/d/f3, /d/f4"), std::string::npos) << lines[0];
  EXPECT_EQ(lines[0].find("/d/f5"), std::string::npos);  // a few examples, not every path
  EXPECT_EQ(b.by_reason().at("header"), 10000u);
  EXPECT_EQ(b.lines_suppressed(), 9997u);
  EXPECT_TRUE(b.count("header", "/d/again", 1020));  // a new window: full lines again
}

TEST(WatchCap, DirectoriesBeyondTheCapGetNoWatchAndAreStillScanned) {
  daemon::testing::TempDir tmp;
  const std::string root = tmp.path + "/msit_ge_dump";
  for (int i = 0; i < 10; ++i) fs::create_directories(root + "/d" + std::to_string(i));
  daemon::testing::write_file(root + "/d9/Add.x");
  daemon::testing::FakeSource source;
  daemon::Logger log(false);
  std::vector<std::string> lines;
  log.capture_to(&lines);
  std::vector<std::string> found;
  daemon::WatchTree tree(
      source, log, {root}, 4,
      daemon::TreeHooks{[&](const std::string& p, bool) { found.push_back(p); }, nullptr,
                        [](const std::string&, std::string_view) { return true; }, nullptr, nullptr});
  tree.scan_all();
  EXPECT_EQ(tree.watch_count(), 4u);
  EXPECT_EQ(tree.capped_roots(), 1u);
  EXPECT_EQ(tree.unwatched_count(), 0u);  // not listed one by one: full rescans find them
  EXPECT_EQ(found.size(), 1u);            // the file in a directory without a watch was listed
  tree.scan_all();                        // a rescan: still at the cap, said once
  EXPECT_EQ(std::count_if(lines.begin(), lines.end(),
                          [](const std::string& s) { return s.find("max_watches_per_root") != std::string::npos; }),
            1);
  // A watched directory goes away: one watch is free again.
  const int wd = source.watches.rbegin()->first;
  source.queued.push_back(daemon::FsEvent{wd, IN_IGNORED, ""});
  std::vector<daemon::FsEvent> ev;
  ASSERT_TRUE(source.read_events(ev).ok());
  for (const auto& e : ev) tree.handle(e);
  EXPECT_EQ(tree.watch_count(), 3u);
  EXPECT_EQ(tree.capped_roots(), 0u);
}

// Issue 43: a user's thousands of directories take at most the share of the user's inotify
// limit, all roots together; the rest of the limit stays for other services.
TEST(WatchCap, AllRootsTogetherTakeAtMostTheirShareOfTheUsersLimit) {
  daemon::testing::TempDir tmp;
  const std::string a = tmp.path + "/a/msit_ge_dump", b = tmp.path + "/b/msit_ge_dump";
  for (int i = 0; i < 6; ++i) fs::create_directories(a + "/d" + std::to_string(i));
  for (int i = 0; i < 6; ++i) fs::create_directories(b + "/d" + std::to_string(i));
  daemon::testing::write_file(b + "/d5/Add.x");
  daemon::testing::FakeSource source;
  daemon::Logger log(false);
  std::vector<std::string> lines;
  log.capture_to(&lines);
  std::vector<std::string> found;
  daemon::WatchTree tree(
      source, log, {a, b}, 100,
      daemon::TreeHooks{[&](const std::string& p, bool) { found.push_back(p); }, nullptr,
                        [](const std::string&, std::string_view) { return true; }, nullptr, nullptr});
  const daemon::WatchShare share = daemon::watch_share_of(50, 16);  // a limit of 16: 8 for us
  EXPECT_EQ(share.max_watches, 8u);
  tree.set_share(share);
  tree.scan_all();
  EXPECT_EQ(tree.watch_count(), 8u) << "14 directories, a share of 8";
  EXPECT_TRUE(tree.share_reached());
  EXPECT_EQ(found.size(), 1u) << "the file in a directory without a watch is still listed";
  tree.scan_all();
  const auto said = std::count_if(lines.begin(), lines.end(), [](const std::string& s) {
    return s.find("max_watch_share (50% of fs.inotify.max_user_watches, 16)") != std::string::npos;
  });
  EXPECT_EQ(said, 1) << "said once";
  const int wd = source.watches.rbegin()->first;
  source.queued.push_back(daemon::FsEvent{wd, IN_IGNORED, ""});
  std::vector<daemon::FsEvent> ev;
  ASSERT_TRUE(source.read_events(ev).ok());
  for (const auto& e : ev) tree.handle(e);
  EXPECT_FALSE(tree.share_reached()) << "a watch freed: below the share again";
  EXPECT_EQ(daemon::watch_share_of(50, std::nullopt).max_watches, SIZE_MAX) << "an unknown limit takes no share";
  EXPECT_EQ(daemon::watch_share_of(1, 10).max_watches, 1u) << "never none";
}

}  // namespace
}  // namespace msit
