// Op labels of single tensor files (docs/compare.md "Op labels").
#include "common/compare_atb/file_label.h"

#include <algorithm>
#include <filesystem>
#include <vector>

#include "common/compare/dump_index.h"
#include "common/compare_atb/atb_compare_internal.h"

namespace msit::atb {
namespace {

namespace fs = std::filesystem;

bool decimal(const std::string& s) {
  return !s.empty() && s.size() <= 18 && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// "2_BlockLayer": an ATB node directory ({index}_{opName}, docs/formats/atb-torch.md §2).
bool atb_node_dir(const std::string& c) {
  size_t u = c.find('_');
  return u != std::string::npos && u > 0 && u + 1 < c.size() && decimal(c.substr(0, u));
}

// {node}-{target}.INPUT.{k}[.{j}].{ts}.npy / .OUTPUT.{k}.{ts}.npy (docs/formats/fx-npy.md §2).
TensorLabel fx_label(const std::string& raw) {
  if (!raw.ends_with(".npy")) return {};
  bool input = false;
  std::string key = msit_fx_node_key(raw, &input);
  if (key.size() == raw.size()) return {};  // neither .INPUT. nor .OUTPUT.
  TensorLabel l;
  size_t dash = key.find('-');
  l.op = key.substr(0, dash);
  if (dash != std::string::npos) l.op_type = key.substr(dash + 1);
  l.role = input ? TensorRole::kInput : TensorRole::kOutput;
  size_t at = key.size() + (input ? 7 : 8);  // past ".INPUT." / ".OUTPUT."
  uint32_t k = 0;
  while (at < raw.size() && raw[at] >= '0' && raw[at] <= '9' && k < 100000) k = k * 10 + (raw[at++] - '0');
  l.index = k;
  return l.op.empty() ? TensorLabel{} : l;
}

}  // namespace

TensorLabel dump_file_label(const std::string& path) {
  TensorLabel l;
  fs::path p(path);
  std::string file = p.filename().string();
  file_role(file, l);
  if (l.role == TensorRole::kUnknown) return l;
  std::vector<std::string> parts;
  for (const auto& c : p.parent_path()) parts.push_back(c.string());
  if (!parts.empty() && (parts.back() == "after" || parts.back() == "before")) {
    size_t end = parts.size() - 1, first = end;
    while (first > 0 && atb_node_dir(parts[first - 1])) --first;
    if (first == end || first == 0 || !decimal(parts[first - 1])) return TensorLabel{};  // no token dir above
    for (size_t k = first; k < end; ++k) l.op += (k == first ? "" : "/") + parts[k];
    l.op_type = parts[end - 1].substr(parts[end - 1].find('_') + 1);
    return l;
  }
  if (file.ends_with(".pth") && !parts.empty()) {
    l.op = parts.back();  // the module's directory is its name (root.layers.2.fc)
    return l;
  }
  return TensorLabel{};
}

TensorLabel two_file_label(const std::string& path) {
  fs::path p(path);
  auto raw = raw_name_of(p.filename().string());
  std::string raw_name = raw ? raw->first : p.filename().string();
  std::string raw_path = (p.parent_path() / raw_name).string();
  if (TensorLabel l = dump_file_label(raw_path); l.known()) return l;
  if (TensorLabel l = fx_label(raw_name); l.known()) return l;
  TensorLabel l;
  l.op = raw_name;
  return l;
}

}  // namespace msit::atb
