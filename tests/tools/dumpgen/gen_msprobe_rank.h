// One msProbe rank folder being written (docs/formats/msprobe.md §1, §3-§8): tensor records with
// msProbe's statistics, their .pt / .npy files in tensor mode, CRC-32 in md5 mode, and at the
// end dump.json, stack.json and construct.json in the generation's shape.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/tools/dumpgen/gen_json.h"
#include "tests/tools/dumpgen/gen_msprobe.h"

namespace dumpgen {

class MsprobeRankWriter {
 public:
  // `rel` is the rank folder relative to o.out; `manifest` collects every tensor file written.
  MsprobeRankWriter(const MsprobeGenOptions& o, std::string framework, std::string rel, nlohmann::json& manifest);

  // A tensor record of values `v` (already rounded to `dtype`, a numpy-style name); in tensor
  // mode also its file `{stem}.pt|.npy` and "data_name".
  Json record(const std::vector<double>& v, const std::vector<uint64_t>& shape, const std::string& dtype,
              const std::string& stem, bool requires_grad);
  // A scalar leaf {"type": T, "value": V}.
  static Json scalar(const std::string& type, Json value);
  Json dtype_leaf(const std::string& dtype) const;  // torch.dtype / mindspore.dtype kwarg

  // Appends an entry to "data"; `parent` is its module at level mix ("" = none: null).
  void add_entry(const std::string& name, Json body, const std::string& parent);
  // Writes dump.json, stack.json and construct.json (json.dump with indent=1).
  void finish();

  // This folder is MindSpore's graph half (docs/formats/msprobe.md §1.2): level L0, the jit
  // cells' entries only, dump.json and stack.json as msProbe builds them from TensorDump's files.
  void graph_half() { graph_half_ = true; }

  const std::string& framework() const { return framework_; }
  int generation() const { return o_.generation; }
  std::string dtype_text(const std::string& dtype) const;  // torch.bfloat16 / BFloat16

 private:
  const MsprobeGenOptions& o_;
  std::string framework_, rel_, dir_;
  nlohmann::json& manifest_;
  Json data_ = Json::object(), construct_ = Json::object(), stack_ = Json::object();
  std::vector<std::string> forward_names_;
  uint64_t files_ = 0;
  bool graph_half_ = false;
};

}  // namespace dumpgen
