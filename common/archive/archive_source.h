// Reading an archive as if it were the raw file it holds: random access with a small cache
// of decoded blocks, so every reader (headers, layouts, stats, compare) works unchanged.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/archive/container.h"
#include "common/base/unique_fd.h"
#include "common/io/byte_source.h"
#include "common/io/file.h"

typedef struct ZSTD_DCtx_s ZSTD_DCtx;

namespace msit::archive {

// Decoder state and block buffers, recycled between archives (see archive_source.cpp).
struct DecodeScratch;

class ArchiveSource final : public ByteSource {
 public:
  // Opens without following symlinks and validates header, meta, index and trailer.
  static Result<std::shared_ptr<ArchiveSource>> open(const std::string& path);
  // The same for `name` in dir_fd (O_NOFOLLOW); errors name `shown_as`.
  static Result<std::shared_ptr<ArchiveSource>> open_at(int dir_fd, const std::string& name,
                                                        const std::string& shown_as);
  // An archive already opened (relative to a directory fd); `path` names it in messages.
  static Result<std::shared_ptr<ArchiveSource>> open(UniqueFd fd, const std::string& path);
  // The same over archive bytes from any source (fuzzers, tests); id.size is their size.
  static Result<std::shared_ptr<ArchiveSource>> open(std::unique_ptr<ByteSource> bytes, const FileIdentity& id);
  ~ArchiveSource() override;

  Status read_at(uint64_t off, std::span<std::byte> out, Stage stage) override;
  uint64_t size() const override { return meta_.original_size; }
  const std::string& path() const override { return path_; }

  const Meta& meta() const { return meta_; }
  const Trailer& trailer() const { return trailer_; }
  const FileIdentity& archive_identity() const { return id_; }
  // Identity of the original file (size and mtime as recorded), on the archive's inode.
  FileIdentity original_identity() const;
  // Decodes every block in order and checks the XXH3 of the whole original against the
  // trailer; `sink` (optional) receives the original bytes in order.
  Status verify(const std::function<Status(std::span<const std::byte>)>& sink = nullptr);

 private:
  ArchiveSource() = default;
  Status load_container();
  Result<const std::vector<std::byte>*> block(size_t i);
  size_t block_at(uint64_t off) const;

  std::string path_;
  std::unique_ptr<ByteSource> bytes_;  // the archive file itself
  FileIdentity id_;
  Meta meta_;
  Trailer trailer_;
  std::vector<Block> blocks_;
  std::unique_ptr<DecodeScratch, void (*)(DecodeScratch*)> scratch_{nullptr, nullptr};
};

// A raw dump source: the file itself, or the archive standing for it.
struct OpenedSource {
  SourcePtr src;
  FileIdentity identity;  // for archives: original size and mtime
};
Result<OpenedSource> open_dump_source(const std::string& path);

}  // namespace msit::archive
