// What one summary store holds, at a glance (`msit-compact inspect msit-summary.db`): its
// version, counts, size on disk and the tensors with the largest absolute values.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/base/result.h"

namespace msit::store {

struct TopTensor {
  std::string path;  // the raw file, relative to the store's directory
  std::string role;
  uint32_t index = 0;
  std::optional<uint32_t> sub_index;
  std::string dtype;
  std::string shape;  // "[1,4096]"
  double abs_max = 0;
};

struct StoreOverview {
  std::string path;
  int64_t version = 0;  // PRAGMA user_version
  std::string created_by;
  uint64_t files = 0, tensors = 0, extra_blocks = 0;
  uint64_t raw_bytes = 0;        // sum of the raw files' sizes
  uint64_t apparent_bytes = 0;   // the store's file, -wal and -shm
  uint64_t allocated_bytes = 0;  // their blocks on disk
  std::vector<TopTensor> top;    // largest abs_max first
};

// Opens `db_path` read-only (refusing another application's database or a newer version by
// path) and reads the overview; `top_n` tensors by abs_max.
Result<StoreOverview> read_overview(const std::string& db_path, size_t top_n);

}  // namespace msit::store
