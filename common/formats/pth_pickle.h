// The pickle subset torch.save uses for one tensor (docs/formats/atb-torch.md §1.3): a REDUCE of
// torch._utils._rebuild_tensor_v2 over a BINPERSID storage tuple. Anything else is an
// "unsupported .pth content" error; hostile pickles are bounded in size, depth and memo.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "common/base/result.h"

namespace msit {

inline constexpr uint64_t kMaxPthPickleBytes = 1u << 20;

struct PthTensorRef {
  std::string storage_class;  // "FloatStorage", "BFloat16Storage", ...
  std::string key;            // storage member: {top}/data/{key}
  std::string location;       // "cpu", "npu:0", "cuda:1"
  uint64_t storage_numel = 0;
  uint64_t storage_offset = 0;  // in elements
  std::vector<uint64_t> size, stride;
  bool requires_grad = false;
};

// Parses data.pkl; errors name `path`. Accepts a torch.nn.Parameter (_rebuild_parameter)
// around the tensor; containers (tuple/list/dict of tensors) are unsupported.
Result<PthTensorRef> parse_pth_pickle(std::span<const std::byte> pkl, const std::string& path);

}  // namespace msit
