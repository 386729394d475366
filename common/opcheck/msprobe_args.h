// Internal to common/opcheck's msProbe front end: one dump.json entry's arguments looked up as a
// torch signature names them (positional index or keyword), and its tensors opened from the
// rank's tensor directory. msprobe_front.cpp reads the entry; msprobe_api.cpp maps the APIs.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/formats/msprobe_dump_json.h"
#include "common/opcheck/opcheck.h"

namespace msit::opcheck::detail {

class MsprobeArgs {
 public:
  MsprobeArgs(const MsprobeEntry& e, std::string tensor_dir) : e_(e), tensor_dir_(std::move(tensor_dir)) {}
  // The leaf at exactly (category, path), or nullptr.
  const MsprobeLeaf* at(MsprobeCategory c, const std::vector<std::string>& path) const;
  // Positional argument i, else keyword `name` (nullptr: not passed, or a nested value).
  const MsprobeLeaf* arg(size_t i, std::string_view name) const;
  // Whether argument i / `name` was passed at all, in any form (a list, a null, a scalar).
  bool passed(size_t i, std::string_view name) const;
  // The integers of a list argument (normalized_shape): int leaves below it, or one typed value
  // such as torch.Size whose value is "[4096]"; nullopt when it is neither.
  std::optional<std::vector<int64_t>> ints(size_t i, std::string_view name) const;
  // The tensor file of a tensor leaf, as an op input or output. An output MindSpore saved wider
  // than the kernel made it (bf16 as fp32, docs/formats/msprobe.md §8) is checked at the record's dtype (kernel_dtype).
  Result<OpTensor> open(const MsprobeLeaf& l, Role role, uint32_t index) const;
  // Whether the entry is MindSpore's (its tensor records are mindspore.Tensor): its API names
  // are read with MindSpore's signatures (msprobe_api.cpp).
  bool mindspore() const;

 private:
  const MsprobeEntry& e_;
  std::string tensor_dir_;
};

// A scalar leaf's number when it is an integer / any number.
std::optional<int64_t> leaf_int(const MsprobeLeaf* l);
std::optional<double> leaf_number(const MsprobeLeaf* l);
// A str argument's text (gelu's approximate); nullopt when the leaf is no string scalar.
std::optional<std::string> leaf_text(const MsprobeLeaf* l);

// The OpCall of API `api` (the entry name's op: "linear", "softmax", "npu_rms_norm") of prefix
// `prefix` ("Functional", "Mint", "Primitive": it matters for MindSpore entries), or why it is
// not recomputed. `c` carries the names for reports.
FrontEnd msprobe_api_call(std::string_view prefix, std::string_view api, const MsprobeArgs& args, OpCall c);

}  // namespace msit::opcheck::detail
