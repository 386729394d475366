// Helpers shared by the -lm files (layer_scope.cpp, layer_mapping.cpp).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace msit {

// Python's s.split('.'): "" gives one empty field.
std::vector<std::string> ms_split_dots(std::string_view s);

}  // namespace msit
