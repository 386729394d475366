// Which opcheck front end reads a dump path (GE file, ATB op directory, torch API directory, msProbe
// tensor file), the graph text a GE file's attributes come from, and the one dispatch every caller
// goes through.
#include <algorithm>
#include <filesystem>

#include "common/formats/dump_name.h"
#include "common/io/derived_names.h"
#include "common/io/tree_walk.h"
#include "common/opcheck/opcheck.h"

namespace msit::opcheck {
namespace {

namespace fs = std::filesystem;

// Levels above a dump file searched for graph text (msit_ge_dump/{time}/{dev}/{model}/{id}/{step}/).
constexpr int kGraphSearchLevels = 8;

}  // namespace

DumpKind dump_kind_of(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    if (is_atb_op_dir(path)) return DumpKind::kAtbOpDir;
    return torch_api_of_dir(path) ? DumpKind::kTorchApiDir : DumpKind::kNone;
  }
  if (msprobe_op_of_tensor_file(path)) return DumpKind::kMsprobeTensor;
  const std::string base = fs::path(path).filename().string();
  const std::string_view name = without_archive_suffix(base);
  return parse_ge_dump_name(name) && classify_name(name).kind == NameKind::kGeDump ? DumpKind::kGeFile
                                                                                   : DumpKind::kNone;
}

std::optional<GraphDef> find_graph_text(const std::string& dump_file, const std::string& op) {
  fs::path dir = fs::path(dump_file).parent_path();
  for (int level = 0; level < kGraphSearchLevels && !dir.empty(); ++level, dir = dir.parent_path()) {
    std::vector<std::pair<uint64_t, std::string>> names;
    (void)list_dir_path(dir.string(), [&](std::string_view n, EntryType t) {
      if (t == EntryType::kFile && is_original_graph_file_name(n))
        names.emplace_back(graph_file_sort_key(n).value_or(0), std::string(n));
    });
    std::sort(names.begin(), names.end());
    for (const auto& [key, n] : names) {
      auto g = read_graph_text_file((dir / n).string());
      if (g.ok() && g->find(op)) return std::move(*g);
    }
    if (dir == dir.parent_path()) break;
  }
  return std::nullopt;
}

OpCheckResult check_dump_path(const std::string& path, const GraphDef* graph, const OpcheckOptions& opts) {
  switch (dump_kind_of(path)) {
    case DumpKind::kAtbOpDir: return check_front_end(atb_front_end(path), path, opts);
    case DumpKind::kTorchApiDir: return check_front_end(torch_front_end(path), path, opts);
    case DumpKind::kGeFile: return check_ge_file(path, graph, opts);
    case DumpKind::kMsprobeTensor: {
      const MsprobeOpRef ref = *msprobe_op_of_tensor_file(path);
      return check_front_end(msprobe_front_end(ref), ref.rank_dir + "/dump.json#" + ref.entry, opts);
    }
    case DumpKind::kNone: break;
  }
  std::error_code ec;
  if (!fs::is_directory(path, ec)) return check_ge_file(path, graph, opts);  // the GE front end says why not
  OpCall named;
  named.op_name = fs::path(path).lexically_normal().filename().string();
  OpCheckResult r = not_recomputed(named, SkipReason::kUnknownOp,
                                   path +
                                       ": neither an ATB op directory (before/, after/) nor a torch API directory "
                                       "({module}.{func}) of a function in the recomputed set (docs/opcheck.md)");
  r.path = path;
  return r;
}

}  // namespace msit::opcheck
