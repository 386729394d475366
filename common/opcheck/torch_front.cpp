// The torch front end of opcheck: a torch hook dump's API directory ({module}.{func}/ with
// input_{i}.pth and output.pth, docs/formats/atb-torch.md §1.2) makes an OpCall. Hooks dump
// tensors only, so a function whose values depend on a non-tensor argument (softmax's dim,
// gelu's approximate, layer_norm's eps) is not recomputed.
#include <filesystem>
#include <map>

#include "common/archive/archive_source.h"
#include "common/formats/pth_reader.h"
#include "common/io/tree_walk.h"
#include "common/opcheck/opcheck.h"

namespace msit::opcheck {
namespace {

namespace fs = std::filesystem;

Result<OpTensor> open_pth(const std::string& path, Role role, uint32_t index) {
  MSIT_ASSIGN_OR_RETURN(auto opened, archive::open_dump_source(path));
  MSIT_ASSIGN_OR_RETURN(RawDumpFile raw, read_pth_header(*opened.src, opened.identity));
  if (raw.tensors.size() != 1) return make_error(path, Stage::kHeader, "not a .pth file of one tensor");
  OpTensor t{opened.src, path, raw.tensors[0], std::nullopt};
  t.desc.role = role;
  t.desc.index = index;
  return t;
}

// The .pth files of dir: name stem -> path ("input_0", "input_0_1", "output", "output_0").
std::map<std::string, std::string> pth_files(const std::string& dir) {
  std::map<std::string, std::string> out;
  (void)list_dir_path(dir, [&](std::string_view n, EntryType t) {
    if (t == EntryType::kFile && n.size() > 4 && n.substr(n.size() - 4) == ".pth")
      out.emplace(std::string(n.substr(0, n.size() - 4)), (fs::path(dir) / std::string(n)).string());
  });
  return out;
}

// The concat axis from the shapes: the one dim where the output differs from input 0.
std::optional<int64_t> cat_axis(const OpCall& c) {
  const auto& out = c.outputs[0].desc.original_shape;
  const auto& in = c.inputs[0].desc.original_shape;
  if (in.size() != out.size()) return std::nullopt;
  std::optional<int64_t> axis;
  for (size_t d = 0; d < out.size(); ++d) {
    if (out[d] == in[d]) continue;
    if (axis) return std::nullopt;
    axis = static_cast<int64_t>(d);
  }
  if (!axis && c.inputs.size() == 1) axis = 0;  // one input: any axis gives the same values
  return axis;
}

}  // namespace

std::optional<std::string> torch_api_of_dir(const std::string& dir) {
  const std::string base = fs::path(dir).lexically_normal().filename().string();
  const size_t dot = base.rfind('.');
  if (dot == std::string::npos) return std::nullopt;
  std::string api = base.substr(dot + 1);
  if (!torch_api_known(api)) return std::nullopt;
  return api;
}

FrontEnd torch_front_end(const std::string& dir) {
  OpCall c;
  c.op_name = fs::path(dir).lexically_normal().filename().string();
  c.op_type = torch_api_of_dir(dir).value_or("");
  const auto files = pth_files(dir);
  auto add = [&](const std::string& stem, Role role, std::vector<OpTensor>& to) -> std::optional<OpCheckResult> {
    auto it = files.find(stem);
    if (it == files.end()) return std::nullopt;
    auto t = open_pth(it->second, role, static_cast<uint32_t>(to.size()));
    if (!t.ok()) return not_recomputed(c, SkipReason::kUnreadable, t.error().to_string());
    to.push_back(std::move(*t));
    return std::nullopt;
  };
  const bool list_input = files.count("input_0_0") > 0;  // cat: one list argument
  for (uint32_t i = 0; i < 64; ++i) {
    const std::string stem = list_input ? "input_0_" + std::to_string(i) : "input_" + std::to_string(i);
    if (!files.count(stem)) break;
    if (auto r = add(stem, Role::kInput, c.inputs)) return *r;
  }
  if (auto r = add(files.count("output") ? "output" : "output_0", Role::kOutput, c.outputs)) return *r;
  const TorchApi api = torch_api(c.op_type);
  if (!api.kind) return not_recomputed(c, SkipReason::kMissingAttribute, std::string(api.why));
  c.kind = *api.kind;
  if (c.outputs.empty())
    return not_recomputed(c, SkipReason::kMissingInput, "the dump has no output.pth of " + c.op_name);
  if (c.inputs.size() < api.min_inputs) {
    return not_recomputed(c, SkipReason::kMissingInput,
                          c.op_type + " needs " + std::to_string(api.min_inputs) + " tensor inputs; the dump has " +
                              std::to_string(c.inputs.size()) + " (a scalar argument is not dumped)");
  }
  OpParams& p = c.params;
  switch (c.kind) {
    case OpKind::kLinear:
      p.transpose_b = true;  // weight [out_features, in_features]
      p.has_bias = c.inputs.size() >= 3;
      break;
    case OpKind::kGather:  // embedding(input, weight): rows of weight
      std::swap(c.inputs[0], c.inputs[1]);
      p.axis = 0;
      break;
    case OpKind::kConcat: {
      auto axis = cat_axis(c);
      if (!axis) return not_recomputed(c, SkipReason::kShapeMismatch, "the concat dim cannot be told from the shapes");
      p.axis = *axis;
      break;
    }
    default: break;
  }
  return c;
}

}  // namespace msit::opcheck
