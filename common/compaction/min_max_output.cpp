// Builds the old converter's [min, max] arrays. As in numpy, a NaN anywhere makes both NaN.
#include "common/compaction/min_max_output.h"

#include <limits>

#include "common/formats/min_max.h"
#include "common/io/derived_names.h"

namespace msit {
namespace {

// numpy has no bf16/fp8 dtypes; msaccucmp widens them to float32, as does the old converter.
DType numpy_dtype(DType t) {
  switch (t) {
    case DType::kBFloat16:
    case DType::kFloat8E4M3FN:
    case DType::kFloat8E5M2:
    case DType::kFloat8E8M0:
    case DType::kHiFloat8: return DType::kFloat32;
    default: return t;
  }
}

std::array<double, 2> min_max_row(const TensorSummary& t) {
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  const TensorStats& s = t.stats;
  if (s.nan_count > 0 || !s.min || !s.max) {
    // No finite element: min/max are the infinities present, else NaN (empty tensor).
    if (s.nan_count == 0 && s.posinf_count + s.neginf_count > 0) {
      double lo = s.neginf_count ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
      double hi = s.posinf_count ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity();
      return {lo, hi};
    }
    return {kNaN, kNaN};
  }
  double lo = s.neginf_count ? -std::numeric_limits<double>::infinity() : *s.min;
  double hi = s.posinf_count ? std::numeric_limits<double>::infinity() : *s.max;
  return {lo, hi};
}

// numpy's result dtype for stacking rows of several tensors: the common type.
DType common_dtype(const std::vector<DType>& types) {
  if (types.empty()) return DType::kFloat64;
  DType first = types.front();
  for (DType t : types) {
    if (t != first) return DType::kFloat64;
  }
  return first;
}

MinMaxRows rows_for(const FileSummary& s, const char* role) {
  MinMaxRows rows;
  std::vector<DType> types;
  for (const auto& t : s.tensors) {
    if (t.role != role) continue;
    types.push_back(numpy_dtype(dtype_from_name(t.dtype).value_or(DType::kFloat64)));
    rows.rows.push_back(min_max_row(t));
  }
  rows.dtype = common_dtype(types);
  return rows;
}

}  // namespace

Result<std::string> encode_min_max_summary(const FileSummary& s, const RawDumpFile& raw) {
  for (const auto& t : s.tensors) {
    if (!t.stats_available) {
      return make_error(raw.path, Stage::kSummary,
                        "dtype " + t.dtype + " has no min/max; use the rich summary format for this file");
    }
  }
  if (raw.kind == FileKind::kNpy) {
    if (s.tensors.size() != 1) return make_error(raw.path, Stage::kSummary, "npy file must hold one tensor");
    auto row = min_max_row(s.tensors.front());
    DType t = numpy_dtype(dtype_from_name(s.tensors.front().dtype).value_or(DType::kFloat64));
    return encode_min_max_npy(t, row[0], row[1]);
  }
  return encode_min_max_npz(rows_for(s, "input"), rows_for(s, "output"));
}

MinMaxSink::MinMaxSink(const FileRef& raw) : FileSink(raw, min_max_name_for(raw.name), min_max_name_for(raw.path)) {}

}  // namespace msit
