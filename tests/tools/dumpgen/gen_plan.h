// Random but realistic choices for the tree: tensor shapes, dtypes, formats, names, layouts.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tests/tools/dumpgen/gen_files.h"
#include "tests/tools/dumpgen/gen_tensor.h"

namespace dumpgen {

struct PlanLimits {
  std::vector<const DTypeSpec*> dtypes;  // allowed dtypes
  uint64_t max_elements = 65536;
  bool favour_floats = false;  // default dtype mix: mostly fp16/bf16/fp32
};

// A tensor plan for a GE (device formats allowed) or FX (npy) tensor.
TensorPlan plan_tensor(Rng& rng, const PlanLimits& lim, bool ge);
// Builds the tensor for a plan with freshly generated values.
GenTensor make_tensor(Rng& rng, const TensorPlan& plan);
// A GE op with 1-3 inputs and 1-2 outputs and a realistic (dotted / fused) name.
GeOp random_ge_op(Rng& rng, const PlanLimits& lim, uint64_t seq);

struct FxFile {
  std::string name;  // "{node}-{target}.INPUT.0.{ts}.npy"
  GenTensor tensor;
};
// The files of one FX node call (inputs incl. list arguments, outputs), sharing one timestamp.
std::vector<FxFile> random_fx_node(Rng& rng, const PlanLimits& lim, uint64_t seq);

struct Leaf {
  std::string rel;  // directory relative to the tree root
  bool ge = false;
};
struct LayoutTree {
  std::vector<Leaf> leaves;
  std::vector<std::pair<std::string, std::string>> extras;  // rel path, content (graph text)
};
const std::vector<std::string>& layout_names();
// Directories of layout `name` placed under `prefix` (docs/formats/fx-npy.md §2 and docs/formats/ge-dump.md §10).
LayoutTree layout_tree(const std::string& name, const std::string& prefix, int ranks, int tokens);

}  // namespace dumpgen
