// Small formatting helpers for terminal output; sizes and times are common/base/human_units.h.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/base/human_units.h"

namespace msit::cli {

std::string shape_string(const std::vector<uint64_t>& s);  // "[2, 3]"
std::string number_string(double v);                       // shortest round-trip

}  // namespace msit::cli
