// Writing the lossless archive of one raw dump file: byte-shuffled zstd blocks in a synced
// temp file, verified by decoding it back before anyone may delete the raw file.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/archive/container.h"
#include "common/formats/tensor_desc.h"
#include "common/io/byte_source.h"
#include "common/safety/publish.h"

namespace msit::archive {

struct ArchiveOptions {
  int level = 1;                     // zstd level (negative: faster levels)
  int workers = 1;                   // threads compressing blocks of one file in parallel
  uint32_t block_bytes = 1u << 20;   // one zstd frame per block: bounds memory and seek cost
};

struct WrittenArchive {
  std::string final_path;   // NAME.zst next to the raw file
  DirTemp temp;             // durable, verified, not yet published (removed if dropped)
  uint64_t bytes = 0;       // archive size
  uint64_t original_xxh3 = 0;
};

std::string archive_path_for(const std::string& raw_path);
// The raw path an archive restores to (NAME.zst -> NAME).
std::string raw_path_for_archive(const std::string& archive_path);

// Payloads are shuffled by their element size (complex: by component); headers, gaps and
// 1-byte or packed types are stored as they are. Segments tile [0, file_size).
std::vector<Segment> segments_for(const RawDumpFile& raw, uint64_t file_size);

// Compresses src (the raw file `raw`, identity `id`) into a synced temp file in `dir` (the raw
// file's directory, reached safely), then decodes the temp file completely: it is returned only
// when the decoded bytes hash to exactly what was read from the raw file. Any failure removes
// the temp (RAII).
Result<WrittenArchive> write_verified_archive_temp(ByteSource& src, const RawDumpFile& raw,
                                                   const FileIdentity& id, unsigned mode,
                                                   const ArchiveOptions& opts, const DirRef& dir,
                                                   const std::string& raw_name);

}  // namespace msit::archive
