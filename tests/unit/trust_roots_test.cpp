// Issue 28 items 4 and 8 (docs/safety.md, "Pinned roots and leftovers"): roots are pinned by
// identity and never re-resolved by path; temp and claim names are honoured only inside dump
// roots and only when this user wrote them.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>

#include "common/compaction/compact_run.h"
#include "common/compaction/temp_content.h"
#include "common/io/derived_names.h"
#include "common/io/file.h"
#include "common/io/tree_walk.h"
#include "common/safety/leftovers.h"
#include "common/safety/pinned_root.h"
#include "daemon/real_compactor.h"
#include "daemon/watcher.h"
#include "daemon_fakes.h"
#include "tests/unit/npy_fixture.h"

namespace msit {
namespace {

namespace fs = std::filesystem;
using daemon::testing::TempDir;
using daemon::testing::write_file;

const std::string kFx = "add_1-aten.add.Tensor.OUTPUT.0.20250101000000000000.npy";

std::string our_claim(const std::string& raw) { return claim_name_for(raw, "abc123", ::geteuid()); }

// ---- pinned roots -------------------------------------------------------------------------

TEST(PinnedRoot, KnowsItsDirectoryByIdentityAndNeverFollowsASymlinkAfterStart) {
  TempDir tmp;
  const std::string root = tmp.path + "/msit_ge_dump";
  fs::create_directories(root);
  PinnedRoot pin(root);
  auto a = pin.attach();
  ASSERT_TRUE(a.ok()) << a.error().to_string();
  EXPECT_EQ(*a, PinnedRoot::Attach::kFirst);
  EXPECT_TRUE(pin.in_place());
  std::shared_ptr<const RootHandle> h = pin.handle();

  // Renamed away and replaced by a symlink to another tree: no longer in place, and a symlink
  // at the path is never attached.
  fs::create_directories(tmp.path + "/elsewhere");
  fs::rename(root, tmp.path + "/moved");
  fs::create_directory_symlink(tmp.path + "/elsewhere", root);
  EXPECT_FALSE(pin.in_place());
  pin.drop();
  EXPECT_TRUE(h->dropped()) << "jobs holding the old handle see that it was let go of";
  EXPECT_FALSE(pin.attach().ok()) << "a symlink at the root path is never followed after start";

  // The same directory back at the path: attached again, known as the same.
  fs::remove(root);
  fs::rename(tmp.path + "/moved", root);
  a = pin.attach();
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(*a, PinnedRoot::Attach::kSameAgain);
  EXPECT_NE(pin.handle(), h) << "a root that comes back is a new handle";

  // Removed and made again: a new directory, attached as such.
  pin.drop();
  fs::remove_all(root);
  fs::create_directories(root);
  a = pin.attach();
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(*a, PinnedRoot::Attach::kNewDirectory);
}

TEST(PinnedRoot, ASymlinkAboveTheRootMadeAfterStartIsNotFollowed) {
  TempDir tmp;
  const std::string parent = tmp.path + "/run";
  fs::create_directories(parent + "/msit_ge_dump");
  PinnedRoot pin(parent + "/msit_ge_dump");
  ASSERT_TRUE(pin.attach().ok());
  pin.drop();
  // The parent is swapped for a symlink to a tree that has a directory of the same name.
  fs::create_directories(tmp.path + "/other/msit_ge_dump");
  fs::rename(parent, tmp.path + "/run.old");
  fs::create_directory_symlink(tmp.path + "/other", parent);
  EXPECT_FALSE(pin.attach().ok());
}

TEST(PinnedRoot, SymlinksOfTheConfiguredPathAreResolvedOnceAtStart) {
  TempDir tmp;
  fs::create_directories(tmp.path + "/real/msit_ge_dump");
  fs::create_directory_symlink(tmp.path + "/real", tmp.path + "/alias");
  PinnedRoot pin(tmp.path + "/alias/msit_ge_dump");  // the admin's path, trusted as given at start
  EXPECT_EQ(pin.resolved_path(), fs::canonical(tmp.path + "/real/msit_ge_dump").string());
  EXPECT_TRUE(pin.attach().ok());
}

TEST(WalkTreeFd, WalksTheOpenedDirectoryEvenAfterItsPathChanged) {
  TempDir tmp;
  fs::create_directories(tmp.path + "/t/a");
  write_file(tmp.path + "/t/a/f");
  fs::create_directories(tmp.path + "/outside");
  write_file(tmp.path + "/outside/g");
  fs::create_directory_symlink(tmp.path + "/outside", tmp.path + "/t/link");
  UniqueFd fd(::open((tmp.path + "/t").c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  fs::rename(tmp.path + "/t", tmp.path + "/t2");
  fs::create_directory_symlink(tmp.path + "/outside", tmp.path + "/t");
  std::vector<std::string> seen;
  std::vector<Error> errors;
  walk_tree_fd(
      fd.get(), tmp.path + "/t", [&](const WalkEntry& e) { seen.push_back(e.name); }, errors);
  std::sort(seen.begin(), seen.end());
  EXPECT_EQ(seen, (std::vector<std::string>{"a", "f", "link"})) << "g (outside) must never be listed";
  EXPECT_TRUE(errors.empty());
}

// ---- claim names ----------------------------------------------------------------------------

TEST(ClaimNames, CarryTheOwnerUid) {
  const std::string c = claim_name_for("Add.x.1.1.1", "aB3xY9", 1234u);
  EXPECT_EQ(c, ".msit-claim.aB3xY9-1234.Add.x.1.1.1");
  EXPECT_EQ(raw_name_of_claim(c), "Add.x.1.1.1");
  EXPECT_EQ(claim_owner_of(c), 1234u);
  // Older claims (no owner) still parse, but carry nobody's tag.
  EXPECT_EQ(raw_name_of_claim(".msit-claim.aB3xY9.Add.x.1.1.1"), "Add.x.1.1.1");
  EXPECT_FALSE(claim_owner_of(".msit-claim.aB3xY9.Add.x.1.1.1").has_value());
  for (const char* bad : {".msit-claim.aB3xY9-.x", ".msit-claim.aB3xY9-12", ".msit-claim.aB3xY9-1a.x",
                          ".msit-claim.aB3xY9-99999999999.x", ".msit-claim.aB3xY9-1.", ".msit-claim.short"}) {
    EXPECT_FALSE(claim_owner_of(bad).has_value()) << bad;
    EXPECT_EQ(raw_name_of_claim(bad), "") << bad;
  }
}

// ---- the recovery routine --------------------------------------------------------------------

class LeftoverTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root = tmp.path + "/work";
    fs::create_directories(root + "/msit_fx_dump");
  }
  LeftoverOutcome recover(const std::string& rel, LeftoverPolicy policy = {.temp_content = our_temp_content}) {
    auto f = file_ref_of_path(root + "/" + rel);
    EXPECT_TRUE(f.ok());
    return recover_leftover(*f, DumpScope::of_path(fs::path(root + "/" + rel).parent_path().string()), policy);
  }
  // An empty file at the root that somebody holds a lock on: recovery leaves it alone.
  void expect_kept_while_locked(const std::string& name) {
    write_file(root + "/" + name, "");
    UniqueFd holder(::open((root + "/" + name).c_str(), O_RDONLY | O_CLOEXEC));
    ASSERT_TRUE(holder.valid());
    ASSERT_EQ(::flock(holder.get(), LOCK_EX), 0);
    EXPECT_EQ(recover(name).action, LeftoverAction::kNotOurs);
    EXPECT_TRUE(fs::exists(root + "/" + name));
  }
  TempDir tmp;
  std::string root;
};

TEST_F(LeftoverTest, TempsAndClaimsOutsideDumpRootsAreNeverTouched) {
  write_file(root + "/.msit-tmp.notes.txt.abc123", "user data");
  write_file(root + "/" + our_claim("embeddings.npy"), "user data");
  EXPECT_EQ(recover(".msit-tmp.notes.txt.abc123").action, LeftoverAction::kOutsideDumpRoot);
  EXPECT_EQ(recover(our_claim("embeddings.npy")).action, LeftoverAction::kOutsideDumpRoot);
  EXPECT_TRUE(fs::exists(root + "/.msit-tmp.notes.txt.abc123"));
  EXPECT_TRUE(fs::exists(root + "/" + our_claim("embeddings.npy")));
  EXPECT_FALSE(fs::exists(root + "/embeddings.npy"));
}

TEST_F(LeftoverTest, OurTempInADumpRootIsRemovedUnlessLinkedOrInFlight) {
  write_file(root + "/msit_fx_dump/.msit-tmp.a.summary.json.Ab12Cd", R"({"created_by":"msit-compact 0.1)");
  EXPECT_EQ(recover("msit_fx_dump/.msit-tmp.a.summary.json.Ab12Cd").action, LeftoverAction::kRemoved);
  EXPECT_FALSE(fs::exists(root + "/msit_fx_dump/.msit-tmp.a.summary.json.Ab12Cd"));

  // A hard link to a file elsewhere: the name is somebody's way to reach that file.
  write_file(root + "/precious");
  fs::create_hard_link(root + "/precious", root + "/msit_fx_dump/.msit-tmp.b.x1");
  EXPECT_EQ(recover("msit_fx_dump/.msit-tmp.b.x1").action, LeftoverAction::kNotOurs);
  EXPECT_TRUE(fs::exists(root + "/msit_fx_dump/.msit-tmp.b.x1"));

  // Newer than the policy's limit: may be this process's own temp in flight.
  write_file(root + "/msit_fx_dump/.msit-tmp.c.summary.json.Ab12Cd", "");
  EXPECT_EQ(recover("msit_fx_dump/.msit-tmp.c.summary.json.Ab12Cd", LeftoverPolicy{0, our_temp_content}).action,
            LeftoverAction::kInFlight);
  EXPECT_TRUE(fs::exists(root + "/msit_fx_dump/.msit-tmp.c.summary.json.Ab12Cd"));
}

TEST_F(LeftoverTest, AnotherUsersTempIsKept) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to make a file owned by someone else";
  const std::string t = root + "/msit_fx_dump/.msit-tmp.d.x1";
  write_file(t);
  ASSERT_EQ(::chown(t.c_str(), 65534, 65534), 0);
  LeftoverOutcome o = recover("msit_fx_dump/.msit-tmp.d.x1");
  EXPECT_EQ(o.action, LeftoverAction::kNotOurs);
  EXPECT_NE(o.message.find(".msit-tmp.d.x1"), std::string::npos) << "the message names the file";
  EXPECT_TRUE(fs::exists(t));
}

TEST_F(LeftoverTest, AKilledRunsLockUnderOurClaimNameIsRemovedWhereverItIs) {
  // kill -9 between TreeLock::acquire's move aside of a stale lock and its unlink.
  const std::string at_root = our_claim(std::string(kLockName));
  const std::string in_dump = "msit_fx_dump/" + our_claim(std::string(kLockName));
  write_file(root + "/" + at_root, "");
  write_file(root + "/" + in_dump, "");
  EXPECT_EQ(recover(at_root).action, LeftoverAction::kRemoved) << "the watched root need not be a dump root";
  EXPECT_EQ(recover(in_dump).action, LeftoverAction::kRemoved);
  EXPECT_FALSE(fs::exists(root + "/" + at_root));
  EXPECT_FALSE(fs::exists(root + "/" + in_dump));

  // Not empty, another uid's tag, or still locked by somebody: not provably a dead lock of ours.
  const std::string full = our_claim(std::string(kLockName));
  write_file(root + "/" + full, "user data");
  EXPECT_EQ(recover(full).action, LeftoverAction::kNotOurs);
  EXPECT_TRUE(fs::exists(root + "/" + full));
  const std::string other = claim_name_for(std::string(kLockName), "abc124", ::geteuid() + 1);
  write_file(root + "/" + other, "");
  EXPECT_EQ(recover(other).action, LeftoverAction::kNotOurs);
  expect_kept_while_locked(claim_name_for(std::string(kLockName), "abc125", ::geteuid()));
}

TEST_F(LeftoverTest, AKilledRunsLockTempIsRemovedWhereverItIs) {
  // kill -9 between TreeLock::acquire's creation of its lock under a temp name and the link to
  // the lock name (store_compact_kill9 found it left at the root after the final clean run).
  const std::string at_root = std::string(kTempPrefix) + std::string(kLockName) + ".EpVBy5";
  const std::string in_dump = "msit_fx_dump/" + at_root;
  ASSERT_TRUE(is_lock_temp_name(at_root));
  EXPECT_FALSE(is_lock_temp_name(std::string(kTempPrefix) + std::string(kLockName)));
  EXPECT_FALSE(is_lock_temp_name(std::string(kTempPrefix) + "Add.a.EpVBy5"));
  write_file(root + "/" + at_root, "");
  write_file(root + "/" + in_dump, "");
  EXPECT_EQ(recover(at_root).action, LeftoverAction::kRemoved) << "the watched root need not be a dump root";
  EXPECT_EQ(recover(in_dump).action, LeftoverAction::kRemoved);
  EXPECT_FALSE(fs::exists(root + "/" + at_root));
  EXPECT_FALSE(fs::exists(root + "/" + in_dump));

  // Not empty, or locked by its live creator: not provably a dead lock of ours.
  const std::string full = std::string(kTempPrefix) + std::string(kLockName) + ".abc124";
  write_file(root + "/" + full, "user data");
  EXPECT_EQ(recover(full).action, LeftoverAction::kNotOurs);
  EXPECT_TRUE(fs::exists(root + "/" + full));
  expect_kept_while_locked(std::string(kTempPrefix) + std::string(kLockName) + ".abc125");
  if (::geteuid() == 0) {  // another user's empty file under that name
    const std::string theirs = std::string(kTempPrefix) + std::string(kLockName) + ".abc126";
    write_file(root + "/" + theirs, "");
    ASSERT_EQ(::chown((root + "/" + theirs).c_str(), 65534, 65534), 0);
    EXPECT_EQ(recover(theirs).action, LeftoverAction::kNotOurs);
    EXPECT_TRUE(fs::exists(root + "/" + theirs));
  }
}

TEST_F(LeftoverTest, OnlyClaimsCarryingOurUidGetTheirNameBack) {
  const std::string d = "msit_fx_dump/";
  write_file(root + "/" + d + ".msit-claim.abc123." + kFx, "old format");  // no owner tag
  write_file(root + "/" + d + claim_name_for("Add.a", "abc123", ::geteuid() + 1), "other uid");
  write_file(root + "/" + d + our_claim("embeddings.npy"), "no dump name");
  write_file(root + "/" + d + our_claim(kFx), "ours");
  EXPECT_EQ(recover(d + ".msit-claim.abc123." + kFx).action, LeftoverAction::kNotOurs);
  EXPECT_EQ(recover(d + claim_name_for("Add.a", "abc123", ::geteuid() + 1)).action, LeftoverAction::kNotOurs);
  EXPECT_EQ(recover(d + our_claim("embeddings.npy")).action, LeftoverAction::kNotOurs) << "we claim dumps only";
  EXPECT_FALSE(fs::exists(root + "/" + d + "embeddings.npy"));
  LeftoverOutcome o = recover(d + our_claim(kFx));
  EXPECT_EQ(o.action, LeftoverAction::kRenamedBack);
  EXPECT_EQ(o.raw_name, kFx);
  EXPECT_TRUE(fs::exists(root + "/" + d + kFx));
  EXPECT_TRUE(fs::exists(root + "/" + d + ".msit-claim.abc123." + kFx));

  // Its name taken meanwhile: both kept.
  write_file(root + "/" + d + our_claim(kFx), "second");
  EXPECT_EQ(recover(d + our_claim(kFx)).action, LeftoverAction::kNameTaken);
  EXPECT_TRUE(fs::exists(root + "/" + d + our_claim(kFx)));
}

// ---- compact ----------------------------------------------------------------------------------

TEST(CompactLeftovers, PlantedNamesOutsideDumpRootsAreKeptAndNamed) {
  TempDir tmp;
  const std::string work = tmp.path + "/work";
  fs::create_directories(work + "/msit_fx_dump");
  write_file(work + "/msit_fx_dump/" + kFx, test::npy_bytes({1.0f}));
  // The user's embeddings.npy, claimed-looking, and a temp-looking note, outside every dump root.
  const std::string planted_claim = work + "/" + our_claim("embeddings.npy");
  write_file(planted_claim, test::npy_bytes({2.0f}));
  write_file(work + "/.msit-tmp.notes", "keep me");
  // Inside the dump root, a claim with our uid whose name is no dump name: we never claim such a
  // file, so it is not ours whatever its tag says.
  write_file(work + "/msit_fx_dump/" + our_claim("embeddings.npy"), test::npy_bytes({3.0f}));
  // And one that is ours: renamed back and compacted normally.
  const std::string fx2 = "mul_1-aten.mul.Tensor.OUTPUT.0.20250101000000000001.npy";
  write_file(work + "/msit_fx_dump/" + our_claim(fx2), test::npy_bytes({4.0f}));
  CompactReport rep = run_compact({work}, CompactRunOptions{}, nullptr);
  EXPECT_TRUE(fs::exists(planted_claim));
  EXPECT_FALSE(fs::exists(work + "/embeddings.npy"));
  EXPECT_TRUE(fs::exists(work + "/.msit-tmp.notes"));
  EXPECT_TRUE(fs::exists(work + "/msit_fx_dump/" + our_claim("embeddings.npy")));
  EXPECT_FALSE(fs::exists(work + "/msit_fx_dump/embeddings.npy"));
  EXPECT_TRUE(fs::exists(work + "/msit_fx_dump/" + fx2 + ".summary.json"));
  EXPECT_EQ(rep.compacted, 2u);
  EXPECT_EQ(rep.claims_restored, 1u);
  EXPECT_EQ(rep.temp_removed, 0u);
  size_t foreign = 0;
  for (const auto& l : rep.left_alone) foreign += l.reason == LeftAlone::kNotOurLeftover ? 1 : 0;
  EXPECT_EQ(foreign, 3u);
  bool named = false;
  for (const auto& n : rep.notes) named = named || n.find(planted_claim) != std::string::npos;
  EXPECT_TRUE(named) << "the kept file is named in the output";
}

// ---- watch ------------------------------------------------------------------------------------

class RootWatchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root = tmp.path + "/msit_ge_dump";
    fs::create_directories(root + "/0");
    log.capture_to(&lines);
    opts.settle_ns = 100'000'000;
    opts.rescan_interval_ns = 3'600'000'000'000;
    opts.max_in_flight = 1000;
    w = std::make_unique<daemon::Watcher>(
        opts, std::vector<std::string>{root}, source, clock, probe, sink, log,
        daemon::CandidatePolicy{[](const std::string&, std::string_view n) { return n.starts_with("Add."); }, nullptr},
        daemon::RootHooks{[this](const std::shared_ptr<const RootHandle>&) {
                            ++attached;
                            return true;
                          },
                          [this](const RootHandle&, const std::string&) { ++dropped; }});
  }
  void step_ms(int64_t ms) {
    w->on_events();
    clock.advance_ms(ms);
    w->on_tick();
  }
  int log_count(std::string_view needle) const {
    return static_cast<int>(std::count_if(lines.begin(), lines.end(),
                                          [&](const std::string& l) { return l.find(needle) != std::string::npos; }));
  }
  // What inotify reports when the root directory is renamed.
  void root_moved() { source.queued.push_back(daemon::FsEvent{source.wd_of(root), IN_MOVE_SELF, ""}); }

  TempDir tmp;
  std::string root;
  daemon::testing::FakeSource source;
  daemon::testing::FakeClock clock;
  daemon::testing::FakeProbe probe;
  daemon::testing::RecordingSink sink;
  daemon::Logger log{false};
  std::vector<std::string> lines;
  daemon::WatcherOptions opts;
  std::unique_ptr<daemon::Watcher> w;
  int attached = 0, dropped = 0;
};

TEST_F(RootWatchTest, ARootSwappedForASymlinkDropsItsPendingWorkAndIsNeverFollowed) {
  ASSERT_TRUE(w->attach_roots());
  w->start();
  EXPECT_EQ(attached, 1);
  write_file(root + "/0/Add.a.1.1.1");
  source.inject(root + "/0", IN_CLOSE_WRITE, "Add.a.1.1.1");
  step_ms(10);
  EXPECT_EQ(w->pending(), 1u);

  // Another user's tree with the same layout; the root is renamed away and a symlink put there.
  const std::string other = tmp.path + "/other";
  fs::create_directories(other + "/0");
  write_file(other + "/0/Add.a.1.1.1");
  write_file(other + "/0/Add.b.1.1.1");
  fs::rename(root, tmp.path + "/moved");
  fs::create_directory_symlink(other, root);
  root_moved();
  step_ms(300);  // settle and a root poll
  EXPECT_EQ(dropped, 1);
  EXPECT_EQ(w->pending(), 0u);
  EXPECT_TRUE(sink.jobs.empty()) << "nothing of the dropped root, nothing through the symlink";
  EXPECT_EQ(w->counters().dropped_with_root, 1u);
  EXPECT_EQ(w->counters().missing_roots, 1u);
  EXPECT_EQ(log_count("pending file(s) dropped"), 1);
  EXPECT_GE(log_count("symbolic link"), 1);
  for (auto& [wd, d] : source.watches) EXPECT_NE(d.rfind(root, 0), 0u) << "still watching " << d;
  step_ms(300);
  EXPECT_EQ(attached, 1) << "a symlink at the path is never attached";

  // The directory comes back: attached again by identity, its file found by the scan.
  fs::remove(root);
  fs::rename(tmp.path + "/moved", root);
  step_ms(300);
  EXPECT_EQ(attached, 2);
  EXPECT_EQ(log_count("is back at this path"), 1);
  step_ms(10);
  ASSERT_EQ(sink.jobs.size(), 1u);
  EXPECT_EQ(sink.jobs[0].path, root + "/0/Add.a.1.1.1");
  ASSERT_TRUE(sink.jobs[0].root);
  EXPECT_EQ(sink.jobs[0].rel, "0/Add.a.1.1.1");
}

TEST_F(RootWatchTest, AJobInFlightWhenItsRootMovesIsForgotten) {
  ASSERT_TRUE(w->attach_roots());
  write_file(root + "/0/Add.a.1.1.1");
  w->start();
  ASSERT_EQ(sink.jobs.size(), 1u);
  daemon::Job job = sink.jobs[0];
  sink.jobs.clear();
  fs::rename(root, tmp.path + "/moved");
  root_moved();
  step_ms(1);
  EXPECT_TRUE(job.root->dropped()) << "the worker sees the root was let go of before touching the file";
  daemon::JobResult r;
  r.path = job.path;
  r.status = daemon::JobStatus::kCancelled;
  w->on_results({r});
  EXPECT_EQ(w->in_flight(), 0u);
  EXPECT_EQ(w->pending(), 0u);
}

TEST_F(RootWatchTest, ARefusedRootStopsTheStart) {
  auto refusing = std::make_unique<daemon::Watcher>(
      opts, std::vector<std::string>{root}, source, clock, probe, sink, log,
      daemon::CandidatePolicy{[](const std::string&, std::string_view) { return true; }, nullptr},
      daemon::RootHooks{[](const std::shared_ptr<const RootHandle>&) { return false; }, nullptr});
  EXPECT_FALSE(refusing->attach_roots());
  EXPECT_EQ(refusing->counters().missing_roots, 1u);
}

TEST(EngineCompactorRoots, JobsOfARootLetGoOfAreCancelledAndTouchNothing) {
  TempDir tmp;
  const std::string root = tmp.path + "/msit_fx_dump";
  fs::create_directories(root);
  write_file(root + "/" + kFx, test::npy_bytes({1.0f}));
  PinnedRoot pin(root);
  ASSERT_TRUE(pin.attach().ok());
  daemon::EngineCompactor c(CompactOptions{});
  c.attach_tree(pin.handle());
  daemon::Job j{root + "/" + kFx, {}, 0, false, pin.handle(), kFx};
  pin.drop();  // moved away: the watcher let it go
  c.release_tree(*j.root);
  auto out = c.run_batch({j});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].status, daemon::JobStatus::kCancelled);
  EXPECT_TRUE(fs::exists(root + "/" + kFx));
  EXPECT_FALSE(fs::exists(root + "/" + kFx + ".summary.json"));
}

}  // namespace
}  // namespace msit
