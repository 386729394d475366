// msit HEAD's default report (atb-torch.md 3.8): one .xlsx with sheets layer, module, api.
#pragma once

#include <string>
#include <vector>

#include "common/base/result.h"
#include "common/compare_atb/atb_compare.h"

namespace msit::atb {

// Written to a temp file in the same directory, then renamed into place.
Status write_xlsx_report(const std::string& path, const std::vector<AtbSheet>& sheets, bool extra_columns);

}  // namespace msit::atb
