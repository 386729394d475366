// `restore`: turning an archive back into the byte-identical raw file it replaced.
#pragma once

#include <string>

#include "common/base/result.h"

namespace msit::archive {

struct RestoreOptions {
  bool keep_archive = false;  // default: the archive is removed once the raw file is durable
};

struct RestoreOutcome {
  std::string archive_path;
  std::string raw_path;
  uint64_t raw_bytes = 0;
  bool already_present = false;  // an identical raw file was already there (an interrupted restore)
  bool archive_removed = false;
};

// Decodes to a temp file while checking the recorded XXH3, restores mode and mtime, fsyncs,
// renames into place, fsyncs the directory, and only then removes the archive. An existing
// raw file is never overwritten unless it is byte-identical to the archive's content.
Result<RestoreOutcome> restore_archive(const std::string& archive_path, const RestoreOptions& opts);

}  // namespace msit::archive
