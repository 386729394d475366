// Small formatting helpers for terminal output.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace msit::cli {

std::string human_bytes(uint64_t bytes);                 // "1.2 GB"
std::string shape_string(const std::vector<uint64_t>& s);  // "[2, 3]"
std::string number_string(double v);                      // shortest round-trip

}  // namespace msit::cli
