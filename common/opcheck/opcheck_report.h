// opcheck's results as the terminal shows them (a verdict line and one line per output) and as
// JSON (`opcheck --json`, and the compare reports' recompute block).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/opcheck/op_call.h"

namespace msit::opcheck {

// "MatMul_3 (MatMulV2): the kernel disagrees with its own inputs" or "... not recomputed: why".
std::string verdict_line(const OpCheckResult& r);
// One line per output: elements beyond the bound, the worst element, cosine, RED, max abs, ulps.
std::vector<std::string> output_lines(const OpCheckResult& r);
nlohmann::json result_json(const OpCheckResult& r);

}  // namespace msit::opcheck
