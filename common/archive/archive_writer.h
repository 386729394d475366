// Writing the lossless archive of one raw dump file: byte-shuffled zstd blocks in a synced
// temp file, verified by decoding it back before anyone may delete the raw file.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/archive/container.h"
#include "common/formats/tensor_desc.h"
#include "common/io/byte_source.h"
#include "common/io/noreplace.h"
#include "common/safety/output_access.h"
#include "common/safety/publish.h"

namespace msit::archive {

struct ArchiveOptions {
  int level = 1;                    // zstd level (negative: faster levels)
  int workers = 1;                  // threads compressing blocks of one file in parallel
  uint32_t block_bytes = 1u << 20;  // one zstd frame per block: bounds memory and seek cost
};

struct WrittenArchive {
  std::string final_path;  // NAME.zst next to the raw file
  DirTemp temp;            // durable, verified, not yet published (removed if dropped)
  uint64_t bytes = 0;      // archive size
  uint64_t original_xxh3 = 0;
};

// Archive names: archive_name_for() / without_archive_suffix() (common/io/derived_names.h).

// Payloads are shuffled by their element size (complex: by component); headers, gaps and
// 1-byte or packed types are stored as they are. Segments tile [0, file_size).
std::vector<Segment> segments_for(const RawDumpFile& raw, uint64_t file_size);

struct OriginalOwner {
  uint32_t uid = 0;
  uint32_t gid = 0;
};

// Compresses src (the raw file `raw`, identity `id`) into a synced temp file in `dir` (the raw
// file's directory, reached safely), then decodes the temp file completely: it is returned only
// when the decoded bytes hash to exactly what was read from the raw file. Any failure removes
// the temp (RAII). `mode` and `owner` are recorded for restore; the archive file itself gets
// `access` (the raw file's, common/safety/output_access.h), or without one only the read/write
// bits of `mode`; it is private (0600) until then.
Result<WrittenArchive> write_verified_archive_temp(ByteSource& src, const RawDumpFile& raw, const FileIdentity& id,
                                                   unsigned mode, const ArchiveOptions& opts, const DirRef& dir,
                                                   const std::string& raw_name,
                                                   std::optional<OriginalOwner> owner = std::nullopt,
                                                   std::optional<OutputAccess> access = std::nullopt);

// True when final_name in dir_fd is a complete, valid archive (every block decoded) of the
// same original bytes (size and XXH3) as the archive temp_name: a rerun after a crash.
bool same_archive_present(int dir_fd, const std::string& temp_name, const std::string& final_name);

// Publishes a verified archive temp as final_name without ever replacing a file there
// (publish_noreplace). kTargetExists: final_name already is this file's archive (the temp is
// redundant; the caller removes it). Anything else under final_name is kept and reported:
// "exists and is not this file's archive; raw file kept". The caller owns the temp throughout.
Result<PublishResult> publish_archive(int dir_fd, const std::string& temp_name, const std::string& final_name,
                                      const std::string& shown_final);

}  // namespace msit::archive
