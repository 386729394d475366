// Op names and types from dump file names (docs/formats/ge-dump.md §1 and docs/formats/fx-npy.md §1).
#include "common/report/op_label.h"

#include <vector>

namespace msit {
namespace {

std::vector<std::string_view> split_dots(std::string_view s) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || s[i] == '.') {
      parts.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  return parts;
}

std::string_view tail_index(std::string_view cell, std::string_view tag) {
  size_t at = cell.rfind(tag);
  return at == std::string_view::npos ? std::string_view() : cell.substr(at + tag.size());
}

}  // namespace

std::string cell_file(std::string_view cell) {
  size_t cut = std::min(cell.find(",inputs,"), cell.find(",outputs,"));
  return std::string(cell.substr(0, cut));
}

OpLabel op_label(const ReportRow& r) {
  OpLabel l;
  std::string_view cell = r.my_data_path;
  std::string file = cell_file(cell);
  std::string_view base = file;
  if (size_t slash = base.rfind('/'); slash != std::string_view::npos) base.remove_prefix(slash + 1);
  if (std::string_view k = tail_index(cell, ",outputs,"); !k.empty() && cell.size() > file.size()) {
    l.tensor = "output " + std::string(k);
  } else if (std::string_view k2 = tail_index(cell, ",inputs,"); !k2.empty()) {
    l.tensor = "input " + std::string(k2);
  }
  for (auto [tag, what] : {std::pair<std::string_view, const char*>{".OUTPUT.", "output "}, {".INPUT.", "input "}}) {
    size_t at = base.find(tag);
    if (at == std::string_view::npos) continue;  // not an FX npy name
    std::string_view node_target = base.substr(0, at);
    size_t dash = node_target.find('-');
    l.name = std::string(node_target.substr(0, dash));
    l.type = dash == std::string_view::npos ? "" : std::string(node_target.substr(dash + 1));
    auto rest = split_dots(base.substr(at + tag.size()));
    l.tensor = what + std::string(rest.empty() ? "" : rest[0]);
    return l;
  }
  auto parts = split_dots(base);
  if (parts.size() >= 2) {
    l.type = std::string(parts[0]);
    l.name = std::string(parts[1]);
  } else {
    l.name = std::string(base);
  }
  return l;
}

std::string op_text(const ReportRow& r) {
  OpLabel l = op_label(r);
  std::string s = l.name;
  if (!l.type.empty()) s += " (" + l.type + ")";
  if (!l.tensor.empty()) s += " " + l.tensor;
  return s;
}

}  // namespace msit
