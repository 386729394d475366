// SmallFileBatch gives, file by file, what read_small_file_into gives: the same bytes with the
// same zero padding, the same error for every kind of bad entry, through io_uring or without.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "common/io/batch_read.h"
#include "common/io/file.h"

namespace msit {
namespace {

namespace fs = std::filesystem;

class BatchReadTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/msit_batch_XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    fs::create_directories(dir_ + "/a");
    fs::create_directories(dir_ + "/b");
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string write(const std::string& rel, const std::string& bytes) {
    std::string p = dir_ + "/" + rel;
    std::ofstream(p, std::ios::binary) << bytes;
    return p;
  }

  // What the one-by-one reader says about path: its bytes, or its error text.
  static std::string expected(const std::string& path, size_t max_bytes) {
    std::string out;
    size_t size = 0;
    Status st = read_small_file_into(path, max_bytes, 0, out, size);
    return st.ok() ? "ok:" + out.substr(0, size) : "error:" + st.error().to_string();
  }
  static std::string got(const SmallFileBatch& b, size_t i) {
    auto r = b.contents(i);
    return r.ok() ? "ok:" + std::string(*r) : "error:" + r.error().to_string();
  }

  std::string dir_;
};

TEST_P(BatchReadTest, EveryEntryReadsAsTheOneByOneReaderReadsIt) {
  std::vector<std::string> paths;
  for (int i = 0; i < 70; ++i) {  // more than one batch of 32, files alternating between two dirs
    paths.push_back(write(std::string(i % 2 ? "a" : "b") + "/f" + std::to_string(i) + ".json",
                          std::string(static_cast<size_t>(i * 37 % 900 + 1), static_cast<char>('a' + i % 26))));
  }
  paths.push_back(write("a/empty.json", ""));
  paths.push_back(write("a/exactly_slot.json", std::string(4096 - 64, 'x')));  // fills the slot: re-read
  paths.push_back(write("a/big.json", std::string(10000, 'y')));               // larger than the slot
  paths.push_back(write("a/over_limit.json", std::string(3000, 'z')));         // beyond max_bytes below
  paths.push_back(dir_ + "/a/missing.json");
  paths.push_back(dir_ + "/a");  // a directory
  fs::create_symlink(paths[0], dir_ + "/a/link.json");
  paths.push_back(dir_ + "/a/link.json");
  ASSERT_EQ(::mkfifo((dir_ + "/a/fifo.json").c_str(), 0600), 0);
  paths.push_back(dir_ + "/a/fifo.json");
  paths.push_back("relative-name-that-does-not-exist.json");

  const size_t kMax = 2900, kPadding = 64;
  SmallFileBatch batch(32, 4096, kPadding, GetParam());
  RecordProperty("io_uring", batch.uses_ring() ? "yes" : "no");
  for (size_t begin = 0; begin < paths.size(); begin += 32) {
    std::vector<const std::string*> chunk;
    for (size_t i = begin; i < std::min(paths.size(), begin + 32); ++i) chunk.push_back(&paths[i]);
    batch.read(chunk, kMax);
    ASSERT_EQ(batch.size(), chunk.size());
    for (size_t k = 0; k < chunk.size(); ++k) {
      EXPECT_EQ(got(batch, k), expected(*chunk[k], kMax)) << *chunk[k];
      if (auto r = batch.contents(k); r.ok()) {
        for (size_t p = 0; p < kPadding; ++p) ASSERT_EQ(r->data()[r->size() + p], '\0') << *chunk[k];
      }
    }
  }
}

TEST_P(BatchReadTest, ContentsStayValidUntilTheNextRead) {
  std::string p1 = write("a/one.json", "first"), p2 = write("b/two.json", "second");
  SmallFileBatch batch(4, 4096, 16, GetParam());
  batch.read({&p1, &p2}, 1000);
  std::string_view one = *batch.contents(0), two = *batch.contents(1);
  EXPECT_EQ(one, "first");
  EXPECT_EQ(two, "second");
  batch.read({&p2}, 1000);
  EXPECT_EQ(*batch.contents(0), "second");
}

// Token directories hold files of the same name: a batch spanning more directories than the
// reader keeps fds for must still open every name in its own directory.
TEST_P(BatchReadTest, SameNamesInManyDirectoriesEachReadFromTheirOwn) {
  std::vector<std::string> paths;
  for (int round = 0; round < 3; ++round) {
    for (int d = 0; d < 20; ++d) {
      std::string dir = "tok" + std::to_string(d);
      fs::create_directories(dir_ + "/" + dir);
      std::string name = dir + "/same" + std::to_string(round) + ".json";
      paths.push_back(write(name, "dir " + std::to_string(d) + " round " + std::to_string(round)));
    }
  }
  std::vector<const std::string*> ptrs;
  for (const auto& p : paths) ptrs.push_back(&p);
  SmallFileBatch batch(64, 4096, 8, GetParam());
  for (int pass = 0; pass < 2; ++pass) {  // the second pass starts with a trimmed fd cache
    batch.read(ptrs, 100);
    for (size_t i = 0; i < paths.size(); ++i) { EXPECT_EQ(got(batch, i), expected(paths[i], 100)) << paths[i]; }
  }
}

TEST_P(BatchReadTest, MoreFilesThanSlotsAreAllRead) {
  std::vector<std::string> paths;
  for (int i = 0; i < 7; ++i) paths.push_back(write("a/g" + std::to_string(i), "file " + std::to_string(i)));
  std::vector<const std::string*> ptrs;
  for (const auto& p : paths) ptrs.push_back(&p);
  SmallFileBatch batch(3, 4096, 8, GetParam());
  batch.read(ptrs, 100);
  ASSERT_EQ(batch.size(), paths.size());
  for (size_t i = 0; i < paths.size(); ++i) EXPECT_EQ(*batch.contents(i), "file " + std::to_string(i));
}

TEST_P(BatchReadTest, AFileChangedBetweenBatchesIsReadAgain) {
  std::string p = write("a/f.json", "old");
  SmallFileBatch batch(2, 4096, 8, GetParam());
  batch.read({&p}, 100);
  EXPECT_EQ(*batch.contents(0), "old");
  write("a/f.json", "new contents");
  batch.read({&p}, 100);
  EXPECT_EQ(*batch.contents(0), "new contents");
}

// The ring path where this kernel allows io_uring (else it falls back and the case still holds),
// and the one-by-one path.
INSTANTIATE_TEST_SUITE_P(Paths, BatchReadTest, ::testing::Values(true, false),
                         [](const ::testing::TestParamInfo<bool>& i) { return i.param ? "Ring" : "OneByOne"; });

}  // namespace
}  // namespace msit
