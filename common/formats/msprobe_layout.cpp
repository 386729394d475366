// msProbe's tree shapes (docs/formats/msprobe.md §1, §2), from directory listings that follow
// no link.
#include "common/formats/msprobe_layout.h"

#include <algorithm>
#include <utility>

#include "common/io/tree_walk.h"

namespace msit {
namespace {

bool has(std::span<const std::string> names, std::string_view n) {
  return std::find(names.begin(), names.end(), n) != names.end();
}

bool any_of_names(std::span<const std::string> names, bool (*pred)(std::string_view)) {
  return std::any_of(names.begin(), names.end(), [&](const std::string& n) { return pred(n); });
}

bool is_step(std::string_view n) { return parse_msprobe_step_dir(n).has_value(); }
bool is_rank(std::string_view n) { return parse_msprobe_rank_dir(n).has_value(); }

MsprobeRankDir rank_dir_of(std::string_view name, const DirNames& l) {
  MsprobeRankDir r;
  r.name = std::string(name);
  r.rank = parse_msprobe_rank_dir(name).value_or(MsprobeRankName{});
  r.dump_json = has(l.files, kMsprobeDumpJson);
  r.stack_json = has(l.files, kMsprobeStackJson);
  r.construct_json = has(l.files, kMsprobeConstructJson);
  r.debug_json = has(l.files, kMsprobeDebugJson);
  for (std::string_view t : {std::string_view("dump_tensor_data"), std::string_view("tensor_data")}) {
    if (has(l.dirs, t)) {
      r.tensor_dir = std::string(t);
      break;
    }
  }
  return r;
}

std::string join(const std::string& dir, std::string_view name) {
  return dir.empty() || dir.back() == '/' ? dir + std::string(name) : dir + "/" + std::string(name);
}

}  // namespace

MsprobeDirKind msprobe_dir_kind(std::string_view name, std::span<const std::string> dirs,
                                std::span<const std::string> files) {
  if (is_msprobe_tensor_dir(name)) return MsprobeDirKind::kTensorDir;
  if (is_rank(name) &&
      (has(files, kMsprobeDumpJson) || has(files, kMsprobeDebugJson) || any_of_names(dirs, is_msprobe_tensor_dir))) {
    return MsprobeDirKind::kRank;
  }
  if (is_step(name) && any_of_names(dirs, is_rank)) return MsprobeDirKind::kStep;
  if (any_of_names(dirs, is_step)) return MsprobeDirKind::kDumpPath;
  if (any_of_names(dirs, is_msprobe_mix_dir)) return MsprobeDirKind::kMixSplit;
  return MsprobeDirKind::kNone;
}

Result<std::vector<MsprobeStepDir>> list_msprobe_steps(const std::string& dump_path) {
  MSIT_ASSIGN_OR_RETURN(DirNames l, list_sorted(dump_path));
  std::vector<MsprobeStepDir> out;
  for (const std::string& d : l.dirs) {
    if (auto n = parse_msprobe_step_dir(d)) out.push_back({d, *n});
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.step < b.step; });
  return out;
}

Result<std::vector<MsprobeRankDir>> list_msprobe_ranks(const std::string& step_dir) {
  MSIT_ASSIGN_OR_RETURN(DirNames l, list_sorted(step_dir));
  std::vector<MsprobeRankDir> ranks, procs;
  for (const std::string& d : l.dirs) {
    auto n = parse_msprobe_rank_dir(d);
    if (!n) continue;
    MSIT_ASSIGN_OR_RETURN(MsprobeRankDir r, describe_msprobe_rank_dir(join(step_dir, d)));
    (n->kind == MsprobeRankKind::kRank ? ranks : procs).push_back(std::move(r));
  }
  std::vector<MsprobeRankDir>& out = ranks.empty() ? procs : ranks;
  // msProbe's order: a bare `rank` first, then by number.
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    return std::pair(!a.rank.bare, a.rank.number) < std::pair(!b.rank.bare, b.rank.number);
  });
  return std::move(out);
}

Result<MsprobeRankDir> describe_msprobe_rank_dir(const std::string& rank_dir) {
  MSIT_ASSIGN_OR_RETURN(DirNames l, list_sorted(rank_dir));
  std::string_view name = rank_dir;
  while (name.size() > 1 && name.back() == '/') name.remove_suffix(1);
  if (const size_t slash = name.find_last_of('/'); slash != std::string_view::npos) name.remove_prefix(slash + 1);
  return rank_dir_of(name, l);
}

}  // namespace msit
