// ait's report (docs/formats/atb-torch.md §3.9): docs/formats/report.md §2's columns before msit b88cf93d2, i.e.
// without golden_op_type and my_op_type, then ours; and ait's only filter (int8 vs non-int8).
#include "common/compare_atb/legacy.h"

#include "common/report/csv.h"

namespace msit::atb {
namespace {

// Positions of golden_op_type and my_op_type among msit's 24 columns.
constexpr size_t kGoldenOpType = 3, kMyOpType = 10;

bool int8_xor(const ReportRow& r) { return is_int8(r.golden_dtype) != is_int8(r.my_dtype); }

void append_line(std::string& out, const std::vector<std::string>& cells) {
  for (size_t i = 0; i < cells.size(); ++i) {
    if (i == kGoldenOpType || i == kMyOpType) continue;
    if (i) out.push_back(',');
    out += csv_quote(cells[i]);
  }
  out.push_back('\n');
}

}  // namespace

std::string legacy_csv(const std::vector<ReportRow>& rows, bool extra) {
  std::vector<std::string> head(msit_columns().begin(), msit_columns().end());
  if (extra) head.insert(head.end(), extra_columns().begin(), extra_columns().end());
  std::string out;
  append_line(out, head);
  for (const auto& r : rows) append_line(out, row_cells(r, extra));
  return out;
}

std::vector<ReportRow> legacy_int8_filter(const std::vector<ReportRow>& rows) {
  std::vector<ReportRow> out;
  for (size_t i = 0; i < rows.size(); ++i) {
    if (!int8_xor(rows[i])) {
      out.push_back(rows[i]);
      continue;
    }
    // Python's list.remove while iterating: the row after a removed one is never tested.
    if (i + 1 < rows.size()) out.push_back(rows[++i]);
  }
  return out;
}

}  // namespace msit::atb
