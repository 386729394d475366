// The deletion contract (docs/safety.md): what is a dump, symlink-free resolution, no-replace
// publication, claim-then-unlink, every byte accounted for, caps, tree locks, open-file index.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "common/base/unique_fd.h"
#include "common/compaction/compact.h"
#include "common/compaction/compact_run.h"
#include "common/formats/dump_reader.h"
#include "common/safety/beneath.h"
#include "common/safety/dump_roots.h"
#include "common/safety/open_files.h"
#include "common/safety/proc_text.h"
#include "common/safety/publish.h"
#include "common/safety/tree_lock.h"
#include "tests/unit/npy_fixture.h"

namespace fs = std::filesystem;

namespace msit {
namespace {

const std::string kFx = "add_1-aten.add.Tensor.OUTPUT.0.20250101000000000000.npy";
const std::string kGe = "Add.Add_2.44.6.1706596912161941";

using test::npy_bytes;

class SafetyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/msit-safety-test.XXXXXX";
    dir_ = ::mkdtemp(tmpl);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string write(const std::string& rel, const std::string& bytes) {
    std::string p = dir_ + "/" + rel;
    fs::create_directories(fs::path(p).parent_path());
    std::ofstream(p, std::ios::binary) << bytes;
    return p;
  }
  static std::string read(const std::string& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  std::string dir_;
};

TEST(DumpRoots, OnlyDumpNamesUnderDumpRootsAreCandidates) {
  EXPECT_TRUE(is_dump_candidate_path("/data/msit_fx_dump/data_dump/1/gm_1_dump/" + kFx));
  EXPECT_TRUE(is_dump_candidate_path("/d/msit_fx_dump/worldsize1_global_rank0/gm_20250101_dump/0/" + kFx));
  EXPECT_TRUE(is_dump_candidate_path("/d/msit_ge_dump/20250101120000/0/graph_1_0/1/0/" + kGe));
  EXPECT_TRUE(is_dump_candidate_path("/d/20250101120000/0/graph_1_0/1/0/" + kGe));  // GE without msit
  EXPECT_TRUE(is_dump_candidate_path("/d/msprobe_ge_dump/x/" + kGe));
  EXPECT_TRUE(is_dump_candidate_path("/d/msprobe_x_dump/y/" + kFx));
  // A user's arrays and numpy's own test files: no dump root, or not a dump name of it.
  EXPECT_FALSE(is_dump_candidate_path("/home/u/work/embeddings.npy"));
  EXPECT_FALSE(is_dump_candidate_path("/home/u/work/" + kFx));
  EXPECT_FALSE(is_dump_candidate_path("/usr/lib/python3/dist-packages/numpy/lib/tests/data/" + kGe));
  EXPECT_FALSE(is_dump_candidate_path("/d/msit_fx_dump/embeddings.npy"));
  EXPECT_FALSE(is_dump_candidate_path("/d/msit_ge_dump/" + kFx));  // FX names are not GE dumps
  EXPECT_FALSE(is_dump_candidate_path("/d/msit_fx_dump/" + kGe));
  EXPECT_FALSE(is_dump_candidate_path("/d/msit_ge_dump/dynamo_original_graph_1.txt"));
  EXPECT_FALSE(is_dump_candidate_path("/d/msit_ge_dump/.msit-claim.abcdef." + kGe));
  EXPECT_FALSE(is_dump_candidate_path("/d/msit_dump_20250101_120000/model/1/M.json"));
  EXPECT_TRUE(is_dump_candidate_path("/d/msit_dump_20250101_120000/tensors/0_123/0/3_Linear/after/outtensor0.bin"));
  EXPECT_TRUE(is_dump_candidate_path("/d/ait_dump/tensors/0_123/0/3_Linear/before/intensor1_x.bin"));
  EXPECT_FALSE(is_dump_candidate_path("/d/msit_dump/tensors/0_123/0/3_Linear/kernel_tilingdata.bin"));
  EXPECT_FALSE(is_dump_candidate_path("/d/msit_dump/tensors/0_123/0/3_Linear/op_param.json"));
  EXPECT_TRUE(is_dump_candidate_path("/d/msit_dump_1/torch_tensors/cpu_100/0/root.fc/output.pth"));
  EXPECT_TRUE(is_dump_candidate_path("/d/msit_dump_1/torch_tensors/cpu_100/0/root.fc/input_0.pth"));
  EXPECT_FALSE(is_dump_candidate_path("/d/msit_dump_1/torch_tensors/cpu_100/model_tree.json"));
  EXPECT_FALSE(is_dump_candidate_path("/d/msit_dump_1/torch_tensors/cpu_100/0/root.fc/statistics.csv"));
  EXPECT_FALSE(is_dump_candidate_path("/d/msit_dump_1/other/outtensor0.bin"));
  EXPECT_FALSE(is_dump_candidate_path("/home/u/outtensor0.bin"));
  EXPECT_FALSE(is_dump_candidate_path("/d/my_msit_ge_dump_copy/" + kGe));
}

TEST_F(SafetyTest, DirectorySwappedForSymlinkIsNeverEntered) {
  write("msit_fx_dump/b/" + kFx, npy_bytes({1.0f}));
  std::string outside = dir_ + "/outside";
  write("outside/" + kFx, npy_bytes({2.0f}));
  auto root = open_trusted_dir(dir_ + "/msit_fx_dump");
  ASSERT_TRUE(root.ok());
  BeneathResolver r(std::make_shared<const UniqueFd>(std::move(root).value()), dir_ + "/msit_fx_dump");
  ASSERT_TRUE(r.file("b/" + kFx).ok());
  fs::rename(dir_ + "/msit_fx_dump/b", dir_ + "/msit_fx_dump/b_real");
  fs::create_directory_symlink(outside, dir_ + "/msit_fx_dump/b");
  auto root2 = open_trusted_dir(dir_ + "/msit_fx_dump");
  auto swapped = open_dir_beneath(root2->get(), "b", dir_ + "/msit_fx_dump/b");
  ASSERT_FALSE(swapped.ok());
  EXPECT_NE(swapped.error().to_string().find("symbolic link"), std::string::npos);
  EXPECT_FALSE(open_dir_beneath(root2->get(), "../outside", "x").ok());
  EXPECT_FALSE(open_dir_beneath(root2->get(), "/etc", "x").ok());
  // compact over the swapped tree: the file behind the link is never summarised or removed.
  CompactReport rep = run_compact({dir_ + "/msit_fx_dump"}, CompactRunOptions{}, nullptr);
  EXPECT_TRUE(fs::exists(outside + "/" + kFx));
  EXPECT_FALSE(fs::exists(outside + "/" + kFx + ".summary.json"));
  EXPECT_EQ(rep.symlinks.size(), 1u);
}

TEST_F(SafetyTest, ReplacedBetweenSummaryAndRemovalTheNewFileIsKept) {
  std::string raw = write("msit_fx_dump/" + kFx, npy_bytes({1.0f, 2.0f}));
  auto p = prepare_summary(raw, CompactOptions{});
  ASSERT_TRUE(p.ok()) << p.error().to_string();
  // Same name, same size, new inode: a different file now stands where the summarised one was.
  std::string replacement = npy_bytes({7.0f, 8.0f});
  write("msit_fx_dump/new.tmp", replacement);
  fs::rename(dir_ + "/msit_fx_dump/new.tmp", raw);
  std::vector<PreparedSummary> batch;
  batch.push_back(std::move(p).value());
  auto results = publish_summaries(std::move(batch));
  ASSERT_FALSE(results[0].ok());
  EXPECT_EQ(read(raw), replacement);
  for (auto& e : fs::directory_iterator(dir_ + "/msit_fx_dump"))
    EXPECT_FALSE(is_claim_name(e.path().filename().string())) << e.path();
}

TEST_F(SafetyTest, ClaimedFileIsCheckedAgainstTheReadInode) {
  std::string raw = write("d/" + kFx, npy_bytes({1.0f}));
  auto f = file_ref_of_path(raw);
  UniqueFd fd(::open(raw.c_str(), O_RDONLY));
  auto id = identity_of(fd.get(), raw);
  ASSERT_TRUE(id.ok());
  // Another file's fd: the claim must refuse to unlink the name and give it back.
  std::string other = write("d/other", npy_bytes({1.0f}));
  UniqueFd ofd(::open(other.c_str(), O_RDONLY));
  auto oid = identity_of(ofd.get(), other);
  auto st = remove_if_same(*f, ofd.get(), *oid);
  EXPECT_FALSE(st.ok());
  EXPECT_TRUE(fs::exists(raw));
  // A write after the read changes ctime: refused before anything is renamed.
  std::ofstream(raw, std::ios::app) << "x";
  EXPECT_FALSE(remove_if_same(*f, fd.get(), *id).ok());
  EXPECT_TRUE(fs::exists(raw));
  auto id2 = identity_of(fd.get(), raw);
  EXPECT_TRUE(remove_if_same(*f, fd.get(), *id2).ok());
  EXPECT_FALSE(fs::exists(raw));
}

TEST_F(SafetyTest, SummaryNameTakenByAnotherFileIsNeverOverwritten) {
  std::string raw = write("msit_fx_dump/" + kFx, npy_bytes({1.0f, 2.0f}));
  write("msit_fx_dump/" + kFx + ".summary.json", "a user's own file");
  auto r = compact_file(raw, CompactOptions{});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().to_string().find("already exists"), std::string::npos);
  EXPECT_EQ(read(raw + ".summary.json"), "a user's own file");
  EXPECT_TRUE(fs::exists(raw));
}

TEST_F(SafetyTest, NoReplaceRenameKeepsBoth) {
  write("d/a", "A");
  write("d/b", "B");
  auto f = file_ref_of_path(dir_ + "/d/a");
  auto st = rename_noreplace(f->dir, "a", "b");
  EXPECT_FALSE(st.ok());
  EXPECT_EQ(read(dir_ + "/d/a"), "A");
  EXPECT_EQ(read(dir_ + "/d/b"), "B");
}

TEST_F(SafetyTest, DroppedTempLeavesNothing) {
  fs::create_directories(dir_ + "/d");
  auto f = file_ref_of_path(dir_ + "/d/x");
  {
    auto t = DirTemp::create(f->dir, "x.summary.json");
    ASSERT_TRUE(t.ok());
    ASSERT_TRUE(t->write(std::string_view("partial")).ok());
  }
  EXPECT_TRUE(fs::is_empty(dir_ + "/d"));
}

TEST_F(SafetyTest, TrailingBytesKeepTheRawFileUnlessArchived) {
  std::string bytes = npy_bytes({1.0f, 2.0f}) + "second dump appended";
  std::string raw = write("msit_fx_dump/" + kFx, bytes);
  auto r = compact_file(raw, CompactOptions{});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().to_string().find("20 bytes after the declared tensors"), std::string::npos);
  EXPECT_EQ(read(raw), bytes);
  CompactOptions keep;
  keep.raw = RawAction::kKeep;
  EXPECT_TRUE(compact_file(raw, keep).ok());  // a summary is fine; only removal is refused
  fs::remove(raw + ".summary.json");
  CompactOptions archive;
  archive.raw = RawAction::kArchive;
  auto a = compact_file(raw, archive);
  ASSERT_TRUE(a.ok()) << a.error().to_string();
  EXPECT_TRUE(a->raw_removed);
  EXPECT_TRUE(fs::exists(raw + ".zst"));
}

TEST_F(SafetyTest, TreeLockExcludesASecondOwnerAndDiesWithItsHolder) {
  fs::create_directories(dir_ + "/msit_ge_dump/sub");
  auto root = open_trusted_dir(dir_ + "/msit_ge_dump");
  int pipefd[2];
  ASSERT_EQ(::pipe(pipefd), 0);
  pid_t child = ::fork();
  if (child == 0) {
    auto l = TreeLock::acquire(root->get(), dir_ + "/msit_ge_dump");
    char c = l.ok() ? 'y' : 'n';
    (void)!::write(pipefd[1], &c, 1);
    ::pause();
    std::_Exit(0);
  }
  char c = 0;
  ASSERT_EQ(::read(pipefd[0], &c, 1), 1);
  ASSERT_EQ(c, 'y');
  auto second = TreeLock::acquire(root->get(), dir_ + "/msit_ge_dump");
  ASSERT_FALSE(second.ok());
  EXPECT_NE(second.error().to_string().find("owned by pid " + std::to_string(child)), std::string::npos)
      << second.error().to_string();
  EXPECT_EQ(locked_ancestor(dir_ + "/msit_ge_dump/sub").dir, dir_ + "/msit_ge_dump");
  std::vector<RootProblem> problems;
  run_compact({dir_ + "/msit_ge_dump"}, CompactRunOptions{}, nullptr, &problems);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].message.find("owned by"), std::string::npos);
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  EXPECT_TRUE(TreeLock::acquire(root->get(), dir_ + "/msit_ge_dump").ok());
}

TEST_F(SafetyTest, CompactOfADirectoryWithoutDumpRootIsAnError) {
  write("work/embeddings.npy", npy_bytes({1.0f}));
  write("work/" + kFx, npy_bytes({1.0f}));
  std::vector<RootProblem> problems;
  CompactReport rep = run_compact({dir_ + "/work"}, CompactRunOptions{}, nullptr, &problems);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_TRUE(problems[0].no_dump_root);
  EXPECT_EQ(rep.candidates, 0u);
  EXPECT_TRUE(fs::exists(dir_ + "/work/embeddings.npy"));
  EXPECT_TRUE(fs::exists(dir_ + "/work/" + kFx));
}

TEST_F(SafetyTest, LeftoverClaimGetsItsNameBackAndIsCompactedNormally) {
  std::string body = npy_bytes({3.0f});
  // A claim made by this user (its uid in the name, docs/safety.md T5), as a killed run leaves it.
  write("msit_fx_dump/" + claim_name_for(kFx, "abc123", ::geteuid()), body);
  CompactReport rep = run_compact({dir_ + "/msit_fx_dump"}, CompactRunOptions{}, nullptr);
  EXPECT_EQ(rep.claims_restored, 1u);
  EXPECT_EQ(rep.compacted, 1u);
  EXPECT_TRUE(fs::exists(dir_ + "/msit_fx_dump/" + kFx + ".summary.json"));
}

TEST_F(SafetyTest, OpenFileIndexSeesOpenAndMappedFiles) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to see every process";
  std::string path = write("d/mapped", std::string(4096, 'x'));
  std::string path2 = write("d/opened", "y");
  struct stat st {
  }, st2{};
  ::stat(path.c_str(), &st);
  ::stat(path2.c_str(), &st2);
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  pid_t child = ::fork();
  if (child == 0) {
    int fd = ::open(path.c_str(), O_RDWR);
    void* m = ::mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    ::close(fd);  // only the mapping remains, like np.lib.format.open_memmap
    int fd2 = ::open(path2.c_str(), O_WRONLY);
    char c = (m != MAP_FAILED && fd2 >= 0) ? 'y' : 'n';
    (void)!::write(ready[1], &c, 1);
    ::pause();
    std::_Exit(0);
  }
  char c = 0;
  ASSERT_EQ(::read(ready[0], &c, 1), 1);
  OpenFileIndex idx = OpenFileIndex::scan();
  // Some sandboxes hide a few root processes even from root: then the index says so.
  if (!idx.complete()) { EXPECT_FALSE(idx.gap().empty()); }
  EXPECT_TRUE(idx.is_open(st.st_dev, st.st_ino));
  EXPECT_TRUE(idx.is_open(st2.st_dev, st2.st_ino));
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  OpenFileIndex after = OpenFileIndex::scan();
  EXPECT_FALSE(after.is_open(st.st_dev, st.st_ino));
}

// A mapped file's name is its creator's text, and a maps line holds it whole: a name longer than
// any line buffer must not be read back as a line of its own naming another file as open.
TEST_F(SafetyTest, AMappedFilesLongNameCannotPlantAnOpenFile) {
  // 18 directories of 250 bytes: the file's path is longer than a page (and than PATH_MAX, so
  // everything below goes through openat/mkdirat from the test directory).
  UniqueFd at(::open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  ASSERT_TRUE(at.valid());
  const std::string level(250, 'd');
  for (int i = 0; i < 18; ++i) {
    ASSERT_EQ(::mkdirat(at.get(), level.c_str(), 0700), 0);
    at = UniqueFd(::openat(at.get(), level.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    ASSERT_TRUE(at.valid());
  }
  // Read as fields, the tail says "device 1:2, inode 777777".
  const std::string name = "x r--p 00000000 1:2 777777 planted";
  UniqueFd fd(::openat(at.get(), name.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
  ASSERT_TRUE(fd.valid());
  ASSERT_EQ(::ftruncate(fd.get(), 4096), 0);
  struct stat st {};
  ASSERT_EQ(::fstat(fd.get(), &st), 0);
  void* m = ::mmap(nullptr, 4096, PROT_READ, MAP_SHARED, fd.get(), 0);
  ASSERT_NE(m, MAP_FAILED);
  fd = UniqueFd();
  // The scan leaves out its own process: a child holds the mapping (inherited), nothing else.
  const pid_t child = ::fork();
  if (child == 0) {
    ::pause();
    std::_Exit(0);
  }
  ::munmap(m, 4096);
  OpenFileIndex idx = OpenFileIndex::scan();
  EXPECT_TRUE(idx.is_open(st.st_dev, st.st_ino));
  EXPECT_FALSE(idx.is_open(makedev(1, 2), 777777));
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  // fs::remove_all cannot name what lies beyond PATH_MAX: take the chain down from the inside.
  ASSERT_EQ(::unlinkat(at.get(), name.c_str(), 0), 0);
  for (int i = 0; i < 18; ++i) {
    at = UniqueFd(::openat(at.get(), "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    ASSERT_EQ(::unlinkat(at.get(), level.c_str(), AT_REMOVEDIR), 0);
  }
}

TEST(ProcText, NumbersAreAllDigitsOfTheirBaseAndFit) {
  unsigned long long v = 0;
  EXPECT_TRUE(parse_unsigned("0", 10, v));
  EXPECT_EQ(v, 0u);
  EXPECT_TRUE(parse_unsigned("fd", 16, v));
  EXPECT_EQ(v, 0xfdu);
  EXPECT_TRUE(parse_unsigned("9999999999999999999", 10, v));  // 19 digits: fits 64 bits
  for (const char* bad : {"", "-1", "+1", " 1", "1 ", "1a", "0x1", "18446744073709551616", "99999999999999999999"})
    EXPECT_FALSE(parse_unsigned(bad, 10, v)) << bad;
  for (const char* bad : {"FD", "g", "10000000000000000", ""}) EXPECT_FALSE(parse_unsigned(bad, 16, v)) << bad;
  EXPECT_FALSE(parse_unsigned(std::string_view("1\0", 2), 10, v));
}

TEST(ProcText, PidsAreDecimalNamesWithinPidT) {
  EXPECT_EQ(pid_of("1"), 1);
  EXPECT_EQ(pid_of("2147483647"), 2147483647);
  for (const char* bad : {"", "self", "thread-self", "2147483648", "99999999999999999999", "-1", "12a"})
    EXPECT_EQ(pid_of(bad), -1) << bad;
}

TEST(ProcText, MapsLinesNameAFileOnlyWhenWhole) {
  auto key = maps_file("7f3a1c000000-7f3a1c021000 r--p 00000000 fd:01 1835012   /usr/lib/libc.so.6\n");
  ASSERT_TRUE(key.has_value());
  EXPECT_EQ(major(key->first), 0xfdu);
  EXPECT_EQ(minor(key->first), 1u);
  EXPECT_EQ(key->second, 1835012u);
  EXPECT_TRUE(maps_file("1-2 r--p 0 103:fffff 5").has_value());  // no name, no newline
  for (const char* bad :
       {"7ffd5c9e1000-7ffd5c9e3000 r-xp 00000000 00:00 0     [vdso]\n",  // anonymous
        "", "\n", "1-2 r--p 0", "1-2 r--p 0 fd01 5 /x", "1-2 r--p 0 FD:01 5 /x", "1-2 r--p 0 fd:01 -5 /x",
        "1-2 r--p 0 1000:01 5 /x",    // a major number wider than the kernel's 12 bits
        "1-2 r--p 0 fd:100000 5 /x",  // a minor number wider than 20 bits
        "1-2 r--p 0 fd:01 99999999999999999999 /x", "1-2 r--p 0 :1 5 /x", "1-2 r--p 0 1: 5 /x"})
    EXPECT_FALSE(maps_file(bad).has_value()) << bad;
}

TEST(ProcText, JournalStreamIsTwoDecimalNumbers) {
  auto id = journal_stream("9:37152");
  ASSERT_TRUE(id.has_value());
  EXPECT_EQ(id->first, 9u);
  EXPECT_EQ(id->second, 37152u);
  for (const char* bad : {"", ":", "9:", ":1", "9:1:2", "9 :1", "9:1\n", "a:1", "9;1", "99999999999999999999:1"})
    EXPECT_FALSE(journal_stream(bad).has_value()) << bad;
}

TEST(GeCaps, HeaderDeclaringTooManyTensorsIsRefused) {
  // DumpData with kMaxTensorsPerFile + 1 empty output messages (field 4, length 0).
  std::string header;
  for (size_t i = 0; i <= kMaxTensorsPerFile; ++i) header += std::string("\x22\x00", 2);
  std::string file(8, '\0');
  uint64_t len = header.size();
  std::memcpy(file.data(), &len, 8);
  file += header;
  auto r = parse_ge_dump_prefix(std::as_bytes(std::span<const char>(file.data(), file.size())), file.size(), "x");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().to_string().find("tensors (limit"), std::string::npos);
}

}  // namespace
}  // namespace msit
