// The old Python converter's `_min_max` files (docs/formats/report.md §8): reading and writing.
#pragma once

#include <array>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "common/base/result.h"
#include "common/dtype/dtype.h"

namespace msit {

struct MinMaxRows {
  DType dtype = DType::kFloat64;
  std::vector<std::array<double, 2>> rows;  // [min, max] per tensor
};

Result<MinMaxRows> read_min_max_npy(const std::string& path);
// (inputs, outputs)
Result<std::pair<MinMaxRows, MinMaxRows>> read_min_max_npz(const std::string& path);

// Exactly the bytes numpy writes for the same arrays.
std::string encode_min_max_npy(DType dtype, double min, double max);
std::string encode_min_max_npz(const MinMaxRows& inputs, const MinMaxRows& outputs);

// In-memory variants of the readers (fuzzers, tests). `path` only names the source in errors.
Result<MinMaxRows> parse_min_max_npy(std::span<const std::byte> bytes, const std::string& path);
Result<std::pair<MinMaxRows, MinMaxRows>> parse_min_max_npz(std::span<const std::byte> bytes, const std::string& path);

// numpy.promote_types over the dtypes a converter's rows can have (np.array of mixed
// [min, max] scalars); types numpy lacks count as float32 (floats) or float64.
DType numpy_promote_types(DType a, DType b);

}  // namespace msit
