// Archive mode: byte shuffle (SIMD vs the definition), the container round trip over every
// element size and block boundary, compact --archive's safety order, restore, and rejection
// of corrupt, truncated and foreign archives.
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>

#include <gtest/gtest.h>

#include "common/archive/archive_source.h"
#include "common/archive/archive_writer.h"
#include "common/archive/restore.h"
#include "common/archive/shuffle.h"
#include "common/compaction/compact.h"
#include "common/formats/dump_reader.h"
#include "common/io/file.h"
#include "tests/tools/dumpgen/gen_npy.h"

namespace msit {
namespace {

namespace fs = std::filesystem;
using Bytes = std::vector<std::byte>;

Bytes random_bytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  Bytes b(n);
  for (auto& x : b) x = std::byte(rng() & 0xff);
  return b;
}

TEST(Shuffle, MatchesDefinitionAndInverts) {
  for (size_t elem : {1, 2, 3, 4, 8}) {
    for (size_t len : {0, 1, 7, 64, 255, 1000, 4099, 65536 + 5}) {
      SCOPED_TRACE(testing::Message() << "elem " << elem << " len " << len);
      Bytes in = random_bytes(len, static_cast<uint32_t>(len * 31 + elem));
      Bytes out(len), back(len);
      archive::shuffle_bytes(in.data(), out.data(), len, elem);
      const size_t n = elem > len ? 0 : len / elem;
      if (elem > 1 && n > 0) {
        for (size_t i = 0; i < n; ++i)
          for (size_t j = 0; j < elem; ++j) ASSERT_EQ(out[j * n + i], in[i * elem + j]);
        for (size_t k = n * elem; k < len; ++k) ASSERT_EQ(out[k], in[k]);
      } else {
        EXPECT_EQ(out, in);
      }
      archive::unshuffle_bytes(out.data(), back.data(), len, elem);
      EXPECT_EQ(back, in);
    }
  }
}

class ArchiveTest : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("msit-archive-test." + std::to_string(::getpid()) + "." +
                                        testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // An npy file of `n` elements of descr (payload of random bytes, valid for any dtype).
  std::string write_npy(const std::string& name, const std::string& descr, size_t elem, size_t n, uint32_t seed) {
    std::string head = dumpgen::npy_header(descr, {n});
    Bytes payload = random_bytes(n * elem, seed);
    const std::string path = (dir_ / name).string();
    std::ofstream f(path, std::ios::binary);
    f.write(head.data(), static_cast<std::streamsize>(head.size()));
    f.write(reinterpret_cast<const char*>(payload.data()), static_cast<std::streamsize>(payload.size()));
    return path;
  }

  static std::string slurp(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(f), {});
  }

  // Writes the archive of `path` with the given options and publishes it; returns its path.
  static std::string archive_of(const std::string& path, const archive::ArchiveOptions& opts) {
    auto fd = open_regular_nofollow(path);
    EXPECT_TRUE(fd.ok());
    auto id = identity_of(fd->get(), path);
    auto raw = read_dump_header(fd->get(), path, *id);
    EXPECT_TRUE(raw.ok()) << raw.error().to_string();
    FileSource src(fd->get(), path, id->size);
    auto f = file_ref_of_path(path);
    EXPECT_TRUE(f.ok());
    auto w = archive::write_verified_archive_temp(src, *raw, *id, 0640, opts, f->dir, f->name);
    EXPECT_TRUE(w.ok()) << w.error().to_string();
    EXPECT_TRUE(w->temp.publish().ok());
    return w->final_path;
  }

  fs::path dir_;
};

TEST_F(ArchiveTest, RoundTripEveryElementSizeAndBlockBoundary) {
  struct Case {
    const char* descr;
    size_t elem;
    size_t n;
  };
  const Case cases[] = {{"<f2", 2, 70001}, {"<f4", 4, 33333}, {">f4", 4, 1025}, {"<f8", 8, 9000},
                        {"<c8", 8, 5001},  {"|u1", 1, 12345}, {"|b1", 1, 3},    {"<i8", 8, 0}};
  for (uint32_t block : {4096u, 65536u, 1u << 20}) {
    for (int workers : {1, 3}) {
      for (const Case& c : cases) {
        SCOPED_TRACE(testing::Message() << c.descr << " block " << block << " workers " << workers);
        const std::string raw = write_npy(std::string("t") + std::to_string(c.n) + ".npy", c.descr, c.elem, c.n, 5);
        archive::ArchiveOptions o;
        o.block_bytes = block;
        o.workers = workers;
        const std::string arc = archive_of(raw, o);
        auto a = archive::ArchiveSource::open(arc);
        ASSERT_TRUE(a.ok()) << a.error().to_string();
        std::string decoded;
        ASSERT_TRUE((*a)->verify([&](std::span<const std::byte> b) {
                          decoded.append(reinterpret_cast<const char*>(b.data()), b.size());
                          return ok_status();
                        })
                        .ok());
        EXPECT_EQ(decoded, slurp(raw));
        // Random access across block boundaries.
        std::mt19937 rng(3);
        for (int k = 0; k < 50 && !decoded.empty(); ++k) {
          const size_t off = rng() % decoded.size();
          const size_t len = std::min<size_t>(rng() % (3 * block), decoded.size() - off);
          std::string got(len, '\0');
          ASSERT_TRUE((*a)->read_at(off, std::as_writable_bytes(std::span<char>(got)), Stage::kRead).ok());
          ASSERT_EQ(got, decoded.substr(off, len));
        }
        fs::remove(arc);
      }
    }
  }
}

TEST_F(ArchiveTest, ShuffleFollowsThePayloadAndSummariesMatchTheRawFile) {
  const std::string raw = write_npy("x.npy", "<f4", 4, 100000, 9);
  auto fd = open_regular_nofollow(raw);
  auto id = identity_of(fd->get(), raw);
  auto hdr = read_dump_header(fd->get(), raw, *id);
  ASSERT_TRUE(hdr.ok());
  auto segs = archive::segments_for(*hdr, id->size);
  ASSERT_EQ(segs.size(), 2u);
  EXPECT_EQ(segs[0].elem, 1u);
  EXPECT_EQ(segs[1].offset, hdr->tensors[0].payload_offset);
  EXPECT_EQ(segs[1].elem, 4u);
  const std::string arc = archive_of(raw, {});
  auto from_raw = summarize_raw_file(raw, StatsOptions{});
  auto from_arc = summarize_raw_file(arc, StatsOptions{});
  ASSERT_TRUE(from_raw.ok() && from_arc.ok()) << (from_arc.ok() ? "" : from_arc.error().to_string());
  EXPECT_EQ(from_arc->source_name, "x.npy");
  ASSERT_EQ(from_arc->tensors.size(), 1u);
  EXPECT_EQ(from_arc->tensors[0].xxh3_64, from_raw->tensors[0].xxh3_64);
  EXPECT_EQ(from_arc->tensors[0].stats.min, from_raw->tensors[0].stats.min);
  EXPECT_EQ(from_arc->tensors[0].stats.max, from_raw->tensors[0].stats.max);
}

TEST_F(ArchiveTest, CompactArchiveReplacesRawAndRestoreBringsItBack) {
  const std::string raw = write_npy("y.npy", "<f2", 2, 300000, 4);
  const std::string original = slurp(raw);
  struct stat before {};
  ASSERT_EQ(::stat(raw.c_str(), &before), 0);
  CompactOptions o;
  o.raw = RawAction::kArchive;
  auto r = compact_file(raw, o);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_TRUE(r->raw_removed);
  EXPECT_EQ(r->archive_path, raw + ".zst");
  EXPECT_FALSE(fs::exists(raw));
  EXPECT_TRUE(fs::exists(raw + ".zst"));
  EXPECT_TRUE(fs::exists(raw + ".summary.json"));

  auto back = archive::restore_archive(raw + ".zst", {});
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  EXPECT_TRUE(back->archive_removed);
  EXPECT_EQ(slurp(raw), original);
  struct stat after {};
  ASSERT_EQ(::stat(raw.c_str(), &after), 0);
  EXPECT_EQ(after.st_mtim.tv_sec, before.st_mtim.tv_sec);
  EXPECT_EQ(after.st_mtim.tv_nsec, before.st_mtim.tv_nsec);
  EXPECT_EQ(after.st_mode & 07777, before.st_mode & 07777);
}

TEST_F(ArchiveTest, RestoreNeverOverwritesADifferentFile) {
  const std::string raw = write_npy("z.npy", "<f4", 4, 1000, 1);
  const std::string arc = archive_of(raw, {});
  // Same content present (an interrupted restore): accepted, archive removed.
  auto same = archive::restore_archive(arc, {});
  ASSERT_TRUE(same.ok()) << same.error().to_string();
  EXPECT_TRUE(same->already_present);
  const std::string arc2 = archive_of(raw, {});
  std::ofstream(raw, std::ios::binary | std::ios::trunc) << "something else";
  auto other = archive::restore_archive(arc2, {});
  ASSERT_FALSE(other.ok());
  EXPECT_NE(other.error().message.find("not overwritten"), std::string::npos);
  EXPECT_TRUE(fs::exists(arc2));
  EXPECT_EQ(slurp(raw), "something else");
}

TEST_F(ArchiveTest, CorruptTruncatedAndForeignArchivesAreRejected) {
  const std::string raw = write_npy("c.npy", "<f2", 2, 200000, 8);
  archive::ArchiveOptions o;
  o.block_bytes = 65536;
  const std::string arc = archive_of(raw, o);
  fs::remove(raw);
  const std::string good = slurp(arc);
  auto write = [&](const std::string& bytes) { std::ofstream(arc, std::ios::binary | std::ios::trunc) << bytes; };
  auto open_error = [&]() -> std::string {
    auto a = archive::ArchiveSource::open(arc);
    if (!a.ok()) return a.error().to_string();
    auto v = (*a)->verify();
    return v.ok() ? std::string() : v.error().to_string();
  };
  // A flipped byte in the middle of the frames.
  std::string bad = good;
  bad[bad.size() / 2] = static_cast<char>(bad[bad.size() / 2] ^ 0x5a);
  write(bad);
  std::string e = open_error();
  EXPECT_NE(e.find("corrupt"), std::string::npos) << e;
  EXPECT_NE(e.find(arc), std::string::npos) << e;
  // A flipped byte in the metadata.
  bad = good;
  bad[30] = static_cast<char>(bad[30] ^ 0x01);
  write(bad);
  EXPECT_FALSE(open_error().empty());
  // Truncated.
  write(good.substr(0, good.size() - 3));
  e = open_error();
  EXPECT_NE(e.find("truncated"), std::string::npos) << e;
  // Not an archive at all.
  write(std::string(100, 'x'));
  e = open_error();
  EXPECT_NE(e.find("bad magic"), std::string::npos) << e;
  // Every prefix fails cleanly (no crash, no success).
  for (size_t n = 0; n < good.size(); n += 997) {
    write(good.substr(0, n));
    EXPECT_FALSE(open_error().empty()) << n;
  }
  auto restored = archive::restore_archive(arc, {});
  EXPECT_FALSE(restored.ok());
  EXPECT_FALSE(fs::exists(raw));
}

}  // namespace
}  // namespace msit
