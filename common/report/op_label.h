// A report row as a person reads it: which tensor of which op each side is, from the typed
// labels the pair builders set (common/report/tensor_label.h). Nothing here parses a path cell
// into an op: rows without a label show their file's base name.
#pragma once

#include <string>
#include <string_view>

#include "common/report/report_row.h"

namespace msit {

// "output 0", "input 1", or empty when the role is not known.
std::string tensor_text(const TensorLabel& l);
// "Add_7 (Add) output 0"; empty when the label is not known.
std::string label_text(const TensorLabel& l);
// The label that names the row's op: my side's, else the golden side's.
const TensorLabel& row_label(const ReportRow& r);
// The row's op as the terminal and HTML show it: my label, and the golden label after " vs "
// when it names another op (ATB node path vs torch module); the base name of my file when the
// row has no label.
std::string op_text(const ReportRow& r);
// The file a side's path cell names (the cell without a GE cell's ",outputs,k" tail), from the
// length the evaluator recorded (ReportRow::my_file_len): for `inspect` hints and rows without
// a label.
std::string row_file(const ReportRow& r, bool golden);

}  // namespace msit
