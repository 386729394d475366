// Names of ATB and torch-hook dump files and directories (docs/formats/atb-torch.md §1.1, §1.2 item 5, §2.1-§2.2):
// which files are tensors, their role and index, and where a path sits in a dump tree.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/formats/tensor_desc.h"

namespace msit {

// `intensor{k}.bin`, `outtensor{k}.bin`, and since ATB 8f5d4e8c `intensor{k}_{irName}.bin`.
struct AtbTensorName {
  Role role = Role::kInput;
  uint32_t index = 0;
  std::string ir_name;  // empty for the classic names
};
std::optional<AtbTensorName> parse_atb_tensor_name(std::string_view file_name);

// `input_{i}[_{j}...].pth`, `output.pth`, `output_{i}[_{j}...].pth`.
struct TorchTensorName {
  Role role = Role::kInput;
  std::vector<uint32_t> indices;  // empty for a bare `output.pth`
};
std::optional<TorchTensorName> parse_torch_tensor_name(std::string_view file_name);

// Dump roots: `msit_dump`, `msit_dump_{ts}`, `ait_dump`, `ait_dump_{ts}` (docs/formats/atb-torch.md §1.1, §2.1).
bool is_atb_torch_dump_root_name(std::string_view dir_name);

// A file below `{root}/tensors/{dev}_{pid}/{token}/...` (ATB) or
// `{root}/torch_tensors/{dev}_{pid}/{token}/...` (torch hooks), split into its parts.
struct DumpTreePath {
  enum class Tree : uint8_t { kAtb, kTorch } tree = Tree::kAtb;
  std::string root;                  // path up to and including the dump root dir
  std::string process_dir;           // `{dev}_{pid}`, e.g. "0_1234", "npu5_7624"
  std::string token;                 // ATB exec count / torch token dir name
  std::vector<std::string> op_dirs;  // ATB: `{id}_{Type}` levels; torch: the module dir
  std::string stage;                 // ATB: "before" | "after"; torch: empty
  std::string file_name;
};
// Recognises the first `tensors` / `torch_tensors` component whose parent is a dump root.
std::optional<DumpTreePath> parse_dump_tree_path(std::string_view path);

}  // namespace msit
