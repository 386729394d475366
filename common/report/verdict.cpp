// The verdict column's texts.
#include "common/report/verdict.h"

namespace msit {

std::string_view verdict_name(Verdict v) {
  switch (v) {
    case Verdict::kNone: return "";
    case Verdict::kPass: return "pass";
    case Verdict::kFail: return "fail";
    case Verdict::kSkip: return "skip";
    case Verdict::kError: return "error";
    case Verdict::kInconclusive: return "inconclusive";
  }
  return "?";
}

}  // namespace msit
