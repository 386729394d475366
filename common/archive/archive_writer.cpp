// The archive writer: plan segments from the dump's own header, compress block by block
// (optionally several blocks at once), write index and trailer, sync, then verify by decoding.
#include "common/archive/archive_writer.h"

#include <fcntl.h>
#include <unistd.h>
#include <zstd.h>

#include <algorithm>
#include <memory>

#include "common/archive/archive_source.h"
#include "common/archive/shuffle.h"
#include "common/base/run_workers.h"
#include "common/dtype/dtype.h"
#include "common/io/atomic_write.h"
#include "common/io/derived_names.h"
#include "common/io/xxh3.h"

namespace msit::archive {
namespace {

uint32_t shuffle_unit(DType t) {
  const DTypeInfo& info = dtype_info(t);
  uint32_t bytes = info.bits / 8;
  if (info.kind == DTypeKind::kComplex) bytes /= 2;
  if (info.kind == DTypeKind::kPacked || info.kind == DTypeKind::kOpaque || info.bits % 8 != 0) return 1;
  return (bytes == 2 || bytes == 4 || bytes == 8) ? bytes : 1;
}

void append(std::vector<Segment>& out, uint64_t offset, uint64_t length, uint32_t elem) {
  if (length == 0) return;
  if (!out.empty()) {
    Segment& last = out.back();
    // Merging keeps elements aligned only if the previous run holds whole elements.
    if (last.elem == elem && last.offset + last.length == offset && last.length % elem == 0) {
      last.length += length;
      return;
    }
  }
  out.push_back({offset, length, elem});
}

struct Encoder {
  ZSTD_CCtx* cctx = nullptr;
  std::vector<std::byte> raw, shuffled, frame;
  size_t frame_len = 0;
  size_t error = 0;
  Encoder() : cctx(ZSTD_createCCtx()) {}
  ~Encoder() { ZSTD_freeCCtx(cctx); }
  Encoder(const Encoder&) = delete;
  Encoder& operator=(const Encoder&) = delete;

  void setup(int level, uint32_t block_bytes) {
    ZSTD_CCtx_reset(cctx, ZSTD_reset_session_and_parameters);
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, level);
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);  // each frame self-checks on decode
    raw.resize(block_bytes);
    shuffled.resize(block_bytes);
    frame.resize(ZSTD_compressBound(block_bytes));
  }
  void encode(const Block& b) {
    shuffle_bytes(raw.data(), shuffled.data(), b.raw_bytes, b.elem);
    frame_len = ZSTD_compress2(cctx, frame.data(), frame.size(), shuffled.data(), b.raw_bytes);
    error = ZSTD_isError(frame_len) ? frame_len : 0;
  }
};

// Encoders (a zstd context and three block buffers) are kept per thread: allocating and
// zeroing them for every file was a third of the archiving time (in a VM a fresh page is a
// trapped fault).
std::vector<std::unique_ptr<Encoder>>& thread_encoders(size_t n) {
  thread_local std::vector<std::unique_ptr<Encoder>> pool;
  while (pool.size() < n) pool.push_back(std::make_unique<Encoder>());
  return pool;
}

class Writer {
 public:
  Writer(ByteSource& src, const ArchiveOptions& opts, Meta meta)
      : src_(src), opts_(opts), meta_(std::move(meta)), blocks_(plan_blocks(meta_)),
        n_(static_cast<size_t>(std::clamp(opts.workers, 1, 64))), enc_(thread_encoders(n_)) {
    for (size_t i = 0; i < n_; ++i) enc_[i]->setup(opts.level, meta_.block_bytes);
  }
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;

  Result<WrittenArchive> run(DirTemp& out, const std::string& final_path);

 private:
  Status write_batch(DirTemp& out, size_t first, size_t count, uint64_t& pos);

  ByteSource& src_;
  ArchiveOptions opts_;
  Meta meta_;
  std::vector<Block> blocks_;
  Xxh3 hash_;                                   // of the original bytes
  size_t n_;                                    // blocks compressed at once
  std::vector<std::unique_ptr<Encoder>>& enc_;  // this thread's, at least n_
};

Status Writer::write_batch(DirTemp& out, size_t first, size_t count, uint64_t& pos) {
  for (size_t k = 0; k < count; ++k) {
    const Block& b = blocks_[first + k];
    MSIT_TRY(src_.read_at(b.raw_offset, std::span<std::byte>(enc_[k]->raw.data(), b.raw_bytes), Stage::kArchive));
    hash_.update(enc_[k]->raw.data(), b.raw_bytes);
  }
  run_indexed(static_cast<unsigned>(count), count, [&](size_t k) { enc_[k]->encode(blocks_[first + k]); });
  for (size_t k = 0; k < count; ++k) {
    Encoder& e = *enc_[k];
    if (e.error) return make_error(src_.path(), Stage::kArchive, std::string("zstd: ") + ZSTD_getErrorName(e.error));
    Block& b = blocks_[first + k];
    b.frame_offset = pos;
    b.frame_bytes = static_cast<uint32_t>(e.frame_len);
    MSIT_TRY(out.write(std::span<const std::byte>(e.frame.data(), e.frame_len)));
    pos += e.frame_len;
  }
  return ok_status();
}

Result<WrittenArchive> Writer::run(DirTemp& out, const std::string& final_path) {
  const std::string meta = encode_meta(meta_);
  const std::string head = encode_fixed_header(static_cast<uint32_t>(meta.size())) + meta;
  MSIT_TRY(out.write(std::as_bytes(std::span<const char>(head))));
  uint64_t pos = head.size();
  src_.will_read_sequentially(0, meta_.original_size);
  for (size_t i = 0; i < blocks_.size(); i += n_) {
    MSIT_TRY(write_batch(out, i, std::min(n_, blocks_.size() - i), pos));
  }
  const std::string index = encode_index(blocks_);
  Trailer t;
  t.index_offset = pos;
  t.block_count = blocks_.size();
  t.original_xxh3 = hash_.digest();
  Xxh3 check;
  check.update(head.data(), head.size());
  check.update(index.data(), index.size());
  t.check_xxh3 = check.digest();
  const std::string tail = index + encode_trailer(t);
  MSIT_TRY(out.write(std::as_bytes(std::span<const char>(tail))));
  MSIT_TRY(out.sync_and_close());
  WrittenArchive w;
  w.final_path = final_path;
  w.bytes = pos + tail.size();
  w.original_xxh3 = t.original_xxh3;
  return w;
}

// Archives are cold once verified: dropping their (clean) pages now spares the dump writer the
// page-cache reclaim it would otherwise pay while the archives accumulate.
void drop_page_cache(int fd) { ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED); }

Result<UniqueFd> open_temp_for_check(const DirTemp& t) {
  UniqueFd fd(::openat(t.dir().get(), t.temp_name().c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd.valid())
    return make_sys_error(t.final_path(), Stage::kArchive, "cannot reopen the archive temp " + t.temp_name(), errno);
  return fd;
}

}  // namespace

std::vector<Segment> segments_for(const RawDumpFile& raw, uint64_t file_size) {
  std::vector<const TensorDesc*> ts;
  for (const auto& t : raw.tensors) ts.push_back(&t);
  std::sort(ts.begin(), ts.end(), [](auto* a, auto* b) { return a->payload_offset < b->payload_offset; });
  std::vector<Segment> out;
  uint64_t pos = 0;
  for (const TensorDesc* t : ts) {
    // Overlapping or out-of-file payloads cannot come from a parsed header; stay safe anyway.
    if (t->payload_offset < pos || t->payload_offset > file_size || t->payload_size > file_size - t->payload_offset)
      continue;
    append(out, pos, t->payload_offset - pos, 1);
    append(out, t->payload_offset, t->payload_size, shuffle_unit(t->dtype));
    pos = t->payload_offset + t->payload_size;
  }
  append(out, pos, file_size - pos, 1);
  return out;
}

namespace {

// Keeps an archive of any file inside the reader's caps: too many segments fall back to one
// unshuffled segment (lossless, just a worse ratio), too many blocks to bigger blocks.
void fit_reader_caps(Meta& m) {
  if (m.segments.size() > kMaxSegments || encode_meta(m).size() > kMaxMetaBytes) {
    m.segments = {{0, m.original_size, 1}};
  }
  while (count_blocks(m) > kMaxBlocks && m.block_bytes < kMaxBlockBytes) {
    m.block_bytes = std::min(m.block_bytes * 2, kMaxBlockBytes);
  }
}

}  // namespace

Result<WrittenArchive> write_verified_archive_temp(ByteSource& src, const RawDumpFile& raw, const FileIdentity& id,
                                                   unsigned mode, const ArchiveOptions& opts, const DirRef& dir,
                                                   const std::string& raw_name, std::optional<OriginalOwner> owner,
                                                   std::optional<OutputAccess> access) {
  if (opts.block_bytes < kMinBlockBytes || opts.block_bytes > kMaxBlockBytes || opts.block_bytes % 8 != 0) {
    return make_error(src.path(), Stage::kArchive,
                      "block size " + std::to_string(opts.block_bytes) + " is out of range");
  }
  Meta m;
  m.original_name = raw.path.substr(raw.path.find_last_of('/') + 1);
  m.original_size = id.size;
  m.original_mtime_ns = id.mtime_ns;
  m.original_mode = mode & 07777;
  m.block_bytes = opts.block_bytes;
  m.level = opts.level;
  m.segments = segments_for(raw, id.size);
  if (owner) {
    m.has_owner = true;
    m.original_uid = owner->uid;
    m.original_gid = owner->gid;
  }
  fit_reader_caps(m);
  const std::string final_path = archive_name_for(raw.path);
  // An archive is data, never a program: no exec, setuid, setgid or sticky bit on it.
  MSIT_ASSIGN_OR_RETURN(DirTemp out, DirTemp::create(dir, archive_name_for(raw_name), 0600));
  OutputAccess given;
  given.gid = ::getegid();
  given.mode = mode & 0666;
  MSIT_TRY(apply_output_access(out.fd(), access.value_or(given), final_path));
  Writer w(src, opts, std::move(m));
  MSIT_ASSIGN_OR_RETURN(WrittenArchive written, w.run(out, final_path));
  // Decode what reached the disk: a bug or corruption on the way cannot pass this check.
  MSIT_ASSIGN_OR_RETURN(UniqueFd rfd, open_temp_for_check(out));
  const int check_fd = rfd.get();
  MSIT_ASSIGN_OR_RETURN(auto check, ArchiveSource::open(std::move(rfd), dir.path + "/" + out.temp_name()));
  if (check->trailer().original_xxh3 != written.original_xxh3) {
    return make_error(final_path, Stage::kArchive, "archive trailer does not record the hash of the bytes read");
  }
  MSIT_TRY(check->verify());
  drop_page_cache(check_fd);
  written.temp = std::move(out);
  return written;
}

bool same_archive_present(int dir_fd, const std::string& temp_name, const std::string& final_name) {
  auto mine = ArchiveSource::open_at(dir_fd, temp_name, temp_name);
  auto there = ArchiveSource::open_at(dir_fd, final_name, final_name);
  if (!mine.ok() || !there.ok()) return false;
  if ((*there)->meta().original_size != (*mine)->meta().original_size ||
      (*there)->trailer().original_xxh3 != (*mine)->trailer().original_xxh3) {
    return false;
  }
  return (*there)->verify().ok();  // its trailer must not merely claim the hash
}

Result<PublishResult> publish_archive(int dir_fd, const std::string& temp_name, const std::string& final_name,
                                      const std::string& shown_final) {
  MSIT_ASSIGN_OR_RETURN(PublishResult r, publish_noreplace(dir_fd, temp_name, final_name, shown_final));
  if (r == PublishResult::kPublished || same_archive_present(dir_fd, temp_name, final_name)) return r;
  return make_error(shown_final, Stage::kRename, "exists and is not this file's archive; raw file kept");
}

}  // namespace msit::archive
