// Op labels as text (docs/compare.md "Op labels").
#include "common/report/op_label.h"

#include <algorithm>

namespace msit {

std::string row_file(const ReportRow& r, bool golden) {
  const std::string& cell = golden ? r.golden_data_path : r.my_data_path;
  uint32_t len = golden ? r.golden_file_len : r.my_file_len;
  return len == ReportRow::kWholeCell ? cell : cell.substr(0, len);
}

std::string tensor_text(const TensorLabel& l) {
  switch (l.role) {
    case TensorRole::kInput: return "input " + std::to_string(l.index);
    case TensorRole::kOutput: return "output " + std::to_string(l.index);
    case TensorRole::kUnknown: break;
  }
  return "";
}

std::string label_text(const TensorLabel& l) {
  if (!l.known()) return "";
  std::string s = l.op;
  if (!l.op_type.empty()) s += " (" + l.op_type + ")";
  if (std::string t = tensor_text(l); !t.empty()) s += " " + t;
  return s;
}

const TensorLabel& row_label(const ReportRow& r) { return r.my_label.known() ? r.my_label : r.golden_label; }

std::string op_text(const ReportRow& r) {
  if (!r.my_label.known() && !r.golden_label.known()) {
    std::string file = row_file(r, r.my_data_path.empty());
    size_t slash = file.rfind('/');
    return slash == std::string::npos ? file : file.substr(slash + 1);
  }
  std::string s = label_text(row_label(r));
  if (r.my_label.known() && r.golden_label.known() && r.golden_label.op != r.my_label.op) {
    s += " vs " + label_text(r.golden_label);
  }
  return s;
}

}  // namespace msit
