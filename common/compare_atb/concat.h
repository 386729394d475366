// Multi-device rows (3.7): the tensors of every rank concatenated along msit's dimension, then
// compared exactly. Raw files only: statistics of a concatenation are not those of its parts.
#pragma once

#include <string>
#include <vector>

#include "common/base/result.h"
#include "common/compare/dump_index.h"
#include "common/dtype/dtype.h"
#include "common/report/report_row.h"

namespace msit::atb {

// Elements one side may hold in memory for a concatenation (floats: 1 GiB).
inline constexpr uint64_t kMaxConcatElements = uint64_t{1} << 28;

// A whole tensor as float32 (msit's `.float()`), for the rows whose data must be reshaped
// before comparing (rank concatenation, rope slicing).
struct FloatTensor {
  DType dtype = DType::kUnknown;
  std::vector<uint64_t> shape;
  std::vector<float> data;
};

// A raw file's first tensor (at most `budget` elements), or, with summary_values, a summary
// that kept every element (count <= sketch width). Anything else is an error saying why.
Result<FloatTensor> load_float_tensor(const SourceFile& f, uint64_t budget, bool summary_values);

// Fills the data cells, reasons, metrics and verdict of r from two loaded tensors (exact mode).
void evaluate_floats(const FloatTensor& g, const FloatTensor& m, ReportRow& r);

// Fills the data cells of r from the concatenated sides; false (r untouched) when the files
// cannot be concatenated (a summary among them, sizes, shapes), with the reason in `why`.
bool evaluate_concat(const std::vector<SourceFile>& golden, const std::vector<SourceFile>& mine, ReportRow& r,
                     std::string& why);

}  // namespace msit::atb
