// `compact --quarantine`: bad files are moved inside their tree only, never through a symlink,
// never over an existing file; and the size/time formatting every command prints.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "common/base/human_units.h"
#include "common/compaction/option_limits.h"
#include "common/safety/quarantine.h"

namespace fs = std::filesystem;

namespace msit {
namespace {

class QuarantineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/msit-quarantine-test.XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    root_ = tmpl;
    auto fd = open_trusted_dir(root_);
    ASSERT_TRUE(fd.ok());
    dir_ = DirRef{std::make_shared<const UniqueFd>(std::move(fd).value()), root_};
  }
  void TearDown() override { fs::remove_all(root_); }

  void write(const std::string& rel, const std::string& text) {
    fs::create_directories(fs::path(root_ + "/" + rel).parent_path());
    std::ofstream(root_ + "/" + rel) << text;
  }
  std::string read(const std::string& rel) {
    std::ifstream in(root_ + "/" + rel);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }

  std::string root_;
  DirRef dir_;
};

TEST_F(QuarantineTest, MovesTheFileToTheSameRelativePathBelowTheQuarantine) {
  write("msit_ge_dump/0/Add.Add_1.1.1.1", "bad");
  auto moved = quarantine_file(dir_, "msit_ge_dump/0/Add.Add_1.1.1.1", "q/bad");
  ASSERT_TRUE(moved.ok()) << moved.error().to_string();
  EXPECT_EQ(*moved, root_ + "/q/bad/msit_ge_dump/0/Add.Add_1.1.1.1");
  EXPECT_FALSE(fs::exists(root_ + "/msit_ge_dump/0/Add.Add_1.1.1.1"));
  EXPECT_EQ(read("q/bad/msit_ge_dump/0/Add.Add_1.1.1.1"), "bad");
}

TEST_F(QuarantineTest, NeverReplacesAFileAlreadyInTheQuarantine) {
  write("d/f", "new");
  write("q/d/f", "old");
  auto moved = quarantine_file(dir_, "d/f", "q");
  ASSERT_FALSE(moved.ok());
  EXPECT_NE(moved.error().message.find("left in place"), std::string::npos);
  EXPECT_EQ(read("d/f"), "new");
  EXPECT_EQ(read("q/d/f"), "old");
}

TEST_F(QuarantineTest, NeverFollowsASymlinkedQuarantineOrSourceDirectory) {
  char out_tmpl[] = "/tmp/msit-quarantine-out.XXXXXX";
  ASSERT_NE(::mkdtemp(out_tmpl), nullptr);
  const std::string outside = out_tmpl;
  write("d/f", "bad");
  fs::create_symlink(outside, root_ + "/q");
  EXPECT_FALSE(quarantine_file(dir_, "d/f", "q").ok());
  EXPECT_TRUE(fs::is_empty(outside));
  EXPECT_EQ(read("d/f"), "bad");
  fs::create_symlink(root_ + "/d", root_ + "/link");
  EXPECT_FALSE(quarantine_file(dir_, "link/f", "q2").ok());
  EXPECT_EQ(read("d/f"), "bad");
  fs::remove_all(outside);
}

TEST_F(QuarantineTest, OnlyRegularFilesAndOnlyInsideTheTree) {
  fs::create_directories(root_ + "/d/sub");
  EXPECT_FALSE(quarantine_file(dir_, "d/sub", "q").ok());
  write("d/f", "bad");
  EXPECT_FALSE(quarantine_file(dir_, "d/f", "../q").ok());
  EXPECT_FALSE(quarantine_file(dir_, "d/f", "/tmp/q").ok());
  EXPECT_FALSE(check_quarantine_dir("a/../../b").ok());
  EXPECT_FALSE(check_quarantine_dir("").ok());
  EXPECT_TRUE(check_quarantine_dir("a/b").ok());
  EXPECT_EQ(read("d/f"), "bad");
}

TEST(HumanUnits, BytesAreIecEverywhere) {
  EXPECT_EQ(human_bytes(0), "0 B");
  EXPECT_EQ(human_bytes(1023), "1023 B");
  EXPECT_EQ(human_bytes(1024), "1.0 KiB");
  EXPECT_EQ(human_bytes(1536), "1.5 KiB");
  EXPECT_EQ(human_bytes(5ull << 30), "5.0 GiB");
  EXPECT_EQ(human_bytes(UINT64_MAX), "16.0 EiB");
}

TEST(HumanUnits, DurationsAndTimes) {
  EXPECT_EQ(human_duration_ms(250), "250 ms");
  EXPECT_EQ(human_duration_ms(1800), "1.8 s");
  EXPECT_EQ(human_duration_ms(75'000), "1 min 15 s");
  EXPECT_EQ(human_duration_ms(7'380'000), "2 h 03 min");
  EXPECT_EQ(human_duration_ms(-1), "-");
  ::setenv("TZ", "UTC", 1);
  ::tzset();
  EXPECT_EQ(human_time_ns(1'748'764'800'123'456'789), "2025-06-01 08:00:00.123456789 +0000");
  EXPECT_EQ(human_time_ns(-1), "1969-12-31 23:59:59.999999999 +0000");
}

TEST(OptionLimits, SketchWidthIsAPowerOfTwoInRange) {
  EXPECT_TRUE(is_valid_sketch_width(kSketchWidth.def));
  EXPECT_TRUE(is_valid_sketch_width(2));
  EXPECT_TRUE(is_valid_sketch_width(65536));
  EXPECT_FALSE(is_valid_sketch_width(1));
  EXPECT_FALSE(is_valid_sketch_width(100));
  EXPECT_FALSE(is_valid_sketch_width(131072));
  EXPECT_TRUE(kZstdLevel.contains(-7));
  EXPECT_FALSE(kZstdLevel.contains(20));
}

}  // namespace
}  // namespace msit
