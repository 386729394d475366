// Flow detection and the per-flow option table (docs/compare.md "Flows").
#include "common/compare/flow.h"

#include <algorithm>
#include <array>
#include <filesystem>
#include <utility>

#include "common/base/run_workers.h"
#include "common/compare/dump_index.h"

namespace msit {
namespace {

Result<Flow> torchair_flow(const std::string& golden, const std::string& my, unsigned jobs,
                           std::vector<std::string>& warnings) {
  // Each side is a walk of a whole tree: both at once when a second thread is allowed.
  TreeFacts gold, mine;
  run_indexed(std::min(jobs, 2u), 2, [&](size_t side) {
    if (side == 0) mine = tree_facts(my);
    else gold = tree_facts(golden);
  });
  if (mine.graph_files) return gold.graph_files ? Flow::kGeGe : Flow::kGeFx;
  if (mine.fx_files && gold.fx_files) return Flow::kFxFx;
  if (!mine.fx_files && !gold.fx_files) {
    warnings.push_back(my + ": no dynamo_original_graph_*.txt found; comparing GE ops of the same name only");
    return Flow::kGeGe;
  }
  if (mine.fx_files) {
    return make_error(my, Stage::kMode,
                      "this is an FX dump but the golden tree is not; pass the GE dump (with its "
                      "dynamo_original_graph_*.txt) as --my-path and the FX dump as --golden-path");
  }
  return make_error(my, Stage::kMode,
                    "no GE graph text (dynamo_original_graph_*.txt) found; GE vs FX compare needs the "
                    "graph dumped next to the GE dump (torchair graph_dump type txt)");
}

using F = FlowFamily;
struct OptionRow {
  FlowOption option;
  std::vector<FlowFamily> families;
};
// The one table of which family takes which option (docs/compare.md "Flows").
const std::vector<OptionRow>& option_table() {
  static const std::vector<F> row_reports{F::kTorchair, F::kAtbTorch, F::kLegacyAit, F::kManualMapping, F::kWeight};
  static const std::vector<OptionRow> table{
      {FlowOption::kRank, {F::kTorchair}},
      // -w reads raw .safetensors only: nothing is summarised on the fly.
      {FlowOption::kSketchWidth,
       {F::kTorchair, F::kAtbTorch, F::kAtbStats, F::kLegacyAit, F::kManualMapping, F::kMindie, F::kTwoFiles}},
      {FlowOption::kHtml,
       {F::kTorchair, F::kAtbTorch, F::kAtbStats, F::kLegacyAit, F::kManualMapping, F::kWeight, F::kMindie,
        F::kTwoFiles}},
      // Two files write no report file: their metrics are printed.
      {FlowOption::kJson,
       {F::kTorchair, F::kAtbTorch, F::kAtbStats, F::kLegacyAit, F::kManualMapping, F::kWeight, F::kMindie}},
      {FlowOption::kMsitFilters, row_reports},
      {FlowOption::kMsitColumns, row_reports},
      {FlowOption::kCmpLevel, {F::kAtbTorch, F::kLegacyAit}},
      {FlowOption::kOpMapping, {F::kAtbTorch, F::kAtbStats, F::kLegacyAit}},
      {FlowOption::kDirRule, {F::kAtbTorch, F::kAtbStats}},
      {FlowOption::kStats, {F::kAtbStats}},
      {FlowOption::kMsitCompat, {F::kAtbTorch, F::kLegacyAit, F::kManualMapping, F::kWeight}},
      {FlowOption::kFuzzyMatch, {F::kMsprobe}},
      {FlowOption::kDataMapping, {F::kMsprobe}},
      {FlowOption::kCellMapping, {F::kMsprobe}},
      {FlowOption::kLayerMapping, {F::kMsprobe}},
      {FlowOption::kDiffAnalyze, {F::kMsprobe}},
      {FlowOption::kXlsx, {F::kMsprobe}},
      // opcheck needs each op's own inputs: GE dump files (the torchair flows), ATB op
      // directories and torch API directories (the ATB/torch flow), msProbe tensor files.
      {FlowOption::kRecompute, {F::kTorchair, F::kAtbTorch, F::kMsprobe}},
  };
  return table;
}

const std::vector<FlowFamily>& families_taking(FlowOption o) {
  for (const auto& row : option_table())
    if (row.option == o) return row.families;
  static const std::vector<FlowFamily> none;
  return none;
}

}  // namespace

FlowFamily family_of(Flow f) {
  switch (f) {
    case Flow::kGeFx:
    case Flow::kGeGe:
    case Flow::kFxFx: return FlowFamily::kTorchair;
    case Flow::kAtbTorch:
    case Flow::kTorchTorch:
    case Flow::kAtbAtb: return FlowFamily::kAtbTorch;
    case Flow::kAtbStats: return FlowFamily::kAtbStats;
    case Flow::kLegacyAit: return FlowFamily::kLegacyAit;
    case Flow::kManualMapping: return FlowFamily::kManualMapping;
    case Flow::kWeight: return FlowFamily::kWeight;
    case Flow::kMindie: return FlowFamily::kMindie;
    case Flow::kTwoFiles: return FlowFamily::kTwoFiles;
    case Flow::kMsprobe: return FlowFamily::kMsprobe;
  }
  return FlowFamily::kTorchair;
}

std::string_view flow_name(Flow f) {
  switch (f) {
    case Flow::kGeFx: return "GE vs FX";
    case Flow::kGeGe: return "GE vs GE";
    case Flow::kFxFx: return "FX vs FX";
    case Flow::kAtbTorch: return "ATB vs torch";
    case Flow::kTorchTorch: return "torch vs torch";
    case Flow::kAtbAtb: return "ATB vs ATB";
    case Flow::kAtbStats: return "ATB/torch statistics";
    case Flow::kLegacyAit: return "legacy ait";
    case Flow::kManualMapping: return "manual mapping";
    case Flow::kWeight: return "weights";
    case Flow::kMindie: return "MindIE Torch";
    case Flow::kTwoFiles: return "two files";
    case Flow::kMsprobe: return "msProbe";
  }
  return "?";
}

std::string_view family_name(FlowFamily f) {
  switch (f) {
    case FlowFamily::kTorchair: return "torchair (GE/FX) compare";
    case FlowFamily::kAtbTorch: return "ATB/torch compare";
    case FlowFamily::kAtbStats: return "ATB/torch statistics compare (--stats)";
    case FlowFamily::kLegacyAit: return "legacy ait compare (--legacy-ait)";
    case FlowFamily::kManualMapping: return "manual mapping compare (golden_tensor/metadata.json)";
    case FlowFamily::kWeight: return "weight compare (-w)";
    case FlowFamily::kMindie: return "MindIE Torch compare (--ops-json)";
    case FlowFamily::kTwoFiles: return "two-file compare";
    case FlowFamily::kMsprobe: return "msProbe compare (dump.json, rank or step folders)";
  }
  return "compare";
}

Result<Flow> detect_torchair_flow(const std::string& golden_path, const std::string& my_path, unsigned jobs,
                                  std::vector<std::string>& warnings) {
  std::string my = absolute_path(my_path), golden = absolute_path(golden_path);
  std::error_code ec;
  for (const auto* p : {&my, &golden}) {
    if (!std::filesystem::is_directory(*p, ec)) return make_error(*p, Stage::kOpen, "not a directory");
  }
  return torchair_flow(golden, my, jobs, warnings);
}

bool option_applies(FlowOption o, FlowFamily f) {
  const auto& fs = families_taking(o);
  return std::find(fs.begin(), fs.end(), f) != fs.end();
}

std::optional<OptionRefusal> refuse_option(FlowOption o, std::string_view spelling, FlowFamily f) {
  if (option_applies(o, f)) return std::nullopt;
  const auto& fs = families_taking(o);
  std::string takes;
  for (FlowFamily t : fs) takes += std::string(takes.empty() ? "" : ", ") + std::string(family_name(t));
  OptionRefusal r;
  r.message = std::string(spelling) + " does not apply to the " + std::string(family_name(f)) +
              " (detected from the paths and options given); it applies to: " + takes;
  // An ATB option with paths that are not ATB/torch dumps: the paths are what is wrong (exit 3).
  r.bad_paths = f == FlowFamily::kTorchair && std::find(fs.begin(), fs.end(), FlowFamily::kTorchair) == fs.end();
  if (r.bad_paths && fs == std::vector<FlowFamily>{FlowFamily::kMsprobe}) {
    r.message +=
        "; the paths are not msProbe dumps (two dump.json files, or two rank, step or dump_path folders of "
        "msProbe's layout)";
  } else if (r.bad_paths) {
    r.message +=
        "; the paths are not ATB/torch dumps (ATB: a msit_dump*/ait_dump directory among the last four path "
        "components, with a model/ topology; torch: model_tree.json in the path, its parent or grandparent)";
  }
  return r;
}

}  // namespace msit
