// msit HEAD's default report (docs/formats/atb-torch.md §3.8): one .xlsx with sheets layer, module, api.
#pragma once

#include <string>
#include <vector>

#include "common/base/result.h"
#include "common/compare_atb/atb_compare.h"

namespace msit::atb {

// Written through an OutputFile (common/io/output_file.h): O_EXCL temp, no-replace publication.
Status write_xlsx_report(const std::string& path, const std::vector<AtbSheet>& sheets, bool extra_columns);

}  // namespace msit::atb
