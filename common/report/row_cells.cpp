// The texts of the typed report cells: the one place they are spelled.
#include "common/report/row_cells.h"

#include <array>

namespace msit {
namespace {

struct ReasonText {
  FailReason reason;
  std::string_view golden_my, cpu_npu;
};
constexpr std::array<ReasonText, 3> kReasons{{
    {FailReason::kShapeMismatch, "data shape doesn't match.", "data shape doesn't match."},
    {FailReason::kGoldenNanInf, "golden_data includes NAN or inf.", "cpu_data includes NAN or inf."},
    {FailReason::kMyNanInf, "my_data includes NAN or inf.", "npu_data includes NAN or inf."},
}};

}  // namespace

std::string_view metric_source_text(MetricSource m) {
  switch (m) {
    case MetricSource::kNone: return "";
    case MetricSource::kExact: return "exact";
    case MetricSource::kHash: return "hash";
    case MetricSource::kSketch: return "sketch";
    case MetricSource::kStats: return "stats";
  }
  return "";
}

FailReason msit_reasons(bool count_differs, bool golden_nonfinite, bool my_nonfinite) {
  FailReason r = FailReason::kNone;
  if (count_differs) r = r | FailReason::kShapeMismatch;
  if (golden_nonfinite) r = r | FailReason::kGoldenNanInf;
  if (my_nonfinite) r = r | FailReason::kMyNanInf;
  return r;
}

std::string fail_reason_text(FailReason r, SideNames names) {
  std::string out;
  for (const auto& t : kReasons) {
    if (!has(r, t.reason)) continue;
    if (!out.empty()) out.push_back(' ');
    out += names == SideNames::kCpuNpu ? t.cpu_npu : t.golden_my;
  }
  return out;
}

std::optional<FailReason> fail_reason_from_text(std::string_view text, SideNames names) {
  for (uint8_t bits = 0; bits < 8; ++bits) {
    auto r = static_cast<FailReason>(bits);
    if (fail_reason_text(r, names) == text) return r;
  }
  return std::nullopt;
}

RowProblem RowProblem::from_error(Kind kind, const Error& e) {
  Error rest = e;
  rest.path.clear();
  return RowProblem(kind, e.path, (e.path.empty() ? "" : ": ") + rest.to_string());
}

std::string_view row_problem_kind_name(RowProblem::Kind k) {
  switch (k) {
    case RowProblem::Kind::kNone: return "";
    case RowProblem::Kind::kGoldenUnreadable: return "golden_data_path";
    case RowProblem::Kind::kMyUnreadable: return "my_data_path";
    case RowProblem::Kind::kReadFailed: return "read failed";
    case RowProblem::Kind::kNotPaired:
    case RowProblem::Kind::kNoGolden: return "";
  }
  return "";
}

namespace {
std::string problem_text(const RowProblem& p, std::string_view path) {
  std::string out(row_problem_kind_name(p.kind));
  if (!out.empty()) out += ": ";
  return out.append(path).append(p.text());
}
}  // namespace

std::string row_problem_text(const RowProblem& p) { return problem_text(p, p.path()); }

std::string row_problem_key(const RowProblem& p) { return problem_text(p, p.path().empty() ? "" : "<file>"); }

std::string_view dtype_cell_text(const CellDType& d) {
  if (d.naming == CellDType::Naming::kTorchOwn) {
    switch (d.dtype) {
      case DType::kBFloat16: return "torch.bfloat16";
      case DType::kFloat8E4M3FN: return "torch.float8_e4m3fn";
      case DType::kFloat8E5M2: return "torch.float8_e5m2";
      default: break;
    }
  }
  return torch_dtype_name(d.dtype);
}

DType named_dtype(const CellDType& d) {
  switch (d.dtype) {
    case DType::kUInt16: return DType::kInt32;  // msprobe's mapping (torch_dtype_name)
    case DType::kUInt32: return DType::kInt64;
    case DType::kFloat8E8M0:
    case DType::kHiFloat8: return DType::kFloat32;
    case DType::kBFloat16:
    case DType::kFloat8E4M3FN:
    case DType::kFloat8E5M2: return d.naming == CellDType::Naming::kTorchOwn ? d.dtype : DType::kFloat32;
    default: return dtype_cell_text(d).empty() ? DType::kUnknown : d.dtype;
  }
}

std::optional<CellDType> cell_dtype_from_text(std::string_view text, CellDType::Naming naming) {
  if (text.empty()) return CellDType{DType::kUnknown, naming};
  // The dtype the text names itself (float32 rather than a widened bf16).
  for (int t = static_cast<int>(DType::kBool); t <= static_cast<int>(DType::kObject); ++t) {
    CellDType c{static_cast<DType>(t), naming};
    if (named_dtype(c) == c.dtype && dtype_cell_text(c) == text) return c;
  }
  return std::nullopt;
}

}  // namespace msit
