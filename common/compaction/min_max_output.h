// `--summary-format msit`: the old Python converter's `_min_max` files, from a summary.
#pragma once

#include <string>

#include "common/base/result.h"
#include "common/formats/tensor_desc.h"
#include "common/summary/summary.h"

namespace msit {

// Bytes of `STEM_min_max.npy` (npy raw file) or `NAME_min_max.npz` (GE raw file).
Result<std::string> encode_min_max_summary(const FileSummary& s, const RawDumpFile& raw);

}  // namespace msit
