// msProbe's construct.json (docs/formats/msprobe-compare.md §8): each entry's parent module. The
// chain of modules around one entry, found by streaming the file once per level (memory: one
// name, never the file).
#pragma once

#include <string>
#include <vector>

#include "common/base/result.h"

namespace msit {

// The modules enclosing `entry`, innermost first ("Module.layers.0.attn.Attention.forward.0",
// ...); empty when construct.json does not name a parent. At most 64 levels (a cycle in a crafted
// file ends there).
Result<std::vector<std::string>> ms_module_chain(const std::string& construct_json, const std::string& entry);

}  // namespace msit
