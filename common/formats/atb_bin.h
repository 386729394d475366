// ATB tensor and statistics .bin files (docs/formats/atb-torch.md §2.2, §2.6-§2.7): a text header of
// `name=value` lines ending in `$End=1`, then the raw tensor bytes (none in a stats file).
#pragma once

#include <cstddef>
#include <span>
#include <string>

#include "common/base/result.h"
#include "common/formats/tensor_desc.h"
#include "common/io/byte_source.h"

namespace msit {

// Headers longer than this are corrupt: real ones are a few hundred bytes.
inline constexpr uint64_t kMaxAtbHeaderBytes = 64u << 10;

// True when the bytes start like an ATB .bin header (`$Version=`).
bool looks_like_atb_bin(std::span<const std::byte> first_bytes);

// One tensor: its dtype (aclDataType numbering), dims as stored, format, and where `$Object.data`
// lies. Role and index come from the file name (intensor{k} / outtensor{k}), else output 0.
// A stats file (max/min/mean/l2norm attributes) or a header-only file ($Object.Count=0) gives a
// tensor with header_stats set and no payload. A raw area shorter than `$Object.Length`, or no
// `$End=1` line yet in a short file, is an "incomplete" error.
Result<RawDumpFile> read_atb_bin_header(ByteSource& src, const FileIdentity& id);

// In-memory variant for fuzzers and tests: `prefix` holds at least the header (or the file).
Result<RawDumpFile> parse_atb_bin_prefix(std::span<const std::byte> prefix, uint64_t file_size,
                                         const std::string& path);

}  // namespace msit
