// The custom mapping table: msit's built-in entries plus op_mapping_file.json (3.4).
#include <algorithm>
#include <nlohmann/json.hpp>

#include "common/compare_atb/match.h"

namespace msit::atb {
namespace {

bool valid_word(const std::string& s) {
  for (char c : s) {
    bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    if (!ok) return false;
  }
  return true;
}

constexpr size_t kMaxMappingEntries = 100'000;

}  // namespace

std::vector<MappingEntry> custom_table(const std::vector<MappingEntry>& user) {
  std::vector<MappingEntry> t = {{"CommonLayer_outtensor0", {"GLMBlock_output_0", "BloomBlock_output_0"}},
                                 {"MlpGateLayerV2", {"BloomMLP", "MLP"}},
                                 {"RmsNormOperation", {"RMSNorm"}},
                                 {"SelfAttentionOperation", {"CoreAttention"}}};
  for (const auto& e : user) {
    auto it = std::find_if(t.begin(), t.end(), [&](const MappingEntry& x) { return x.first == e.first; });
    if (it != t.end()) it->second = e.second;  // a dict assignment keeps the key's position
    else t.push_back(e);
  }
  return t;
}

Result<std::vector<MappingEntry>> parse_op_mapping(std::string_view text, const std::string& path, bool msit_compat) {
  if (text.size() > kMaxTopologyBytes) return make_error(path, Stage::kOpMapping, "file too large");
  MSIT_TRY(check_json_depth(text, 4, path));
  auto j = nlohmann::ordered_json::parse(text.begin(), text.end(), nullptr, false);
  if (j.is_discarded() || !j.is_object()) return make_error(path, Stage::kOpMapping, "not a JSON object");
  if (j.size() > kMaxMappingEntries) return make_error(path, Stage::kOpMapping, "too many entries");
  std::vector<MappingEntry> out;
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (!valid_word(it.key()))
      return make_error(path, Stage::kOpMapping, "key \"" + it.key() + "\" is not [A-Za-z0-9_]*");
    MappingEntry e{it.key(), {}};
    auto add = [&](const nlohmann::ordered_json& v) -> Status {
      if (!v.is_string() || !valid_word(v.get<std::string>())) {
        return make_error(path, Stage::kOpMapping, "value of \"" + it.key() + "\" must be [A-Za-z0-9_]* strings");
      }
      e.second.push_back(v.get<std::string>());
      return ok_status();
    };
    if (it->is_string()) {
      MSIT_TRY(add(*it));
      if (msit_compat) {  // msit loops over the str: one-letter substrings
        std::string s = e.second.front();
        e.second.clear();
        for (char c : s) e.second.emplace_back(1, c);
      }
    } else if (it->is_array()) {
      for (const auto& v : *it) MSIT_TRY(add(v));
    } else {
      return make_error(path, Stage::kOpMapping, "value of \"" + it.key() + "\" is neither a string nor a list");
    }
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace msit::atb
