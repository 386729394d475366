// Nesting depth of JSON text, counted before it is parsed: nlohmann's recursive parser would
// otherwise meet a crafted file of a million '[' with a million stack frames.
#pragma once

#include <cstdint>
#include <string_view>

namespace msit {

// True when brackets outside strings nest deeper than max_depth.
bool json_nesting_exceeds(std::string_view text, uint32_t max_depth);

}  // namespace msit
