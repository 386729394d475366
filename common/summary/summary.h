// The summary model (docs/formats/summary.md, version 1) and its JSON form.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/base/result.h"
#include "common/formats/tensor_desc.h"
#include "common/stats/tensor_stats.h"

namespace msit {

inline constexpr std::string_view kSummarySchema = "msit-compact/summary";
inline constexpr int kSummaryVersion = 1;

struct OpInfo {
  std::string type, name, task_id, stream_id, timestamp;
  std::string dump_op_name;  // from the GE header when present
};

struct TensorSummary {
  std::string role;  // "input" | "output"
  uint32_t index = 0;
  std::optional<uint32_t> sub_index;
  std::string dtype;  // numpy-style name
  std::vector<uint64_t> shape;
  std::string format;  // "ND", "FRACTAL_NZ", ...
  std::vector<uint64_t> original_shape;
  uint64_t count = 0;
  bool padding_included = false;
  bool stats_available = true;   // false for complex/packed/opaque dtypes
  bool l2norm_available = true;  // false: a GE stats CSV without an l2norm column (not written)
  std::string note;              // why stats or sketch are missing, when they are
  TensorStats stats;
  std::string xxh3_64;  // 16 lowercase hex digits
};

// Blocks of a GE file that are not tensors (buffers, workspaces): kept as size + hash.
struct ExtraBlock {
  std::string role;  // "buffer" | "workspace"
  uint32_t index = 0;
  uint64_t size_bytes = 0;
  std::string xxh3_64;
};

struct FileSummary {
  std::string source_name;
  std::string source_kind;  // "ge_bin" | "npy"
  uint64_t source_size = 0;
  int64_t source_mtime_ns = 0;
  std::optional<OpInfo> op;
  std::vector<TensorSummary> tensors;
  std::vector<ExtraBlock> extra_blocks;
  std::string created_by;
};

std::string summary_to_json(const FileSummary& s);
// Strict on the keys docs/formats/summary.md requires, tolerant of unknown keys. `path` names errors.
Result<FileSummary> summary_from_json(std::string_view text, const std::string& path);
Result<FileSummary> read_summary_file(const std::string& path);
// Readers that fetch summary bytes themselves (batched reads): the size limit of
// read_summary_file, and how many zero bytes must follow the text for the zero-copy parse.
extern const size_t kSummaryMaxBytes;
extern const size_t kSummaryParsePadding;
// `text` as read from `path`, followed in memory by kSummaryParsePadding readable bytes.
Result<FileSummary> summary_from_padded_json(std::string_view text, const std::string& path);

std::string created_by_string();  // "msit-compact <version>"

}  // namespace msit
