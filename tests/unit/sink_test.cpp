// The summary sinks (common/compaction/sink.h): which one a file gets, what each reports, and
// the archive decorator's order (its archive is renamed only after its summary).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "common/compaction/compact.h"
#include "common/io/atomic_write.h"
#include "common/io/derived_names.h"
#include "tests/unit/npy_fixture.h"

namespace fs = std::filesystem;

namespace msit {
namespace {

class SinkTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/msit-sink-test.XXXXXX";
    dir_ = ::mkdtemp(tmpl);
    raw_ = dir_ + "/add_1-aten.add.Tensor.OUTPUT.0.20250101000000000000.npy";
    std::ofstream(raw_, std::ios::binary) << test::npy_bytes({1.0f, -2.0f, 3.5f, 0.0f});
  }
  void TearDown() override { fs::remove_all(dir_); }

  static CompactOptions with(SummaryFormat format, RawAction raw = RawAction::kDelete) {
    CompactOptions o;
    o.format = format;
    o.raw = raw;
    return o;
  }
  bool leftover_temps() const {
    for (const auto& e : fs::directory_iterator(dir_)) {
      if (is_temp_name(e.path().filename().string())) return true;
    }
    return false;
  }

  std::string dir_, raw_;
};

TEST_F(SinkTest, EachFileFormatReportsItsOwnFileAndSize) {
  for (SummaryFormat f : {SummaryFormat::kRich, SummaryFormat::kMsit}) {
    CompactOptions o = with(f);
    o.dry_run = true;
    auto p = prepare_summary(raw_, o);
    ASSERT_TRUE(p.ok()) << p.error().to_string();
    ASSERT_NE(p->sink, nullptr);
    EXPECT_EQ(p->sink->path(), summary_path_for(raw_, f));
    EXPECT_GT(p->sink->bytes(), 0u);
    EXPECT_EQ(p->sink->archive_path(), "");
  }
  EXPECT_TRUE(fs::exists(raw_));
  EXPECT_FALSE(leftover_temps());
}

TEST_F(SinkTest, StoreDryRunEstimatesRowsWithoutAStore) {
  CompactOptions o = with(SummaryFormat::kStore);
  o.dry_run = true;
  auto p = prepare_summary(raw_, o);
  ASSERT_TRUE(p.ok()) << p.error().to_string();
  EXPECT_EQ(p->sink->path(), "");
  EXPECT_GT(p->sink->bytes(), 0u);
  EXPECT_FALSE(fs::exists(dir_ + "/" + std::string(kStoreFileName)));
}

TEST_F(SinkTest, StoreWithoutRegistryIsAnErrorAndKeepsTheRaw) {
  auto p = prepare_summary(raw_, with(SummaryFormat::kStore));
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().stage, Stage::kStore);
  EXPECT_TRUE(fs::exists(raw_));
}

TEST_F(SinkTest, ArchiveReportsSummaryPlusArchiveBytes) {
  auto p = prepare_summary(raw_, with(SummaryFormat::kRich, RawAction::kArchive));
  ASSERT_TRUE(p.ok()) << p.error().to_string();
  const std::string archive = p->sink->archive_path();
  EXPECT_EQ(archive, archive_name_for(raw_));
  std::vector<PreparedSummary> batch;
  batch.push_back(std::move(p).value());
  auto r = publish_summaries(std::move(batch));
  ASSERT_TRUE(r[0].ok()) << r[0].error().to_string();
  EXPECT_TRUE(r[0]->raw_removed);
  EXPECT_EQ(r[0]->archive_path, archive);
  EXPECT_EQ(r[0]->summary_bytes, fs::file_size(summary_name_for(raw_)) + fs::file_size(archive));
  EXPECT_FALSE(leftover_temps());
}

// The summary is published before the archive: when the summary cannot be, no archive appears
// and its temp is removed; the raw file stays.
TEST_F(SinkTest, ArchiveIsNotPublishedWhenItsSummaryCannotBe) {
  auto p = prepare_summary(raw_, with(SummaryFormat::kRich, RawAction::kArchive));
  ASSERT_TRUE(p.ok()) << p.error().to_string();
  std::ofstream(summary_name_for(raw_)) << "somebody else's file";  // appears before the rename
  std::vector<PreparedSummary> batch;
  batch.push_back(std::move(p).value());
  auto r = publish_summaries(std::move(batch));
  ASSERT_FALSE(r[0].ok());
  EXPECT_TRUE(fs::exists(raw_));
  EXPECT_FALSE(fs::exists(archive_name_for(raw_)));
  EXPECT_FALSE(leftover_temps());
}

}  // namespace
}  // namespace msit
