// Manual mapping (docs/formats/atb-torch.md §3.10): msit's dump_data writes golden_tensor/metadata.json
// {data_id: {token_id: [golden .pth, my file]}}; ait compared one row per entry with those ids.
#include <filesystem>

#include <nlohmann/json.hpp>

#include "common/compare/engine.h"
#include "common/compare_atb/atb_compare_internal.h"
#include "common/compare_atb/file_label.h"
#include "common/compare_atb/files.h"
#include "common/compare_atb/legacy.h"
#include "common/compare_atb/legacy_internal.h"
#include "common/compare_atb/topology.h"

namespace msit::atb {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;  // file order, as Python's dict

constexpr uint32_t kMetadataDepth = 8;

bool decimal(const std::string& s) {
  return !s.empty() && s.size() <= 18 && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool usable_path(const Json& v) {
  if (!v.is_string()) return false;
  const auto& s = v.get_ref<const std::string&>();
  return !s.empty() && s.size() <= kMaxManualPath && s.find('\0') == std::string::npos;
}

// ait: a missing file is a row whose reason says so; the other side is still named.
FilePair pair_of(const ManualEntry& e) {
  FilePair p;
  p.data_id = e.data_id;
  if (decimal(e.token)) p.token = std::stoll(e.token);
  else p.token_text = e.token;
  p.golden_cell = e.golden;
  p.my_cell = e.my;
  std::string g = absolute_path(e.golden), m = absolute_path(e.my);
  auto gs = find_source(g), ms = find_source(m);
  if (!gs) p.problem = RowProblem{RowProblem::Kind::kGoldenUnreadable, e.golden, " is not a file."};
  else if (!ms) p.problem = RowProblem{RowProblem::Kind::kMyUnreadable, e.my, " is not a file."};
  if (gs) p.golden = std::move(*gs);
  if (ms) p.my = std::move(*ms);
  p.my_label = dump_file_label(e.my);
  p.golden_label = p.my_label;
  return p;
}

}  // namespace

Result<std::vector<ManualEntry>> parse_manual_metadata(std::string_view text, const std::string& path,
                                                       std::vector<std::string>& warnings) {
  MSIT_TRY(check_json_depth(text, kMetadataDepth, path));
  Json doc = Json::parse(text.begin(), text.end(), nullptr, false);
  if (doc.is_discarded()) return make_error(path, Stage::kMetadata, "not valid JSON");
  if (!doc.is_object())
    return make_error(path, Stage::kMetadata, "expected an object {data_id: {token_id: [golden, my]}}");
  std::vector<ManualEntry> out;
  for (const auto& [data_id, tokens] : doc.items()) {
    if (!decimal(data_id))
      return make_error(path, Stage::kMetadata, "data_id '" + data_id.substr(0, 64) + "' is not a decimal integer");
    if (!tokens.is_object())
      return make_error(path, Stage::kMetadata, "data_id " + data_id + ": expected an object {token_id: [golden, my]}");
    for (const auto& [token, paths] : tokens.items()) {
      if (token.empty() || token.size() > 64)
        return make_error(path, Stage::kMetadata, "data_id " + data_id + ": bad token_id");
      if (!paths.is_array() || paths.size() < 2 || !usable_path(paths[0]) || !usable_path(paths[1])) {
        warnings.push_back(path + ": data_id " + data_id + ", token_id " + token +
                           ": expected [golden_path, my_path] (non-empty strings); entry skipped");
        continue;
      }
      if (out.size() >= kMaxManualEntries) {
        return make_error(path, Stage::kMetadata, "more than " + std::to_string(kMaxManualEntries) + " entries");
      }
      out.push_back(ManualEntry{std::stoull(data_id), token, paths[0].get<std::string>(), paths[1].get<std::string>()});
    }
  }
  return out;
}

bool has_manual_mapping(const std::string& golden_path) {
  std::error_code ec;
  return fs::is_directory(fs::path(golden_path) / "golden_tensor", ec);
}

Result<LegacyResult> run_manual_mapping(const std::string& golden_path, const LegacyOptions& o) {
  std::string meta = (fs::path(golden_path) / "golden_tensor" / "metadata.json").string();
  std::error_code ec;
  if (!fs::is_regular_file(meta, ec))
    return make_error(meta, Stage::kMetadata, "golden_tensor/ holds no metadata.json");
  MSIT_ASSIGN_OR_RETURN(std::string text, read_topology_file(meta));
  LegacyResult res;
  MSIT_ASSIGN_OR_RETURN(auto entries, parse_manual_metadata(text, meta, res.warnings));
  res.description = "manual mapping (" + meta + ")";
  std::vector<FilePair> pairs;
  pairs.reserve(entries.size());
  for (const auto& e : entries) pairs.push_back(pair_of(e));
  res.rows = evaluate_file_pairs(pairs, o.jobs, o.eval);
  post_pass(res.rows);
  return res;
}

}  // namespace msit::atb
