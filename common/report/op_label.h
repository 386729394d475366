// A report row as a person reads it: op name and type and which tensor, from the path cells.
#pragma once

#include <string>
#include <string_view>

#include "common/report/report_row.h"

namespace msit {

struct OpLabel {
  std::string name, type;  // GE: Type.Name.task.stream.ts; FX: node-target.OUTPUT.k.ts.npy
  std::string tensor;      // "output 0", "input 1", or empty
};
OpLabel op_label(const ReportRow& r);
// "Add_7 (Add) output 0"
std::string op_text(const ReportRow& r);
// The file a path cell names: the cell without its ",inputs,k" / ",outputs,k" tail (GE-vs-GE
// golden cells accumulate several tails: the first one starts the tail).
std::string cell_file(std::string_view cell);

}  // namespace msit
