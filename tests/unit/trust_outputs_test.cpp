// Trust round 2, outputs and messages (docs/safety.md, "Outputs and messages"): output files never
// follow or overwrite what another user planted, log and terminal lines are escaped, failures
// are named by their real cause, sparse raw files and the torch hook layout.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/capability.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "common/base/printable.h"
#include "common/io/output_file.h"
#include "common/io/sparse.h"
#include "common/safety/dump_roots.h"
#include "common/safety/open_files.h"
#include "common/safety/publish.h"
#include "common/store/sqlite_message.h"
#include "daemon/log.h"

namespace fs = std::filesystem;

namespace msit {
namespace {

std::string read_all(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

void write_file(const fs::path& p, const std::string& bytes) { std::ofstream(p, std::ios::binary) << bytes; }

class TrustOutputsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/msit-trust-outputs-test.XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { fs::remove_all(dir_); }
  // Names in dir_ that start with the temp prefix (none may be left behind).
  size_t temps_left() const {
    size_t n = 0;
    for (const auto& e : fs::recursive_directory_iterator(dir_))
      n += e.path().filename().string().starts_with(".msit-tmp.");
    return n;
  }
  fs::path dir_;
};

// --- printable() ---

TEST(Printable, KeepsPrintableTextAndValidUtf8) {
  EXPECT_EQ(printable("/dump/msit_ge_dump/Add.Add_2.44.6.1706596912161941"),
            "/dump/msit_ge_dump/Add.Add_2.44.6.1706596912161941");
  EXPECT_EQ(printable("张量/テンソル/é"), "张量/テンソル/é");
  EXPECT_EQ(printable("back\\slash"), "back\\slash");
  EXPECT_TRUE(is_printable("plain"));
}

TEST(Printable, EscapesNewlinesAndEscapeSequences) {
  EXPECT_EQ(printable("evil\nmsit-compact watch: error: forged"), "evil\\x0amsit-compact watch: error: forged");
  EXPECT_EQ(printable("a\033[2Jb\r\t\x7f"), "a\\x1b[2Jb\\x0d\\x09\\x7f");
  EXPECT_FALSE(is_printable("a\nb"));
}

TEST(Printable, EscapesInvalidUtf8AndC1Controls) {
  EXPECT_EQ(printable("bad\xff.npy"), "bad\\xff.npy");
  EXPECT_EQ(printable("\xc3"), "\\xc3");                    // truncated sequence
  EXPECT_EQ(printable("\xc0\xaf"), "\\xc0\\xaf");           // overlong '/'
  EXPECT_EQ(printable("\xed\xa0\x80"), "\\xed\\xa0\\x80");  // surrogate
  EXPECT_EQ(printable("\xc2\x9b"
                      "31m"),
            "\\xc2\\x9b31m");  // U+009B, the one-byte CSI
}

TEST(Printable, IsIdempotentSoTwoSinksDoNotDoubleEscape) {
  const std::string once = printable("x\ny\033\xff");
  EXPECT_EQ(printable(once), once);
}

TEST(Printable, LinesKeepTheirOwnNewlinesOnly) {
  EXPECT_EQ(printable_lines("row 1 \033[31m\nrow 2\n"), "row 1 \\x1b[31m\nrow 2\n");
}

TEST(Printable, DaemonLogRecordsStayOneLine) {
  daemon::Logger log(false);
  std::vector<std::string> lines;
  log.capture_to(&lines);
  log.warning("/d/msit_ge_dump/evil\n2026-01-01 00:00:00 msit-compact watch: error: forged \033[31m");
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0], "/d/msit_ge_dump/evil\\x0a2026-01-01 00:00:00 msit-compact watch: error: forged \\x1b[31m");
}

// --- messages ---

TEST(SqliteMessage, FullDiskNamesTheDirectoryAndWhatToDo) {
  const std::string want = "no space left on device under /d/msit_ge_dump; raw files kept; free space and rerun";
  EXPECT_EQ(store::sqlite_failure_text(SQLITE_IOERR_SHMSIZE, ENOSPC, "/d/msit_ge_dump/msit-summary.db"), want);
  EXPECT_EQ(store::sqlite_failure_text(SQLITE_IOERR_WRITE, ENOSPC, "/d/msit_ge_dump/msit-summary.db"), want);
  EXPECT_EQ(store::sqlite_failure_text(SQLITE_FULL, 0, "/d/msit_ge_dump/msit-summary.db"), want);
  // SQLITE_FULL is ENOSPC whatever errno was left over from an earlier call.
  EXPECT_EQ(store::sqlite_failure_text(SQLITE_FULL, EACCES, "/d/msit_ge_dump/msit-summary.db"), want);
}

TEST(SqliteMessage, OtherCausesAreNamedAndUnknownOnesLeftToSqlite) {
  EXPECT_NE(store::sqlite_failure_text(SQLITE_IOERR_WRITE, EDQUOT, "/d/s.db").find("disk quota exceeded under /d"),
            std::string::npos);
  EXPECT_NE(store::sqlite_failure_text(SQLITE_IOERR_FSYNC, EIO, "/d/s.db").find("I/O error (EIO)"), std::string::npos);
  EXPECT_NE(store::sqlite_failure_text(SQLITE_CANTOPEN, EROFS, "/d/s.db").find("read-only"), std::string::npos);
  EXPECT_NE(store::sqlite_failure_text(SQLITE_CORRUPT, 0, "/d/s.db").find("move it aside"), std::string::npos);
  EXPECT_EQ(store::sqlite_failure_text(SQLITE_CONSTRAINT_UNIQUE, 0, "/d/s.db"), "");
  EXPECT_EQ(store::sqlite_failure_text(SQLITE_ERROR, ENOSPC, "/d/s.db"), "");  // errno not SQLite's cause here
}

TEST(OpenFilesMessage, StatesTheRealReasonOnly) {
  EXPECT_NE(unreadable_process_reason("7", "1000", EACCES, false, false, 0).find("not running as root"),
            std::string::npos);
  const std::string no_cap = unreadable_process_reason("7", "1000", EACCES, true, false, 0);
  EXPECT_NE(no_cap.find("lacks CAP_SYS_PTRACE"), std::string::npos) << no_cap;
  EXPECT_EQ(no_cap.find("not root"), std::string::npos) << no_cap;
  const std::string more_caps =
      unreadable_process_reason("1", "0", EACCES, true, true, uint64_t{1} << CAP_SYS_RESOURCE);
  EXPECT_NE(more_caps.find("CAP_SYS_RESOURCE"), std::string::npos) << more_caps;
  const std::string lsm = unreadable_process_reason("1", "0", EPERM, true, true, 0);
  EXPECT_NE(lsm.find("security module"), std::string::npos) << lsm;
}

TEST_F(TrustOutputsTest, HidepidIsReadFromTheProcMount) {
  write_file(dir_ / "mi",
             "22 27 0:21 / /proc rw,relatime - proc proc rw,hidepid=invisible\n"
             "23 27 0:22 / /sys rw - sysfs sysfs rw\n");
  EXPECT_EQ(proc_hidepid((dir_ / "mi").string()), "invisible");
  write_file(dir_ / "mi0", "22 27 0:21 / /proc rw,relatime - proc proc rw\n");
  EXPECT_EQ(proc_hidepid((dir_ / "mi0").string()), "");
}

// --- output files ---

TEST_F(TrustOutputsTest, OutputIsPublishedAndMissingDirectoriesAreCreated) {
  const fs::path p = dir_ / "a" / "b" / "report.csv";
  ASSERT_TRUE(write_output_file(p.string(), "x,y\n").ok());
  EXPECT_EQ(read_all(p), "x,y\n");
  EXPECT_EQ(fs::status(p).permissions() & fs::perms::all, fs::perms(0644));
  EXPECT_EQ(temps_left(), 0u);
}

TEST_F(TrustOutputsTest, SymlinkUnderTheOutputNameIsNeverFollowed) {
  write_file(dir_ / "victim", "secret");
  fs::create_symlink(dir_ / "victim", dir_ / "report.csv");
  Status st = write_output_file((dir_ / "report.csv").string(), "report");
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().stage, Stage::kConflict);
  EXPECT_NE(st.error().message.find("symbolic link"), std::string::npos) << st.error().message;
  EXPECT_EQ(read_all(dir_ / "victim"), "secret");
  EXPECT_TRUE(fs::is_symlink(dir_ / "report.csv"));
  EXPECT_EQ(temps_left(), 0u);
}

TEST_F(TrustOutputsTest, HardLinkUnderTheOutputNameIsNeverReplacedOrWritten) {
  write_file(dir_ / "victim", "secret");
  fs::create_hard_link(dir_ / "victim", dir_ / "report.csv");
  Status st = write_output_file((dir_ / "report.csv").string(), "report");
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("2 hard links"), std::string::npos) << st.error().message;
  EXPECT_EQ(read_all(dir_ / "victim"), "secret");
  EXPECT_EQ(fs::hard_link_count(dir_ / "victim"), 2u);
}

TEST_F(TrustOutputsTest, OurOwnPreviousReportIsReplacedWithoutBeingWrittenThrough) {
  const fs::path p = dir_ / "compare.html";
  ASSERT_TRUE(write_output_file(p.string(), "first").ok());
  const int old_fd = ::open(p.c_str(), O_RDONLY);  // the old file must keep its bytes
  ASSERT_GE(old_fd, 0);
  ASSERT_TRUE(write_output_file(p.string(), "second").ok());
  EXPECT_EQ(read_all(p), "second");
  char buf[16] = {};
  EXPECT_EQ(::pread(old_fd, buf, sizeof buf, 0), 5);
  EXPECT_STREQ(buf, "first");
  ::close(old_fd);
}

TEST_F(TrustOutputsTest, KeepPolicyNeverReplacesEvenOurOwnFile) {
  const fs::path p = dir_ / "export.csv";
  write_file(p, "earlier");
  Status st = write_output_file(p.string(), "new", OnExisting::kKeep);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().stage, Stage::kConflict);
  EXPECT_EQ(read_all(p), "earlier");
  EXPECT_EQ(temps_left(), 0u);
}

TEST_F(TrustOutputsTest, TempIsCreatedExclusivelyAndReachableThroughItsFdPath) {
  auto out = OutputFile::create((dir_ / "r.xlsx").string());
  ASSERT_TRUE(out.ok()) << out.error().to_string();
  struct stat st {};
  ASSERT_EQ(::fstat(out->fd(), &st), 0);
  EXPECT_TRUE(S_ISREG(st.st_mode));
  EXPECT_EQ(st.st_nlink, 1u);
  // A library writing by path through fd_path() reaches our temp, nothing else.
  { std::ofstream(out->fd_path(), std::ios::binary | std::ios::trunc) << "zip"; }
  ASSERT_TRUE(out->commit().ok());
  EXPECT_EQ(read_all(dir_ / "r.xlsx"), "zip");
  EXPECT_EQ(temps_left(), 0u);
}

TEST_F(TrustOutputsTest, AbandonedOutputLeavesNoTemp) {
  {
    auto out = OutputFile::create((dir_ / "r.csv").string());
    ASSERT_TRUE(out.ok());
    ASSERT_TRUE(out->write(std::string_view("partial")).ok());
  }
  EXPECT_EQ(temps_left(), 0u);
  EXPECT_FALSE(fs::exists(dir_ / "r.csv"));
}

TEST_F(TrustOutputsTest, OutputDirectoryComponentsWeCreateAreNeverSymlinks) {
  fs::create_directory(dir_ / "elsewhere");
  fs::create_symlink(dir_ / "elsewhere", dir_ / "out");
  // An existing path is opened as given (a path typed by the user); below it we create.
  ASSERT_TRUE(write_output_file((dir_ / "out" / "new" / "r.csv").string(), "r").ok());
  EXPECT_TRUE(fs::is_regular_file(dir_ / "elsewhere" / "new" / "r.csv"));
  EXPECT_FALSE(fs::is_symlink(dir_ / "elsewhere" / "new"));
}

// --- a name too long for its claim name ---

TEST_F(TrustOutputsTest, TooLongForItsClaimNameIsKeptAndSaidSo) {
  const std::string name = "mm_" + std::string(205, 'x') + "-aten.mm.default.INPUT.0.1700000000000000.npy";
  ASSERT_EQ(name.size(), 253u);
  write_file(dir_ / name, "raw");
  auto dir_fd = std::make_shared<const UniqueFd>(::open(dir_.c_str(), O_RDONLY | O_DIRECTORY));
  const int fd = ::openat(dir_fd->get(), name.c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  auto id = identity_of(fd, name);
  ASSERT_TRUE(id.ok());
  FileRef f{DirRef{dir_fd, dir_.string()}, name, (dir_ / name).string()};
  Status st = remove_if_same(f, fd, *id);
  ::close(fd);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("ENAMETOOLONG"), std::string::npos) << st.error().message;
  EXPECT_EQ(st.error().message.find("replaced"), std::string::npos) << st.error().message;
  EXPECT_TRUE(fs::exists(dir_ / name));
}

// --- sparse raw files ---

TEST_F(TrustOutputsTest, SparseFileIsRefusedBeforeAnyRead) {
  const fs::path p = dir_ / "sparse.npy";
  write_file(p, "head");
  fs::resize_file(p, uint64_t{64} << 20);
  const int fd = ::open(p.c_str(), O_RDONLY);
  struct stat st {};
  ASSERT_EQ(::fstat(fd, &st), 0);
  if (static_cast<uint64_t>(st.st_blocks) * 512 >= static_cast<uint64_t>(st.st_size) / 4) {
    ::close(fd);
    GTEST_SKIP() << "this filesystem does not keep holes";
  }
  Status s = refuse_sparse(fd, st, p.string());
  ::close(fd);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().stage, Stage::kIncomplete);
  EXPECT_NE(s.error().message.find("sparse file"), std::string::npos);
}

TEST_F(TrustOutputsTest, DenseAndSmallFilesAreNotSparse) {
  const fs::path dense = dir_ / "dense.bin";
  write_file(dense, std::string(2 << 20, 'x'));
  const fs::path small = dir_ / "small.bin";
  write_file(small, "x");
  fs::resize_file(small, 512 << 10);  // a hole, but below the 1 MiB floor
  for (const fs::path& p : {dense, small}) {
    const int fd = ::open(p.c_str(), O_RDONLY);
    struct stat st {};
    ASSERT_EQ(::fstat(fd, &st), 0);
    EXPECT_TRUE(refuse_sparse(fd, st, p.string()).ok()) << p;
    ::close(fd);
  }
}

// --- every layout of the user documentation is a dump root ---

TEST(DocumentedLayouts, EveryOneIsADumpRoot) {
  const std::string ge = "Add.Add_2.44.6.1706596912161941";
  const std::string fx = "add_1-aten.add.Tensor.OUTPUT.0.1700000000000001.npy";
  const std::vector<std::string> paths = {
      "d/msit_ge_dump/worldsize2_global_rank0/20250101000000/0/model/1/0/" + ge,  // torchair GE, PTA > 7.1.0
      "d/msit_ge_dump/20250101000000/0/model/1/0/" + ge,                          // PTA <= 7.1.0
      "d/dump_1700000000/20250101000000/0/model/1/0/" + ge,                       // graph-vs-eager, ait v0.2.1
      "d/msprobe_ge_dump/20250101000000/0/model/1/0/" + ge,                       // msProbe's port
      "out/20250101000000/0/Graph/1/0/" + ge,                                     // MindIE Torch (GE-style)
      "d/msit_fx_dump/worldsize2_global_rank0/model/0/" + fx,                     // torchair FX, PTA > 7.1.0
      "d/msit_fx_dump/data_dump/1/gm_1700000000_dump/" + fx,                      // PTA 7.1.0
      "./data_dump/1/gm_1700000000_dump/" + fx,                                   // PTA < 7.1.0
      "./gm_1700000000_dump/" + fx,                                               // ait v0.2.1
      "d/msprobe_fx_dump/model/0/" + fx,
      "D/ait_dump/tensors/0_1234/1234/0/0_Layer/after/outtensor0.bin",  // ATB
      "D/msit_dump_20240101_000000/tensors/0_1234/1234/0/0_Layer/before/intensor1.bin",
      "D/msit_dump_20240101_000000/torch_tensors/npu0_1234/1234/0/root.ln/output.pth",  // newer msit
      "D/ait_dump/torch_tensors/1234_npu0/0/root.ln/input_0.pth",                       // 2024-03 ait
      "torch_dump/1234_npu0/4321/root.layers.0.fc/output.pth",                          // DumpConfig(dump_path=...)
  };
  for (const std::string& p : paths) EXPECT_TRUE(is_dump_candidate_path(p)) << p;
}

// --- the torch hook layout of DumpConfig(dump_path=...) ---

TEST(TorchHookLayout, ProcessDirectoriesAreDumpRoots) {
  EXPECT_TRUE(is_dump_candidate_path("torch_dump/1234_npu0/0/root.layers.0.fc/output.pth"));
  EXPECT_TRUE(is_dump_candidate_path("/x/torch_dump/77_cpu/3/root.ln/input_0.pth"));
  EXPECT_TRUE(is_dump_candidate_path("/x/77_cuda1/3/root.ln/input_0_1.pth"));
  EXPECT_FALSE(is_dump_candidate_path("torch_dump/1234_npu0/model_tree.json"));
  EXPECT_FALSE(is_dump_candidate_path("torch_dump/1234_npu0/0/root.ln/statistics.csv"));
  EXPECT_FALSE(is_dump_candidate_path("torch_dump/1234_npu0/weights/root.fc.weight.pth"));
  EXPECT_FALSE(is_dump_candidate_path("torch_dump/1234_npux/0/root.ln/output.pth"));
  EXPECT_FALSE(is_dump_candidate_path("torch_dump/npu_0/0/root.ln/output.pth"));
  EXPECT_FALSE(is_dump_candidate_path("torch_dump/12a_npu0/0/root.ln/output.pth"));
  EXPECT_EQ(root_kind_of_name("1234_npu0"), DumpRootKind::kTorchTensors);
}

}  // namespace
}  // namespace msit
