// msProbe's stack.json for the NPU_Stack_Info column (docs/formats/msprobe-compare.md §4): each
// entry's call stack, from either format (entry -> frames, or deduplicated groups
// "0": [[entries], [frames]]), read as a stream.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/base/result.h"
#include "common/io/byte_source.h"

namespace msit {

class MsStackInfo {
 public:
  static Result<MsStackInfo> read(const std::string& path);
  static Result<MsStackInfo> read(ByteSource& src);
  // The cell of an entry's first row: Python's str() of its frame list; "N/A" when stack.json
  // has no stack for it (msProbe's other rows say N/A too).
  std::string cell(const std::string& entry) const;

 private:
  std::vector<std::string> stacks_;                  // each distinct stack's cell text
  std::unordered_map<std::string, uint32_t> index_;  // entry -> stacks_
};

// Python's repr() of a str.
std::string py_str_repr(std::string_view s);

}  // namespace msit
