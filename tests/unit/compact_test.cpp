// compact_file() and its batched form: the raw file goes only after a durable, matching summary.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "common/compaction/compact.h"
#include "common/compaction/compact_run.h"
#include "common/io/atomic_write.h"
#include "tests/unit/npy_fixture.h"

namespace fs = std::filesystem;

namespace msit {
namespace {

// A float32 .npy file (v1 header) of the given values.
using test::npy_bytes;

class CompactTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/msit-compact-test.XXXXXX";
    dir_ = ::mkdtemp(tmpl);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string write(const std::string& name, const std::string& bytes) {
    std::string p = dir_ + "/" + name;
    std::ofstream(p, std::ios::binary) << bytes;
    return p;
  }
  static std::string read(const std::string& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }

  std::string dir_;
  const std::string fx_name_ = "add_1-aten.add.Tensor.OUTPUT.0.20250101000000000000.npy";
};

TEST_F(CompactTest, WritesSummaryThenRemovesRaw) {
  std::string raw = write(fx_name_, npy_bytes({1.0f, -2.0f, 3.5f, 0.0f}));
  auto r = compact_file(raw, CompactOptions{});
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(r->kind, CompactResultKind::kCompacted);
  EXPECT_TRUE(r->raw_removed);
  EXPECT_FALSE(fs::exists(raw));
  auto s = read_summary_file(raw + ".summary.json");
  ASSERT_TRUE(s.ok()) << s.error().to_string();
  ASSERT_EQ(s->tensors.size(), 1u);
  EXPECT_EQ(*s->tensors[0].stats.min, -2.0);
  EXPECT_EQ(*s->tensors[0].stats.max, 3.5);
  EXPECT_EQ(s->tensors[0].stats.zero_count, 1u);
  EXPECT_EQ(s->tensors[0].role, "output");
  for (const auto& e : fs::directory_iterator(dir_)) EXPECT_FALSE(is_temp_name(e.path().filename().string()));
}

TEST_F(CompactTest, KeepRawAndDryRun) {
  std::string raw = write(fx_name_, npy_bytes({1.0f, 2.0f}));
  CompactOptions dry;
  dry.dry_run = true;
  auto r = compact_file(raw, dry);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->kind, CompactResultKind::kDryRun);
  EXPECT_TRUE(fs::exists(raw));
  EXPECT_FALSE(fs::exists(raw + ".summary.json"));

  CompactOptions keep;
  keep.raw = RawAction::kKeep;
  r = compact_file(raw, keep);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(fs::exists(raw));
  EXPECT_TRUE(fs::exists(raw + ".summary.json"));
  // A second run finds the summary up to date and keeps everything as is.
  r = compact_file(raw, keep);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->kind, CompactResultKind::kVerifiedExisting);
  // Deleting mode verifies the existing summary by hash, then removes the raw file.
  r = compact_file(raw, CompactOptions{});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->kind, CompactResultKind::kVerifiedExisting);
  EXPECT_FALSE(fs::exists(raw));
}

TEST_F(CompactTest, RawChangedAfterReadIsKept) {
  std::string raw = write(fx_name_, npy_bytes({1.0f, 2.0f}));
  auto p = prepare_summary(raw, CompactOptions{});
  ASSERT_TRUE(p.ok());
  std::string changed = npy_bytes({5.0f, 6.0f, 7.0f});
  write(fx_name_, changed);  // the writer rewrote it in between
  std::vector<PreparedSummary> batch;
  batch.push_back(std::move(p).value());
  auto results = publish_summaries(std::move(batch));
  ASSERT_FALSE(results[0].ok());
  EXPECT_NE(results[0].error().to_string().find("changed"), std::string::npos);
  EXPECT_EQ(read(raw), changed);
}

TEST_F(CompactTest, CorruptAndTruncatedFilesAreNeverDeleted) {
  std::string good = npy_bytes({1.0f, 2.0f, 3.0f});
  std::string truncated = write("t-aten.x.OUTPUT.0.20250101000000000000.npy", good.substr(0, good.size() - 3));
  std::string garbage = write("Add.Add_2.44.6.1706596912161941", std::string("\x05\0\0\0\0\0\0\0garbage!!", 17));
  std::string empty = write("Mul.Mul_1.45.6.1706596912161942", "");
  for (const auto& p : {truncated, garbage, empty}) {
    std::string before = read(p);
    auto r = compact_file(p, CompactOptions{});
    ASSERT_FALSE(r.ok()) << p;
    EXPECT_NE(r.error().to_string().find(p), std::string::npos) << r.error().to_string();
    EXPECT_EQ(read(p), before);
    EXPECT_FALSE(fs::exists(p + ".summary.json"));
  }
}

TEST_F(CompactTest, SymlinksAreNotFollowed) {
  std::string target = write(fx_name_, npy_bytes({1.0f}));
  std::string link = dir_ + "/link-aten.x.OUTPUT.0.20250101000000000000.npy";
  ASSERT_EQ(::symlink(target.c_str(), link.c_str()), 0);
  auto r = compact_file(link, CompactOptions{});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().to_string().find("symbolic link"), std::string::npos);
  EXPECT_TRUE(fs::exists(target));
  EXPECT_TRUE(fs::is_symlink(link));
}

TEST_F(CompactTest, FailedRenameKeepsRaw) {
  std::string raw = write(fx_name_, npy_bytes({1.0f, 2.0f}));
  fs::create_directory(raw + ".summary.json");  // rename onto a directory fails
  fs::create_directory(raw + ".summary.json/x");
  auto r = compact_file(raw, CompactOptions{});
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(fs::exists(raw));
  for (const auto& e : fs::directory_iterator(dir_)) EXPECT_FALSE(is_temp_name(e.path().filename().string()));
}

TEST_F(CompactTest, MsitFormatWritesMinMaxNpy) {
  std::string raw = write(fx_name_, npy_bytes({1.0f, -4.0f, 2.0f}));
  CompactOptions opts;
  opts.format = SummaryFormat::kMsit;
  auto r = compact_file(raw, opts);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  std::string mm = dir_ + "/add_1-aten.add.Tensor.OUTPUT.0.20250101000000000000_min_max.npy";
  EXPECT_EQ(r->summary_path, mm);
  EXPECT_TRUE(fs::exists(mm));
  EXPECT_FALSE(fs::exists(raw));
}

TEST_F(CompactTest, RunCompactCountsEverythingAndCleansTemps) {
  fs::create_directory(dir_ + "/msit_fx_dump");
  write("msit_fx_dump/" + fx_name_, npy_bytes({1.0f, 2.0f}));
  write("msit_fx_dump/b-aten.mul.Tensor.INPUT.0.20250101000000000000.npy", npy_bytes({3.0f}));
  write("msit_fx_dump/.msit-tmp.stale.summary.json.abc123", R"({"created_by":"msit-compact 0)");  // cut short
  write("msit_fx_dump/notes.bin.weird", "hello");
  write("embeddings.npy", npy_bytes({4.0f}));  // a user's array outside any dump root
  write("dynamo_original_graph_1_rank_0_pid_1_ts_1.txt", "op {}");
  fs::create_directory(dir_ + "/msit_fx_dump/sub");
  ASSERT_EQ(::symlink("/etc", (dir_ + "/msit_fx_dump/sub/outside").c_str()), 0);
  CompactRunOptions opts;
  opts.jobs = 2;
  CompactReport rep = run_compact({dir_}, opts, nullptr);
  EXPECT_EQ(rep.candidates, 2u);
  EXPECT_EQ(rep.compacted, 2u);
  EXPECT_EQ(rep.raw_removed, 2u);
  EXPECT_EQ(rep.temp_removed, 1u);
  EXPECT_EQ(rep.failures.size(), 0u);
  EXPECT_EQ(rep.symlinks.size(), 1u);
  ASSERT_EQ(rep.left_alone.size(), 2u);
  EXPECT_EQ(rep.left_alone[0].reason, LeftAlone::kNotUnderDumpRoot);  // embeddings.npy
  EXPECT_EQ(rep.left_alone[1].reason, LeftAlone::kNotADumpName);      // notes.bin.weird
  EXPECT_TRUE(fs::exists(dir_ + "/embeddings.npy"));
  // Idempotent: nothing left to do.
  CompactReport again = run_compact({dir_}, opts, nullptr);
  EXPECT_EQ(again.candidates, 0u);
}

// Summaries committed behind the reading (publish pipeline; commits of 1, 4 or up to 64 entries):
// every file is summarised and removed, the last partial commit included.
TEST_F(CompactTest, RunCompactPublishesEveryPipelinedBatch) {
  fs::create_directory(dir_ + "/msit_fx_dump");
  constexpr int kFiles = 37;
  for (int i = 0; i < kFiles; ++i) {
    write("msit_fx_dump/op" + std::to_string(i) + "-aten.add.Tensor.OUTPUT.0.2025010100000000" +
              std::to_string(1000 + i) + ".npy",
          npy_bytes({float(i), 2.0f * float(i)}));
  }
  for (size_t batch_size : {size_t{1}, size_t{4}, size_t{64}}) {
    CompactRunOptions opts;
    opts.jobs = 2;
    opts.batch_size = batch_size;
    opts.file.raw = RawAction::kKeep;
    CompactReport rep = run_compact({dir_}, opts, nullptr);
    EXPECT_EQ(rep.candidates, size_t{kFiles});
    EXPECT_EQ(rep.compacted + rep.verified, size_t{kFiles}) << batch_size;
    EXPECT_EQ(rep.failures.size(), 0u);
  }
  CompactRunOptions opts;
  opts.jobs = 2;
  opts.batch_size = 1;  // every file its own commit
  CompactReport rep = run_compact({dir_}, opts, nullptr);
  EXPECT_EQ(rep.verified, size_t{kFiles});
  EXPECT_EQ(rep.raw_removed, size_t{kFiles});
  EXPECT_EQ(rep.failures.size(), 0u);
  for (const auto& e : fs::directory_iterator(dir_ + "/msit_fx_dump")) {
    EXPECT_NE(e.path().extension(), ".npy") << e.path();
  }
}

}  // namespace
}  // namespace msit
