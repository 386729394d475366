// The op label of a tensor file from its place in its dump (docs/compare.md "Op labels"): used
// where a flow is given files rather than trees (manual mapping, two files).
#pragma once

#include <string>

#include "common/report/tensor_label.h"

namespace msit::atb {

// An ATB dump's {token}/{node dirs}/{before|after}/{in|out}tensor{k} names the node path and its
// type; a torch dump's {module}/{input_k|output}.pth the module. Unknown (no label) otherwise.
TensorLabel dump_file_label(const std::string& path);

// What the two-file compare shows for one side: dump_file_label(), else an FX npy name's node,
// target and slot ({node}-{target}.INPUT.{k}...npy), else the raw file's own name (a file
// without dump structure is named by what the user called it). `path` may name the raw file,
// its summary or archive: the label is the raw file's.
TensorLabel two_file_label(const std::string& path);

}  // namespace msit::atb
