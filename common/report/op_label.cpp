// Op labels as text (docs/compare.md "Op labels").
#include "common/report/op_label.h"

#include <algorithm>

namespace msit {

std::string cell_file(std::string_view cell) {
  size_t cut = std::min(cell.find(",inputs,"), cell.find(",outputs,"));
  return std::string(cell.substr(0, cut));
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
    std::string file = cell_file(r.my_data_path.empty() ? r.golden_data_path : r.my_data_path);
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
