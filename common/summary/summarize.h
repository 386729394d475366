// A raw dump file (or an archive of one) read and reduced to its summary, without writing
// anything: what `inspect` and `compare` use; compaction (common/compaction) adds the writing.
#pragma once

#include <string>

#include "common/base/result.h"
#include "common/stats/tensor_stats.h"
#include "common/summary/summary.h"

namespace msit {

// Reads and reduces a raw file or an archive of one (no writes). Used by inspect and compare.
Result<FileSummary> summarize_raw_file(const std::string& path, const StatsOptions& opts);

}  // namespace msit
