// Issue 12, archive/restore side: never-overwrite publishing, owned temps, no-follow directory
// descent, proven unlinks, hostile archive metadata (caps before allocation, masked mode,
// owner rules), writers staying inside the readers' caps, and cancellation between archives.
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "common/archive/archive_source.h"
#include "common/archive/archive_writer.h"
#include "common/archive/container.h"
#include "common/archive/restore.h"
#include "common/io/noreplace.h"
#include "common/safety/beneath.h"
#include "tests/tools/archive_craft/craft.h"

namespace msit {
namespace {

namespace fs = std::filesystem;

class RestoreSafetyTest : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("msit-restore-safety." + std::to_string(::getpid()) + "." +
                                        testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    dfd_.reset(::open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string p(const std::string& name) const { return (dir_ / name).string(); }
  static void put(const std::string& path, const std::string& bytes) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
  }
  static std::string slurp(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(f), {});
  }

  // A valid archive (in memory) of `n` float32 values laid out as one tensor after a 64-byte header.
  std::string make_archive(size_t n, std::optional<archive::OriginalOwner> owner = std::nullopt) {
    std::string raw(64 + 4 * n, '\0');
    for (size_t i = 0; i < raw.size(); ++i) raw[i] = static_cast<char>((i * 131) & 0xff);
    put(p("x.bin"), raw);
    RawDumpFile hdr;
    hdr.path = p("x.bin");
    TensorDesc t;
    t.dtype = DType::kFloat32;
    t.payload_offset = 64;
    t.payload_size = 4 * n;
    hdr.tensors.push_back(t);
    auto fd = open_regular_nofollow(hdr.path);
    auto id = identity_of(fd->get(), hdr.path);
    FileSource src(fd->get(), hdr.path, id->size);
    auto f = file_ref_of_path(hdr.path);
    EXPECT_TRUE(f.ok());
    auto w = archive::write_verified_archive_temp(src, hdr, *id, 0644, {}, f->dir, f->name, owner);
    EXPECT_TRUE(w.ok()) << w.error().to_string();
    const std::string bytes = slurp(w->temp.dir().path + "/" + w->temp.temp_name());
    fs::remove(hdr.path);
    raw_ = raw;
    return bytes;
  }

  fs::path dir_;
  UniqueFd dfd_;
  std::string raw_;
};

TEST_F(RestoreSafetyTest, PublishNeverReplaces) {
  put(p("t1"), "new");
  auto r = publish_noreplace(dfd_.get(), "t1", "final");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, PublishResult::kPublished);
  EXPECT_EQ(slurp(p("final")), "new");
  EXPECT_FALSE(fs::exists(p("t1")));
  put(p("t2"), "newer");
  r = publish_noreplace(dfd_.get(), "t2", "final");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, PublishResult::kTargetExists);
  EXPECT_EQ(slurp(p("final")), "new");
  EXPECT_EQ(slurp(p("t2")), "newer");
}

TEST_F(RestoreSafetyTest, OwnedTempsAreRemovedUnlessReleased) {
  {
    auto t = create_temp_at(dfd_.get(), "final", p("final"));
    ASSERT_TRUE(t.ok());
    EXPECT_TRUE(t->name.path().starts_with(".msit-tmp.final."));
    EXPECT_TRUE(fs::exists(p(t->name.path())));
  }
  EXPECT_TRUE(fs::is_empty(dir_));  // dropped on a failure path: gone
  put(p("kept"), "x");
  {
    OwnedTempPath t(p("kept"));
    EXPECT_EQ(t.release(), p("kept"));
  }
  EXPECT_TRUE(fs::exists(p("kept")));
}

TEST_F(RestoreSafetyTest, DirectoriesBelowTheRootAreReachedWithoutFollowingLinks) {
  fs::create_directories(dir_ / "a" / "b");
  fs::create_directories(dir_ / "outside");
  fs::create_directory_symlink(dir_ / "outside", dir_ / "a" / "link");
  EXPECT_TRUE(open_dir_below(dfd_.get(), "a/b", "a/b").ok());
  EXPECT_TRUE(open_dir_below(dfd_.get(), "", ".").ok());
  auto l = open_dir_below(dfd_.get(), "a/link", "a/link");
  ASSERT_FALSE(l.ok());
  EXPECT_NE(l.error().message.find("symbolic link"), std::string::npos) << l.error().to_string();
  EXPECT_FALSE(open_dir_below(dfd_.get(), "a/../..", "x").ok());
  EXPECT_FALSE(open_dir_below(dfd_.get(), "/etc", "x").ok());
}

TEST_F(RestoreSafetyTest, UnlinkOnlyTheFileThatWasChecked) {
  put(p("f"), "one");
  auto id = identity_at_path(p("f"));
  ASSERT_TRUE(id.ok());
  auto removed = unlink_if_same(dfd_.get(), "f", *id, p("f"));
  ASSERT_TRUE(removed.ok() && *removed);
  EXPECT_FALSE(fs::exists(p("f")));
  put(p("f"), "two, a different file under the same name");
  std::string why;
  removed = unlink_if_same(dfd_.get(), "f", *id, p("f"), &why);
  ASSERT_TRUE(removed.ok());
  EXPECT_FALSE(*removed);
  EXPECT_EQ(slurp(p("f")), "two, a different file under the same name");  // moved back
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), {}), 1);
}

TEST_F(RestoreSafetyTest, HostileMetadataIsRejectedBeforeAllocation) {
  const std::string good = make_archive(1000);
  auto open_mem = [](const std::string& bytes) {
    auto src = std::make_unique<MemorySource>(
        std::span<const std::byte>(reinterpret_cast<const std::byte*>(bytes.data()), bytes.size()), "h.bin.zst");
    FileIdentity id;
    id.size = bytes.size();
    auto a = archive::ArchiveSource::open(std::move(src), id);
    return a.ok() ? std::string() : a.error().to_string();
  };
  EXPECT_EQ(open_mem(good), "");
  auto edited = [&](const std::function<void(nlohmann::json&)>& f) { return open_mem(craft::with_meta(good, f)); };
  // Too many segments (inside the value cap): named count, no segment vector built.
  std::string e = edited([](nlohmann::json& j) {
    nlohmann::json segs = nlohmann::json::array();
    for (uint64_t k = 0; k <= archive::kMaxSegments; ++k) segs.push_back({k, 1, 1});
    j["segments"] = segs;
    j["original_size"] = archive::kMaxSegments + 1;
  });
  EXPECT_NE(e.find("segments exceed the limit"), std::string::npos) << e;
  EXPECT_NE(e.find("h.bin.zst"), std::string::npos) << e;
  // Petabytes at the smallest block size: the block count is refused before planning blocks.
  e = edited([](nlohmann::json& j) {
    j["original_size"] = uint64_t{1} << 50;
    j["segments"] = nlohmann::json::array({{0, uint64_t{1} << 50, 1}});
    j["block_bytes"] = archive::kMinBlockBytes;
  });
  EXPECT_NE(e.find("over the limit"), std::string::npos) << e;
  // Deep nesting and huge flat arrays are cut off while parsing.
  e = open_mem(craft::with_meta_text(good, std::string(5000, '[') + std::string(5000, ']')));
  EXPECT_NE(e.find("nested deeper"), std::string::npos) << e;
  std::string flat = "[0";
  for (size_t k = 0; k < 4 * archive::kMaxSegments + 100; ++k) flat += ",0";
  e = open_mem(craft::with_meta_text(good, flat + "]"));
  EXPECT_NE(e.find("holds more than"), std::string::npos) << e;
  // Names and owners.
  e = edited([](nlohmann::json& j) { j["original_name"] = "../x"; });
  EXPECT_NE(e.find("original name"), std::string::npos) << e;
  e = edited([](nlohmann::json& j) { j["original_uid"] = 5; });
  EXPECT_NE(e.find("recorded owner"), std::string::npos) << e;
  e = edited([](nlohmann::json& j) {
    j["original_uid"] = 0xffffffffu;
    j["original_gid"] = 1;
  });
  EXPECT_NE(e.find("recorded owner"), std::string::npos) << e;
  // A meta length past the cap is refused from the fixed header alone.
  std::string big = good;
  big[12] = big[13] = big[14] = '\xff';
  big[15] = '\x00';
  EXPECT_NE(open_mem(big).find("out of range"), std::string::npos);
}

TEST_F(RestoreSafetyTest, RestoredModeIsMaskedAndOwnerFollowsTheRules) {
  const std::string good = make_archive(500, archive::OriginalOwner{1234, 2345});
  for (uint32_t mode : {04755u, 02755u, 01755u, 06777u, 0640u}) {
    SCOPED_TRACE(mode);
    put(p("m.bin.zst"), craft::with_meta(good, [&](nlohmann::json& j) { j["original_mode"] = mode; }));
    auto r = archive::restore_archive_at(dfd_.get(), dir_.string(), "m.bin.zst", {});
    ASSERT_TRUE(r.ok()) << r.error().to_string();
    struct stat st {};
    ASSERT_EQ(::stat(p("m.bin").c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 07777, mode & 0777);
    EXPECT_EQ(slurp(p("m.bin")), raw_);
    if (::geteuid() == 0) {
      EXPECT_EQ(st.st_uid, 1234u);
      EXPECT_EQ(st.st_gid, 2345u);
    } else {
      EXPECT_EQ(st.st_uid, ::geteuid());
    }
    fs::remove(p("m.bin"));
  }
  if (::geteuid() == 0) {  // no recorded owner: the directory's, never root's by default
    ASSERT_EQ(::chown(dir_.c_str(), 777, 778), 0);
    put(p("n.bin.zst"), craft::with_meta(good, [](nlohmann::json& j) {
          j.erase("original_uid");
          j.erase("original_gid");
        }));
    ASSERT_TRUE(archive::restore_archive_at(dfd_.get(), dir_.string(), "n.bin.zst", {}).ok());
    struct stat st {};
    ASSERT_EQ(::stat(p("n.bin").c_str(), &st), 0);
    EXPECT_EQ(st.st_uid, 777u);
    EXPECT_EQ(st.st_gid, 778u);
  }
}

TEST_F(RestoreSafetyTest, MtimeBefore1970IsRestoredExactly) {
  put(p("old.bin.zst"),
      craft::with_meta(make_archive(100), [](nlohmann::json& j) { j["original_mtime_ns"] = int64_t{-1500000001}; }));
  auto r = archive::restore_archive_at(dfd_.get(), dir_.string(), "old.bin.zst", {});
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  struct stat st {};
  ASSERT_EQ(::stat(p("old.bin").c_str(), &st), 0);
  EXPECT_EQ(st.st_mtim.tv_sec, -2);
  EXPECT_EQ(st.st_mtim.tv_nsec, 499999999);
}

// A consistent container (index, trailer, check hash) claiming 4 TiB in one-byte frames: the
// frames are never decoded, the free-space check refuses it first.
TEST_F(RestoreSafetyTest, ArchiveClaimingMoreThanTheFreeSpaceIsRefusedBeforeWriting) {
  archive::Meta m;
  m.original_name = "huge.bin";
  m.original_size = uint64_t{1} << 42;
  m.block_bytes = archive::kMaxBlockBytes;
  m.segments = {{0, m.original_size, 1}};
  std::vector<archive::Block> blocks = archive::plan_blocks(m);
  const std::string meta = archive::encode_meta(m);
  const std::string head = archive::encode_fixed_header(static_cast<uint32_t>(meta.size())) + meta;
  for (size_t i = 0; i < blocks.size(); ++i) {
    blocks[i].frame_offset = head.size() + i;
    blocks[i].frame_bytes = 1;
  }
  const std::string index = archive::encode_index(blocks);
  archive::Trailer t;
  t.index_offset = head.size() + blocks.size();
  t.block_count = blocks.size();
  XXH3_state_t* st = XXH3_createState();
  XXH3_64bits_reset(st);
  XXH3_64bits_update(st, head.data(), head.size());
  XXH3_64bits_update(st, index.data(), index.size());
  t.check_xxh3 = XXH3_64bits_digest(st);
  XXH3_freeState(st);
  put(p("huge.bin.zst"), head + std::string(blocks.size(), 'z') + index + archive::encode_trailer(t));
  auto r = archive::restore_archive_at(dfd_.get(), dir_.string(), "huge.bin.zst", {});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("free; not restored"), std::string::npos) << r.error().to_string();
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), {}), 1);  // the archive only, no temp
}

TEST_F(RestoreSafetyTest, WritersStayInsideTheReadersCaps) {
  // 140,000 one-element tensors alternating element sizes: more segments than a reader takes.
  const size_t n = archive::kMaxSegments + 8869;
  std::string raw(6 * n, '\0');
  for (size_t i = 0; i < raw.size(); ++i) raw[i] = static_cast<char>(i * 7);
  put(p("many.bin"), raw);
  RawDumpFile hdr;
  hdr.path = p("many.bin");
  for (size_t k = 0, off = 0; k < n; ++k) {
    TensorDesc t;
    t.dtype = k % 2 ? DType::kFloat32 : DType::kFloat16;
    t.payload_offset = off;
    t.payload_size = k % 2 ? 4 : 2;
    off += t.payload_size;
    hdr.tensors.push_back(t);
  }
  ASSERT_GT(archive::segments_for(hdr, raw.size()).size(), archive::kMaxSegments);
  auto fd = open_regular_nofollow(hdr.path);
  auto id = identity_of(fd->get(), hdr.path);
  FileSource src(fd->get(), hdr.path, id->size);
  auto f = file_ref_of_path(hdr.path);
  ASSERT_TRUE(f.ok());
  auto w = archive::write_verified_archive_temp(src, hdr, *id, 0644, {}, f->dir, f->name);
  ASSERT_TRUE(w.ok()) << w.error().to_string();
  auto a = archive::ArchiveSource::open(w->temp.dir().path + "/" + w->temp.temp_name());
  ASSERT_TRUE(a.ok()) << a.error().to_string();
  EXPECT_EQ((*a)->meta().segments.size(), 1u);
}

TEST_F(RestoreSafetyTest, CancellationStopsBetweenArchivesAndLeavesNoTemp) {
  const std::string arc = make_archive(200);
  for (const char* name : {"a.bin.zst", "b.bin.zst", "c.bin.zst"}) put(p(name), arc);
  archive::RestoreOptions opts;
  int asked = 0;
  opts.cancelled = [&] { return ++asked > 1; };  // the signal arrives during the first archive
  auto run = archive::restore_paths({dir_.string()}, opts);
  EXPECT_TRUE(run.cancelled);
  EXPECT_EQ(run.archives, 3u);
  ASSERT_EQ(run.restored.size(), 1u);
  EXPECT_TRUE(run.errors.empty());
  EXPECT_EQ(slurp(p("a.bin")), raw_);
  EXPECT_TRUE(fs::exists(p("b.bin.zst")) && fs::exists(p("c.bin.zst")));
  for (const auto& e : fs::directory_iterator(dir_))
    EXPECT_FALSE(e.path().filename().string().starts_with(".msit-tmp."));
}

TEST_F(RestoreSafetyTest, ArchivePublishKeepsAnUnrelatedFileAndAcceptsItsOwnArchive) {
  const std::string arc = make_archive(400);
  put(p(".msit-tmp.t1"), arc);
  put(p("x.bin.zst"), "unrelated user data");
  auto r = archive::publish_archive(dfd_.get(), ".msit-tmp.t1", "x.bin.zst", p("x.bin.zst"));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("exists and is not this file's archive; raw file kept"), std::string::npos);
  EXPECT_EQ(slurp(p("x.bin.zst")), "unrelated user data");
  put(p("x.bin.zst"), arc);  // a crashed run's own archive
  r = archive::publish_archive(dfd_.get(), ".msit-tmp.t1", "x.bin.zst", p("x.bin.zst"));
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(*r, PublishResult::kTargetExists);
}

}  // namespace
}  // namespace msit
