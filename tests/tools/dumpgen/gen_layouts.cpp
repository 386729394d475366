// Directory layouts of GE (docs/formats/ge-dump.md §10) and FX (docs/formats/fx-npy.md §2) dumps, one per torchair era.
#include <stdexcept>

#include "tests/tools/dumpgen/gen_plan.h"
#include "tests/tools/dumpgen/graph_text.h"

namespace dumpgen {

const std::vector<std::string>& layout_names() {
  static const std::vector<std::string> kNames = {"ge-rank",    "ge-old",       "msprobe-ge",
                                                  "fx-rank",    "fx-data-dump", "fx-cwd-data-dump",
                                                  "fx-step-gm", "fx-gm-step",   "msprobe-fx"};
  return kNames;
}

namespace {

std::string small_graph(const std::string& name) {
  GraphOp data{"arg0_1", "Data", {}, {}, {}, {}};
  data.output_desc.push_back({"y", "DT_FLOAT16", {4, 64}, "ND", std::nullopt});
  GraphOp add{"Add_1", "Add", {"arg0_1:0", "arg0_1:0"}, {}, {}, {}};
  add.output_desc.push_back({"y", "DT_FLOAT16", {4, 64}, "ND", "add-aten.add.Tensor.OUTPUT.0"});
  return graph_text(name, {data, add});
}

void ge_tree(LayoutTree& t, const std::string& root, bool rank_dirs, int ranks, int tokens) {
  for (int r = 0; r < ranks; ++r) {
    std::string base = root + "/";
    if (rank_dirs) {
      base += "worldsize" + std::to_string(ranks) + "_global_rank" + std::to_string(r) + "/";
      t.extras.push_back({root + "/dynamo_original_graph_1_rank_" + std::to_string(r) + "_pid_" +
                              std::to_string(4000 + r) + "_ts_" + ts20(r) + ".txt",
                          small_graph("graph_1")});
    }
    // {time}/{device}/{model_name}/{model_id}/{step}; device = rank.
    base += time14(0) + "/" + std::to_string(r) + "/graph_1_0/1/";
    for (int s = 0; s < tokens; ++s) t.leaves.push_back({base + std::to_string(s), true});
  }
  if (!rank_dirs) {
    t.extras.push_back({root + "/dynamo_original_graph_1_" + ts20(0) + ".txt", small_graph("graph_1")});
  }
}

}  // namespace

LayoutTree layout_tree(const std::string& name, const std::string& prefix, int ranks, int tokens) {
  LayoutTree t;
  std::string p = prefix + "/";
  std::string gm = "gm_" + ts20(123456) + "_dump";
  if (name == "ge-rank" || name == "msprobe-ge") {
    ge_tree(t, p + (name == "ge-rank" ? "msit_ge_dump" : "msprobe_ge_dump"), true, ranks, tokens);
  } else if (name == "ge-old") {
    ge_tree(t, p + "msit_ge_dump", false, ranks, tokens);
  } else if (name == "fx-rank" || name == "msprobe-fx") {
    std::string root = p + (name == "fx-rank" ? "msit_fx_dump" : "msprobe_fx_dump");
    for (int r = 0; r < ranks; ++r) {
      std::string base =
          root + "/worldsize" + std::to_string(ranks) + "_global_rank" + std::to_string(r) + "/" + gm + "/";
      for (int s = 0; s < tokens; ++s) t.leaves.push_back({base + std::to_string(s), false});
    }
  } else {
    // Old FX layouts: no ranks, step dirs start at 1 (the off-by-one of docs/formats/fx-npy.md §3).
    for (int s = 1; s <= tokens; ++s) {
      std::string step = std::to_string(s);
      std::string dir;
      if (name == "fx-data-dump") dir = "msit_fx_dump/data_dump/" + step + "/" + gm;
      else if (name == "fx-cwd-data-dump") dir = "data_dump/" + step + "/" + gm;
      else if (name == "fx-step-gm") dir = step + "/" + gm;
      else if (name == "fx-gm-step") dir = gm + "/" + step;
      else throw std::runtime_error("unknown layout '" + name + "'");
      t.leaves.push_back({p + dir, false});
    }
  }
  return t;
}

}  // namespace dumpgen
