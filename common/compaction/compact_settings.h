// The compaction settings `compact` and `watch` (and its config file) share, and the one
// function that turns them into CompactOptions: the CLI and the daemon cannot drift apart.
#pragma once

#include <cstdint>

#include "common/compaction/compact.h"
#include "common/compaction/option_limits.h"

namespace msit {

// Names and ranges of the integer settings: option_limits.h.
struct CompactSettings {
  SummaryFormat format = SummaryFormat::kStore;  // callers start from default_summary_format()
  bool keep_raw = false;
  bool archive = false;  // replace raw files by verified .zst archives (excludes keep_raw)
  int zstd_level = static_cast<int>(kZstdLevel.def);
  int zstd_workers = static_cast<int>(kZstdWorkers.def);
  uint32_t sketch_width = static_cast<uint32_t>(kSketchWidth.def);
  unsigned sketch_bits = 32;  // store sketches: 32 (float) or 64 (double, bit-exact)
};

// Everything but `stores` (set by whoever owns the store registry) and `dry_run`.
CompactOptions compact_options(const CompactSettings& s);

}  // namespace msit
