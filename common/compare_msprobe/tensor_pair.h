// One real-data pair of msProbe's compare: the two tensor files a pair of rows names (.pt through
// the restricted .pth reader, .npy), streamed in lockstep into msProbe's metrics, or where
// `compact` removed a file, its summary from the dump's store.
#pragma once

#include <optional>
#include <string>

#include "common/compare_msprobe/row.h"

namespace msit {

// What the first-divergence rule takes from a real-data row: cosine and ||n - b|| / ||b||, and
// where they came from (kSketch: estimates; kStats: neither, the caller bounds the row from its
// statistics).
struct MsPairLevels {
  std::optional<double> cosine, red;
  MetricSource source = MetricSource::kExact;
  bool unreadable = false;  // a side could not be read: every metric "unsupported"
};

// Fills row.metrics, row.metric_message and row.source from the files `npu.data_name` in npu_dir
// and `bench.data_name` in bench_dir (each a plain name inside that directory: never a path that
// leaves it). A file that is gone is read from the summary store covering its directory (docs/
// formats/msprobe-compare.md §10). A file that cannot be read makes every metric "unsupported"
// and says why.
MsPairLevels ms_evaluate_tensor_pair(const std::string& npu_dir, const MsprobeItem& npu, const std::string& bench_dir,
                                     const MsprobeItem& bench, MsRow& row);

}  // namespace msit
