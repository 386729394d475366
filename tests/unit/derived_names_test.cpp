// The one home of derived file names: summary, old-converter, archive names and their inverse,
// as classify_name() reads them back; and the directory listing every scanner uses.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "common/base/unique_fd.h"
#include "common/formats/dump_name.h"
#include "common/io/derived_names.h"
#include "common/io/tree_walk.h"

namespace msit {
namespace {

TEST(DerivedNames, EachDerivedNameClassifiesBackToItsRawName) {
  const std::string ge = "Add.Add_1.1.6.1706596912100001";
  const std::string fx = "mm-aten.mm.default.OUTPUT.0.20250601080000048000.npy";
  EXPECT_EQ(summary_name_for(ge), ge + ".summary.json");
  EXPECT_EQ(min_max_name_for(ge), ge + "_min_max.npz");
  EXPECT_EQ(min_max_name_for(fx), "mm-aten.mm.default.OUTPUT.0.20250601080000048000_min_max.npy");
  EXPECT_EQ(archive_name_for("/d/" + ge), "/d/" + ge + ".zst");
  for (const std::string& raw : {ge, fx}) {
    for (const std::string& derived : {summary_name_for(raw), min_max_name_for(raw), archive_name_for(raw)}) {
      NameInfo info = classify_name(derived);
      EXPECT_EQ(info.raw_name, raw) << derived;
    }
  }
}

TEST(DerivedNames, ArchiveSuffixNeedsANameBeforeIt) {
  EXPECT_TRUE(is_archive_name("a.zst"));
  EXPECT_TRUE(is_archive_name("/dir/a.zst"));
  EXPECT_FALSE(is_archive_name(".zst"));
  EXPECT_FALSE(is_archive_name("a.zstd"));
  EXPECT_EQ(without_archive_suffix("x.bin.zst"), "x.bin");
  EXPECT_EQ(without_archive_suffix(".zst"), ".zst");
  EXPECT_EQ(without_archive_suffix("x.bin"), "x.bin");
  EXPECT_EQ(classify_name(std::string(kTempPrefix) + "x").kind, NameKind::kTemp);
  EXPECT_EQ(classify_name(std::string(kClaimPrefix) + "abcdef.x").kind, NameKind::kClaim);
  EXPECT_EQ(classify_name(kLockName).kind, NameKind::kLock);
}

TEST(ListDir, TypesEntriesWithoutFollowingSymlinksAndKeepsTheCallersFd) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("msit-list-dir-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "sub");
  std::ofstream(dir / "file") << "x";
  fs::create_directory_symlink(dir / "sub", dir / "link");
  UniqueFd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  ASSERT_TRUE(fd.valid());
  for (int round = 0; round < 2; ++round) {  // the second listing of the same fd sees everything again
    std::map<std::string, EntryType> seen;
    ASSERT_TRUE(list_dir_fd(fd.get(), dir, [&](std::string_view n, EntryType t) { seen[std::string(n)] = t; }).ok());
    EXPECT_EQ(seen, (std::map<std::string, EntryType>{
                        {"file", EntryType::kFile}, {"link", EntryType::kSymlink}, {"sub", EntryType::kDirectory}}));
  }
  struct stat st {};
  EXPECT_EQ(::fstat(fd.get(), &st), 0);
  Status missing = list_dir_path((dir / "nope").string(), [](std::string_view, EntryType) {});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().sys_errno, ENOENT);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace msit
