// Typed report cells (docs/compare.md "Typed pair results"): why a row has no metrics (msit's
// fail reasons and our row problems) and which dtype each side has. Rows hold these enums; the
// text is made only by the writers (row_cells.cpp), and nothing parses a cell back.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/base/result.h"
#include "common/dtype/dtype.h"

namespace msit {

// msit's three reasons (docs/formats/report.md §5): a set, written in this order, space-separated.
enum class FailReason : uint8_t { kNone = 0, kShapeMismatch = 1, kGoldenNanInf = 2, kMyNanInf = 4 };
constexpr FailReason operator|(FailReason a, FailReason b) {
  return static_cast<FailReason>(static_cast<uint8_t>(a) | static_cast<uint8_t>(b));
}
constexpr bool has(FailReason set, FailReason one) {
  return (static_cast<uint8_t>(set) & static_cast<uint8_t>(one)) != 0;
}

// msit's rule for which reasons a pair has (element counts differ, NaN/inf on either side).
FailReason msit_reasons(bool count_differs, bool golden_nonfinite, bool my_nonfinite);

// How the sides are named in reason texts: msit's golden/my, or MindIE's cpu/npu.
enum class SideNames : uint8_t { kGoldenMy, kCpuNpu };
// "data shape doesn't match. golden_data includes NAN or inf. ..."; empty for kNone.
std::string fail_reason_text(FailReason r, SideNames names = SideNames::kGoldenMy);
// The set whose text is `text` (unit tests' round trip); nullopt when it is not one.
std::optional<FailReason> fail_reason_from_text(std::string_view text, SideNames names = SideNames::kGoldenMy);

// Why a row was not evaluated besides msit's reasons: a side could not be read, the read broke
// off, or the pair builder found no partner. The file it is about is held apart from the text,
// so that the terminal groups one cause on many files without taking paths out of a string.
class RowProblem {
 public:
  // kNotPaired: the pair builder expects no partner (a GE op absent from the graph text);
  // kNoGolden: my tensor's partner should be in the golden dump and is not (a coverage gap:
  // common/compare/coverage.h).
  enum class Kind : uint8_t { kNone, kGoldenUnreadable, kMyUnreadable, kReadFailed, kNotPaired, kNoGolden };
  RowProblem() = default;
  // path: the file it is about (empty: none); text: what follows it (": STAGE: MESSAGE",
  // " is not a file.", a sentence).
  RowProblem(Kind k, std::string_view path, std::string_view text)
      : kind(k), path_len_(static_cast<uint32_t>(path.size())), detail_(std::string(path).append(text)) {}
  Kind kind = Kind::kNone;

  bool any() const { return kind != Kind::kNone; }
  std::string_view path() const { return std::string_view(detail_).substr(0, path_len_); }
  std::string_view text() const { return std::string_view(detail_).substr(path_len_); }
  // A side's Error: its path apart, the rest as to_string() writes it.
  static RowProblem from_error(Kind kind, const Error& e);
  static RowProblem not_paired(std::string_view text) { return RowProblem(Kind::kNotPaired, {}, text); }
  static RowProblem no_golden(std::string_view text) { return RowProblem(Kind::kNoGolden, {}, text); }

 private:
  // One string, the path's length recorded: a pair and a row each hold one (100,000s of them).
  uint32_t path_len_ = 0;
  std::string detail_;
};
// "my_data_path: PATH: header: truncated", "read failed: ...", the builder's sentence.
std::string row_problem_text(const RowProblem& p);
// The same with the path left out ("<file>"): one group per cause.
std::string row_problem_key(const RowProblem& p);
std::string_view row_problem_kind_name(RowProblem::Kind k);  // "my_data_path", ... (unit tests)

// How a row's metrics were computed (the compare_mode column, docs/compare.md "Metrics by source
// kind"): both tensors read in full, equal summary hashes, sketches, statistics only. kNone: no
// metrics (an error or skipped row).
enum class MetricSource : uint8_t { kNone, kExact, kHash, kSketch, kStats };
std::string_view metric_source_text(MetricSource m);  // "exact", "hash", "sketch", "stats", "" (kNone)

// A side's dtype cell: the tensor's own dtype and how the report names it. kUnknown: empty cell.
struct CellDType {
  DType dtype = DType::kUnknown;
  // msit's tensor readers widen bf16 and fp8 to float32 (torch_dtype_name); safetensors keeps
  // them (the weight compare: str(tensor.dtype) of what safetensors loads).
  enum class Naming : uint8_t { kMsitWidened, kTorchOwn } naming = Naming::kMsitWidened;

  bool operator==(const CellDType&) const = default;
};
std::string_view dtype_cell_text(const CellDType& d);  // "torch.float16", or empty
// The dtype the cell names (a widened bf16 names float32): the precision the report's values have.
DType named_dtype(const CellDType& d);
inline bool is_int8(const CellDType& d) { return named_dtype(d) == DType::kInt8; }
// The side's own dtype is bool or integer (common/dtype/dtype.h discrete_dtype()).
inline bool is_discrete(const CellDType& d) { return discrete_dtype(d.dtype); }
// The cell whose text is `text` (unit tests' round trip); nullopt when no dtype prints so.
std::optional<CellDType> cell_dtype_from_text(std::string_view text, CellDType::Naming naming);

}  // namespace msit
