// One real-data pair of msProbe's compare: the two tensor files a pair of rows names (.pt through
// the restricted .pth reader, .npy), streamed in lockstep into msProbe's metrics.
#pragma once

#include <optional>
#include <string>

#include "common/compare_msprobe/row.h"

namespace msit {

// What the first-divergence rule takes from a real-data row: cosine and ||n - b|| / ||b||.
struct MsPairLevels {
  std::optional<double> cosine, red;
};

// Fills row.metrics and row.metric_message from the files `npu.data_name` in npu_dir and
// `bench.data_name` in bench_dir (each a plain name inside that directory: never a path that
// leaves it). A file that cannot be read makes every metric "unsupported" and says why.
MsPairLevels ms_evaluate_tensor_pair(const std::string& npu_dir, const MsprobeItem& npu, const std::string& bench_dir,
                                     const MsprobeItem& bench, MsRow& row);

}  // namespace msit
