// File and directory names of ATB and torch-hook dumps (docs/formats/atb-torch.md §1.1, §1.2 item 5, §2.2).
#include "common/formats/atb_names.h"

namespace msit {
namespace {

bool consume(std::string_view& s, std::string_view prefix) {
  if (s.substr(0, prefix.size()) != prefix) return false;
  s.remove_prefix(prefix.size());
  return true;
}

bool strip_suffix(std::string_view& s, std::string_view suffix) {
  if (s.size() < suffix.size() || s.substr(s.size() - suffix.size()) != suffix) return false;
  s.remove_suffix(suffix.size());
  return true;
}

// Leading decimal digits of s (at most 9, so the value fits a uint32 without overflow checks).
std::optional<uint32_t> take_number(std::string_view& s) {
  size_t n = 0;
  uint32_t v = 0;
  for (; n < s.size() && n < 10 && s[n] >= '0' && s[n] <= '9'; ++n) v = v * 10 + static_cast<uint32_t>(s[n] - '0');
  if (n == 0 || n > 9) return std::nullopt;
  s.remove_prefix(n);
  return v;
}

std::vector<std::string_view> split_path(std::string_view p) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (start <= p.size()) {
    size_t slash = p.find('/', start);
    if (slash == std::string_view::npos) slash = p.size();
    if (slash > start) parts.push_back(p.substr(start, slash - start));
    start = slash + 1;
  }
  return parts;
}

}  // namespace

std::optional<AtbTensorName> parse_atb_tensor_name(std::string_view s) {
  AtbTensorName n;
  if (!strip_suffix(s, ".bin")) return std::nullopt;
  if (consume(s, "intensor")) {
    n.role = Role::kInput;
  } else if (consume(s, "outtensor")) {
    n.role = Role::kOutput;
  } else {
    return std::nullopt;
  }
  auto k = take_number(s);
  if (!k) return std::nullopt;
  n.index = *k;
  if (s.empty()) return n;
  if (s[0] != '_' || s.size() == 1) return std::nullopt;
  n.ir_name = std::string(s.substr(1));
  return n;
}

std::optional<TorchTensorName> parse_torch_tensor_name(std::string_view s) {
  TorchTensorName n;
  if (!strip_suffix(s, ".pth")) return std::nullopt;
  if (consume(s, "input")) {
    n.role = Role::kInput;
  } else if (consume(s, "output")) {
    n.role = Role::kOutput;
  } else {
    return std::nullopt;
  }
  while (!s.empty()) {
    if (s[0] != '_') return std::nullopt;
    s.remove_prefix(1);
    auto k = take_number(s);
    if (!k) return std::nullopt;
    n.indices.push_back(*k);
  }
  // Inputs are always a tuple (input_0.pth); a bare "input.pth" is no hook's name.
  if (n.role == Role::kInput && n.indices.empty()) return std::nullopt;
  return n;
}

bool is_atb_torch_dump_root_name(std::string_view d) {
  for (std::string_view stem : {std::string_view("msit_dump"), std::string_view("ait_dump")}) {
    if (d == stem) return true;
    if (d.size() > stem.size() + 1 && d.substr(0, stem.size()) == stem && d[stem.size()] == '_') return true;
  }
  return false;
}

std::optional<DumpTreePath> parse_dump_tree_path(std::string_view path) {
  const std::vector<std::string_view> parts = split_path(path);
  for (size_t i = 1; i + 3 < parts.size(); ++i) {
    const bool atb = parts[i] == "tensors", torch = parts[i] == "torch_tensors";
    if ((!atb && !torch) || !is_atb_torch_dump_root_name(parts[i - 1])) continue;
    DumpTreePath p;
    p.tree = atb ? DumpTreePath::Tree::kAtb : DumpTreePath::Tree::kTorch;
    const size_t root_end = static_cast<size_t>(parts[i - 1].data() - path.data()) + parts[i - 1].size();
    p.root = std::string(path.substr(0, root_end));
    p.process_dir = std::string(parts[i + 1]);
    p.token = std::string(parts[i + 2]);
    p.file_name = std::string(parts.back());
    size_t last_dir = parts.size() - 1;
    if (atb && last_dir > i + 3 && (parts[last_dir - 1] == "before" || parts[last_dir - 1] == "after")) {
      p.stage = std::string(parts[last_dir - 1]);
      --last_dir;
    }
    for (size_t j = i + 3; j < last_dir; ++j) p.op_dirs.emplace_back(parts[j]);
    return p;
  }
  return std::nullopt;
}

}  // namespace msit
