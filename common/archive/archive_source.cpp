// ArchiveSource: validation of the container and on-demand decoding of its blocks.
#include "common/archive/archive_source.h"

#include <zstd.h>

#include <algorithm>
#include <cstring>
#include <mutex>
#include <thread>

#include "common/archive/shuffle.h"
#include "common/io/derived_names.h"
#include "common/io/noreplace.h"
#include "common/io/xxh3.h"

namespace msit::archive {
namespace {

class FdHolder final : public ByteSource {
 public:
  FdHolder(UniqueFd fd, std::string path, uint64_t size)
      : fd_(std::move(fd)), file_(fd_.get(), std::move(path), size) {}
  Status read_at(uint64_t off, std::span<std::byte> out, Stage stage) override {
    return file_.read_at(off, out, stage);
  }
  uint64_t size() const override { return file_.size(); }
  const std::string& path() const override { return file_.path(); }
  void will_read_sequentially(uint64_t off, uint64_t len) override { file_.will_read_sequentially(off, len); }
  bool concurrent_reads() const override { return file_.concurrent_reads(); }

 private:
  UniqueFd fd_;
  FileSource file_;
};

}  // namespace

// A zstd decoder and ~4 block buffers. Compare and the archive verification open one archive
// after another; recycling these (instead of allocating and zeroing them per archive) keeps
// fresh-page faults off the hot path. At most one idle scratch per core is kept.
struct DecodeScratch {
  struct Cached {
    size_t index = SIZE_MAX;
    std::vector<std::byte> bytes;
  };
  ZSTD_DCtx* dctx = ZSTD_createDCtx();
  std::vector<std::byte> frame;     // compressed frame being decoded
  std::vector<std::byte> shuffled;  // decoded, still shuffled
  Cached cache[2];                  // layout readers alternate between two nearby blocks
  size_t next_victim = 0;
  ~DecodeScratch() { ZSTD_freeDCtx(dctx); }
};

namespace {

std::mutex g_scratch_mu;
std::vector<std::unique_ptr<DecodeScratch>> g_idle_scratch;

void release_scratch(DecodeScratch* s) {
  std::unique_ptr<DecodeScratch> owned(s);
  std::lock_guard<std::mutex> lock(g_scratch_mu);
  if (g_idle_scratch.size() < std::max(1u, std::thread::hardware_concurrency()))
    g_idle_scratch.push_back(std::move(owned));
}

DecodeScratch* acquire_scratch() {
  std::unique_ptr<DecodeScratch> s;
  {
    std::lock_guard<std::mutex> lock(g_scratch_mu);
    if (!g_idle_scratch.empty()) {
      s = std::move(g_idle_scratch.back());
      g_idle_scratch.pop_back();
    }
  }
  if (!s) s = std::make_unique<DecodeScratch>();
  for (auto& c : s->cache) c.index = SIZE_MAX;
  s->next_victim = 0;
  return s.release();
}

}  // namespace

Result<std::shared_ptr<ArchiveSource>> ArchiveSource::open(const std::string& path) {
  MSIT_ASSIGN_OR_RETURN(UniqueFd fd, open_regular_nofollow(path));
  MSIT_ASSIGN_OR_RETURN(FileIdentity id, identity_of(fd.get(), path));
  return open(std::make_unique<FdHolder>(std::move(fd), path, id.size), id);
}

Result<std::shared_ptr<ArchiveSource>> ArchiveSource::open_at(int dir_fd, const std::string& name,
                                                              const std::string& shown_as) {
  MSIT_ASSIGN_OR_RETURN(UniqueFd fd, open_regular_at(dir_fd, name, shown_as));
  MSIT_ASSIGN_OR_RETURN(FileIdentity id, identity_of(fd.get(), shown_as));
  return open(std::make_unique<FdHolder>(std::move(fd), shown_as, id.size), id);
}

Result<std::shared_ptr<ArchiveSource>> ArchiveSource::open(UniqueFd fd, const std::string& path) {
  MSIT_ASSIGN_OR_RETURN(FileIdentity id, identity_of(fd.get(), path));
  return open(std::make_unique<FdHolder>(std::move(fd), path, id.size), id);
}

Result<std::shared_ptr<ArchiveSource>> ArchiveSource::open(std::unique_ptr<ByteSource> bytes, const FileIdentity& id) {
  std::shared_ptr<ArchiveSource> a(new ArchiveSource());
  a->path_ = bytes->path();
  a->bytes_ = std::move(bytes);
  a->id_ = id;
  MSIT_TRY(a->load_container());
  a->scratch_ = {acquire_scratch(), &release_scratch};
  if (a->scratch_->dctx == nullptr) return make_error(a->path_, Stage::kArchive, "cannot allocate a zstd decoder");
  return a;
}

ArchiveSource::~ArchiveSource() = default;

Status ArchiveSource::load_container() {
  const uint64_t size = id_.size;
  if (size < kFixedHeaderBytes + kTrailerBytes) {
    return make_error(path_, Stage::kArchive,
                      "file of " + std::to_string(size) + " bytes is too small to be an archive");
  }
  std::byte fixed[kFixedHeaderBytes];
  MSIT_TRY(bytes_->read_at(0, fixed, Stage::kArchive));
  MSIT_ASSIGN_OR_RETURN(uint32_t meta_len, decode_fixed_header(fixed, path_));
  const uint64_t data_begin = kFixedHeaderBytes + uint64_t{meta_len};
  if (data_begin > size - kTrailerBytes)
    return make_error(path_, Stage::kArchive, "metadata runs past the end of the file");
  std::byte tb[kTrailerBytes];
  MSIT_TRY(bytes_->read_at(size - kTrailerBytes, tb, Stage::kArchive));
  MSIT_ASSIGN_OR_RETURN(trailer_, decode_trailer(tb, path_));

  std::string head(static_cast<size_t>(data_begin), '\0');
  MSIT_TRY(bytes_->read_at(0, std::as_writable_bytes(std::span<char>(head)), Stage::kArchive));
  MSIT_ASSIGN_OR_RETURN(meta_, decode_meta(std::string_view(head).substr(kFixedHeaderBytes), path_));
  const uint64_t n_blocks = count_blocks(meta_);
  if (n_blocks > kMaxBlocks) {
    return make_error(path_, Stage::kArchive,
                      "metadata implies " + std::to_string(n_blocks) + " blocks, over the limit of " +
                          std::to_string(kMaxBlocks) + " (crafted or corrupt archive)");
  }
  const uint64_t index_end = size - kTrailerBytes;
  if (trailer_.block_count != n_blocks || trailer_.index_offset < data_begin || trailer_.index_offset > index_end ||
      (index_end - trailer_.index_offset) / kIndexEntryBytes != n_blocks ||
      (index_end - trailer_.index_offset) % kIndexEntryBytes != 0) {
    return make_error(path_, Stage::kArchive, "trailer and metadata disagree on the block index (corrupt archive)");
  }
  blocks_ = plan_blocks(meta_);
  std::vector<std::byte> index(static_cast<size_t>(index_end - trailer_.index_offset));
  MSIT_TRY(bytes_->read_at(trailer_.index_offset, index, Stage::kArchive));
  Xxh3 st;
  st.update(head.data(), head.size());
  st.update(index.data(), index.size());
  const uint64_t check = st.digest();
  if (check != trailer_.check_xxh3) {
    return make_error(path_, Stage::kArchive, "header/index checksum mismatch (corrupt archive)");
  }
  MSIT_TRY(decode_index(index, blocks_, data_begin, trailer_.index_offset, path_));
  for (size_t i = 0; i < blocks_.size(); ++i) {
    if (blocks_[i].frame_bytes > ZSTD_compressBound(blocks_[i].raw_bytes)) {
      return make_error(path_, Stage::kArchive,
                        "block " + std::to_string(i) + " frame is larger than zstd can produce (corrupt archive)");
    }
  }
  return ok_status();
}

FileIdentity ArchiveSource::original_identity() const {
  FileIdentity o = id_;
  o.size = meta_.original_size;
  o.mtime_ns = meta_.original_mtime_ns;
  return o;
}

size_t ArchiveSource::block_at(uint64_t off) const {
  auto it = std::upper_bound(blocks_.begin(), blocks_.end(), off,
                             [](uint64_t o, const Block& b) { return o < b.raw_offset; });
  return static_cast<size_t>(it - blocks_.begin()) - 1;
}

Result<const std::vector<std::byte>*> ArchiveSource::block(size_t i) {
  DecodeScratch& s = *scratch_;
  for (auto& c : s.cache) {
    if (c.index == i) return &c.bytes;
  }
  const Block& b = blocks_[i];
  s.frame.resize(b.frame_bytes);
  MSIT_TRY(bytes_->read_at(b.frame_offset, s.frame, Stage::kArchive));
  const unsigned long long content = ZSTD_getFrameContentSize(s.frame.data(), s.frame.size());
  if (content != b.raw_bytes) {
    return make_error(path_, Stage::kArchive,
                      "block " + std::to_string(i) + " is not a zstd frame of " + std::to_string(b.raw_bytes) +
                          " bytes (corrupt archive)");
  }
  s.shuffled.resize(b.raw_bytes);
  const size_t n = ZSTD_decompressDCtx(s.dctx, s.shuffled.data(), s.shuffled.size(), s.frame.data(), s.frame.size());
  if (ZSTD_isError(n) || n != b.raw_bytes) {
    return make_error(path_, Stage::kArchive,
                      "block " + std::to_string(i) + ": " + (ZSTD_isError(n) ? ZSTD_getErrorName(n) : "short frame") +
                          " (corrupt archive)");
  }
  DecodeScratch::Cached& c = s.cache[s.next_victim];
  s.next_victim ^= 1;
  c.index = i;
  c.bytes.resize(b.raw_bytes);
  unshuffle_bytes(s.shuffled.data(), c.bytes.data(), b.raw_bytes, b.elem);
  return &c.bytes;
}

Status ArchiveSource::read_at(uint64_t off, std::span<std::byte> out, Stage stage) {
  if (off > meta_.original_size || out.size() > meta_.original_size - off) {
    return make_error(path_, stage,
                      "read of " + std::to_string(out.size()) + " bytes at offset " + std::to_string(off) +
                          " is past the archived file's " + std::to_string(meta_.original_size) + " bytes");
  }
  size_t done = 0;
  while (done < out.size()) {
    const uint64_t pos = off + done;
    const size_t i = block_at(pos);
    MSIT_ASSIGN_OR_RETURN(const std::vector<std::byte>* bytes, block(i));
    const size_t in_block = static_cast<size_t>(pos - blocks_[i].raw_offset);
    const size_t n = std::min(out.size() - done, bytes->size() - in_block);
    std::memcpy(out.data() + done, bytes->data() + in_block, n);
    done += n;
  }
  return ok_status();
}

Status ArchiveSource::verify(const std::function<Status(std::span<const std::byte>)>& sink) {
  Xxh3 st;
  Status status = ok_status();
  for (size_t i = 0; i < blocks_.size() && status.ok(); ++i) {
    auto bytes = block(i);
    if (!bytes.ok()) {
      status = bytes.take_error();
      break;
    }
    st.update((*bytes)->data(), (*bytes)->size());
    if (sink) status = sink(**bytes);
  }
  const uint64_t h = st.digest();
  MSIT_TRY(std::move(status));
  if (h != trailer_.original_xxh3) {
    return make_error(path_, Stage::kArchive,
                      "decoded bytes do not match the recorded XXH3 of the original (corrupt archive)");
  }
  return ok_status();
}

Result<OpenedSource> open_dump_source(const std::string& path) {
  OpenedSource o;
  if (is_archive_name(path)) {
    MSIT_ASSIGN_OR_RETURN(auto a, ArchiveSource::open(path));
    o.identity = a->original_identity();
    o.src = std::move(a);
    return o;
  }
  MSIT_ASSIGN_OR_RETURN(UniqueFd fd, open_regular_nofollow(path));
  MSIT_ASSIGN_OR_RETURN(o.identity, identity_of(fd.get(), path));
  o.src = std::make_shared<FdHolder>(std::move(fd), path, o.identity.size);
  return o;
}

}  // namespace msit::archive
