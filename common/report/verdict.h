// Verdict: the threshold outcome of one compared pair (the report's verdict column). Callers
// count and branch on it (exit status, summaries), so it is an enum; verdict_name() is its text.
#pragma once

#include <cstdint>
#include <string_view>

namespace msit {

// kNone: no verdict (an empty cell). The others print as pass, fail, skip, error, inconclusive.
enum class Verdict : uint8_t { kNone, kPass, kFail, kSkip, kError, kInconclusive };
std::string_view verdict_name(Verdict v);

}  // namespace msit
