// Discrete pairs (docs/compare.md "Discrete outputs"): bool and integer tensors (argmax and top-k
// indices, comparison masks, counts) are compared for equality, not as a continuous error.
#pragma once

#include <cstdint>
#include <optional>

#include "common/compare/jump_row.h"
#include "common/report/report_row.h"

namespace msit {

// Either side's own dtype is bool or integer.
bool discrete_row(const ReportRow& r);
bool discrete_row(const JumpRow& r);
// A discrete row whose elements are not all equal: counted flips, else (sketch estimates) any
// metric off its value for identical tensors.
bool discrete_differs(const ReportRow& r);
bool discrete_differs(const JumpRow& r);

// Judges a discrete pair that has metrics by equality: pass when every element is equal, else
// skip, with a note that counts the flips (differing of count elements; nullopt: not counted).
// msprobe's thresholds do not apply: an argmax whose two largest inputs are within noise of each
// other flips, and the flipped index differs by anything. Rows that are not discrete are left.
void judge_discrete(ReportRow& r, std::optional<uint64_t> differing, std::optional<uint64_t> count);

}  // namespace msit
