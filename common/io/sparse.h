// Sparse raw files: a dump is written front to back and is never sparse; a file whose blocks are
// mostly holes is a pre-sized file still being filled (np.lib.format.open_memmap) or a file made
// to cost work (4 KB declaring 1 GB). Neither is summarised or deleted (docs/safety.md).
#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <string>

#include "common/base/result.h"

namespace msit {

// Files below this size are never called sparse: small files may sit inline in metadata
// (btrfs, ext4 inline data) with no blocks of their own.
inline constexpr uint64_t kSparseCheckMinBytes = uint64_t{1} << 20;

// An error (stage "incomplete", so watch waits for a writer and then gives up loudly) when
// `st` shows less than a quarter of the size allocated AND the file has a hole before its end
// (SEEK_HOLE): a compressing filesystem that stores few blocks but no holes is read normally.
// O(1): one lseek, no data read.
Status refuse_sparse(int fd, const struct stat& st, const std::string& path);

}  // namespace msit
