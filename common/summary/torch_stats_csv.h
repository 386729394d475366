// torch hook `statistics.csv` (dump_statistics_mode 1/2, docs/formats/atb-torch.md §1.2 item 7): one row per
// tensor of a module, read as per-tensor summaries carrying max/min/mean/l2norm only.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/base/result.h"
#include "common/summary/summary.h"

namespace msit {

inline constexpr uint64_t kMaxStatisticsCsvBytes = 64u << 20;

struct TorchStatsRow {
  std::string node_name;    // module name, e.g. "root.fc"
  std::string node_type;    // class name, e.g. "Linear"
  std::string torch_dtype;  // as written, e.g. "torch.bfloat16"
  TensorSummary tensor;     // role/index from InputOutput/Index; stats-only (no hash, no sketch)
};

// Python csv dialect: CRLF or LF rows, quoted fields with doubled quotes. The header must be
// NodeName,NodeType,InputOutput,Index,DataType,Shape,Max,Min,Mean,L2Norm. Errors name `path`
// and the 1-based line.
Result<std::vector<TorchStatsRow>> parse_torch_statistics_csv(std::string_view text, const std::string& path);
Result<std::vector<TorchStatsRow>> read_torch_statistics_csv(const std::string& path);

}  // namespace msit
