// The archive container (version 1): what an `.zst` archive of one raw dump file holds and how
// its parts are laid out. Layout and rationale: docs/archive.md.
//
//   [fixed header 16 B: "MSITARC\n", u32 version, u32 meta_len]
//   [meta: JSON, meta_len bytes: original name/size/mtime/mode, block size, level, segments]
//   [block 0: one zstd frame] [block 1] ...      (blocks tile the segments in order)
//   [index: per block u64 frame offset, u32 frame bytes, u32 original bytes]
//   [trailer 40 B: u64 index offset, u64 block count, u64 XXH3-64 of the original file,
//                  u64 XXH3-64 of header+meta+index, "MSITAEND"]
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/base/result.h"

namespace msit::archive {

inline constexpr std::string_view kMagic = "MSITARC\n";
inline constexpr std::string_view kEndMagic = "MSITAEND";
inline constexpr uint32_t kVersion = 1;
inline constexpr size_t kFixedHeaderBytes = 16;
inline constexpr size_t kIndexEntryBytes = 16;
inline constexpr size_t kTrailerBytes = 40;
inline constexpr uint32_t kMinBlockBytes = 4096;
inline constexpr uint32_t kMaxBlockBytes = 64u << 20;
// Hostile-input caps, checked before anything is allocated for them. Writers stay inside them
// (archive_writer.cpp coarsens segments and blocks), so every archive written is readable.
inline constexpr size_t kMaxMetaBytes = 4u << 20;
// 2^16 segments of the longest form (two 20-digit numbers) stay under 3.1 MB of meta.
inline constexpr size_t kMaxSegments = size_t{1} << 16;
inline constexpr uint64_t kMaxBlocks = uint64_t{1} << 20;
inline constexpr size_t kMaxNameBytes = 255;

// A run of the original file whose bytes are shuffled by `elem` (1: stored as is).
struct Segment {
  uint64_t offset = 0;
  uint64_t length = 0;
  uint32_t elem = 1;
};

struct Meta {
  std::string original_name;
  uint64_t original_size = 0;
  int64_t original_mtime_ns = 0;
  uint32_t original_mode = 0644;  // as recorded (up to 07777); restore masks it to 0777
  bool has_owner = false;         // original_uid/gid recorded (archives before them lack it)
  uint32_t original_uid = 0;
  uint32_t original_gid = 0;
  uint32_t block_bytes = 4u << 20;
  int level = 1;
  std::vector<Segment> segments;  // tile [0, original_size) in order
};

// One zstd frame: where it sits in the archive and which original bytes it restores.
struct Block {
  uint64_t frame_offset = 0;
  uint32_t frame_bytes = 0;
  uint32_t raw_bytes = 0;
  uint64_t raw_offset = 0;  // derived from the segments, not stored
  uint32_t elem = 1;        // derived from the segments, not stored
};

struct Trailer {
  uint64_t index_offset = 0;
  uint64_t block_count = 0;
  uint64_t original_xxh3 = 0;
  uint64_t check_xxh3 = 0;
};

// Blocks never straddle segments, so each block has one element size and whole elements
// (block_bytes is a multiple of 8). raw_offset/raw_bytes/elem are filled in.
std::vector<Block> plan_blocks(const Meta& m);
// The number of blocks plan_blocks would return, without allocating them (hostile metadata
// may claim petabytes).
uint64_t count_blocks(const Meta& m);

std::string encode_fixed_header(uint32_t meta_len);
std::string encode_meta(const Meta& m);
std::string encode_index(std::span<const Block> blocks);
std::string encode_trailer(const Trailer& t);

// Parsers: every field bounds-checked; errors name path, stage "archive" and what is wrong.
Result<uint32_t> decode_fixed_header(std::span<const std::byte> b, const std::string& path);
Result<Meta> decode_meta(std::string_view json, const std::string& path);
Result<Trailer> decode_trailer(std::span<const std::byte> b, const std::string& path);
// Fills frame offsets/sizes of `blocks` (already planned from the meta) from the index and
// checks that frames tile [data_begin, data_end) without overlap.
Status decode_index(std::span<const std::byte> b, std::vector<Block>& blocks, uint64_t data_begin, uint64_t data_end,
                    const std::string& path);

}  // namespace msit::archive
