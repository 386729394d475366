// Reading the header of any raw dump file (GE binary or npy) without loading its payloads.
#pragma once

#include <span>
#include <string>

#include "common/base/result.h"
#include "common/formats/tensor_desc.h"
#include "common/io/byte_source.h"

namespace msit {

// Header lengths above this are rejected as corrupt: real DumpData headers are a few KB, and
// protobuf objects take several times the header's size in memory (per daemon worker).
inline constexpr uint64_t kMaxGeHeaderBytes = 16ull << 20;
// Tensors (inputs, outputs, buffers, workspaces) one dump file may declare: real GE ops have a
// few hundred at most; a crafted header must not make a summary of hundreds of MB.
inline constexpr size_t kMaxTensorsPerFile = 4096;

// Parses the GE dump at fd (big-dump 2.0 layout, else legacy whole-file protobuf).
// Checks 8 + H + sum(sizes) <= file size ("complete"); a larger declared size is an error
// whose stage is "incomplete" so that the watcher can wait for the writer.
Result<RawDumpFile> read_ge_dump_header(int fd, const std::string& path, const FileIdentity& id);

// Parses an .npy header (v1/v2/v3). Object and string arrays are an "unsupported" error.
Result<RawDumpFile> read_npy_header(int fd, const std::string& path, const FileIdentity& id);

// Chooses the reader from the file's own magic bytes (npy magic, else GE).
Result<RawDumpFile> read_dump_header(int fd, const std::string& path, const FileIdentity& id);

// The same readers over any byte source (plain file or archive); id.size is the size of the
// original file and errors name src.path().
Result<RawDumpFile> read_ge_dump_header(ByteSource& src, const FileIdentity& id);
Result<RawDumpFile> read_npy_header(ByteSource& src, const FileIdentity& id);
Result<RawDumpFile> read_dump_header(ByteSource& src, const FileIdentity& id);

// Pure in-memory variants used by fuzzers and tests. `file_size` is the whole file's size;
// `prefix` holds at least the header bytes (or the whole file).
Result<RawDumpFile> parse_ge_dump_prefix(std::span<const std::byte> prefix, uint64_t file_size,
                                         const std::string& path);
Result<RawDumpFile> parse_npy_prefix(std::span<const std::byte> prefix, uint64_t file_size, const std::string& path);

// True when an error means "not complete yet" (the writer may still be appending).
bool is_incomplete_error(const Error& e);

}  // namespace msit
