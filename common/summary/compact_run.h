// One-shot compaction of whole trees: scan, clean stale temp files, compact in parallel,
// and account for every file (compacted, failed, or not recognised).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "common/summary/compact.h"

namespace msit {

struct CompactRunOptions {
  CompactOptions file;
  unsigned jobs = 1;
  size_t batch_size = 64;  // summaries published (renamed + dir fsync) together
};

struct CompactFailure {
  std::string path;
  std::string reason;  // Error::to_string(): names path, stage and cause
};

struct CompactProgress {
  size_t done = 0, total = 0, failed = 0;
  uint64_t bytes_before = 0, bytes_after = 0;
};

struct CompactReport {
  size_t candidates = 0;
  size_t compacted = 0;        // new summary written
  size_t verified = 0;         // existing summary verified
  size_t dry_run = 0;
  size_t raw_removed = 0;
  size_t temp_removed = 0;     // stale temp files of an interrupted run
  uint64_t bytes_before = 0;   // raw bytes of the files handled
  uint64_t bytes_after = 0;    // bytes of the summaries replacing them
  std::vector<CompactFailure> failures;
  std::vector<std::string> unrecognised;  // files that are neither dumps nor known side files
  std::vector<std::string> symlinks;      // never followed, never deleted through
};

CompactReport run_compact(const std::vector<std::string>& roots, const CompactRunOptions& opts,
                          const std::function<void(const CompactProgress&)>& progress);

}  // namespace msit
