// msProbe names and layout (docs/formats/msprobe.md §1, §2, §4, §7): entry and data names of
// every shape, which files of a tree are raw (and only those), the store's home, and what a
// directory is, from its listing.
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "common/formats/msprobe_layout.h"
#include "common/formats/msprobe_names.h"
#include "common/safety/dump_roots.h"
#include "common/store/store_locator.h"

namespace msit {
namespace {

namespace fs = std::filesystem;

TEST(MsprobeNames, EntryNamesOfEveryShape) {
  auto api = parse_msprobe_entry_name("Tensor.__add__.1.forward");
  ASSERT_TRUE(api.has_value());
  EXPECT_EQ(api->kind, MsprobeEntryKind::kApi);
  EXPECT_EQ(api->prefix, "Tensor");
  EXPECT_EQ(api->op, "__add__");
  EXPECT_EQ(api->call, 1u);
  auto prim = parse_msprobe_entry_name("Primitive.norm.RmsNorm.0.backward");
  ASSERT_TRUE(prim.has_value());
  EXPECT_EQ(prim->op, "norm.RmsNorm");
  EXPECT_EQ(prim->direction, MsprobeDirection::kBackward);
  auto mod = parse_msprobe_entry_name("Module.0.conv1.Conv2d.forward.3");
  ASSERT_TRUE(mod.has_value());
  EXPECT_EQ(mod->kind, MsprobeEntryKind::kModule);
  EXPECT_EQ(mod->op, "0.conv1.Conv2d");
  EXPECT_EQ(mod->call, 3u);
  auto pg_new = parse_msprobe_entry_name("Cell.net.Dense.parameters_grad.2");
  ASSERT_TRUE(pg_new.has_value());
  EXPECT_EQ(pg_new->kind, MsprobeEntryKind::kParametersGrad);
  EXPECT_EQ(pg_new->call, 2u);
  auto pg_old = parse_msprobe_entry_name("Module.conv2.Conv2d.parameters_grad");
  ASSERT_TRUE(pg_old.has_value());
  EXPECT_FALSE(pg_old->call.has_value());
  auto dbg = parse_msprobe_entry_name("my_var.4.debug");
  ASSERT_TRUE(dbg.has_value());
  EXPECT_EQ(dbg->kind, MsprobeEntryKind::kDebug);
  for (const char* bad : {"", "linear", "Functional.linear.forward", "Module.conv2.Conv2d.forward",
                          "Functional..0.forward", "Functional.linear.0.forward.input"}) {
    EXPECT_FALSE(parse_msprobe_entry_name(bad).has_value()) << bad;
  }
}

TEST(MsprobeNames, DataNamesOfEveryShape) {
  auto in = parse_msprobe_data_name("Torch.cat.8.forward.input.0.1.pt");
  ASSERT_TRUE(in.has_value());
  EXPECT_EQ(in->entry, "Torch.cat.8.forward");
  EXPECT_EQ(in->category, MsprobeCategory::kInput);
  EXPECT_EQ(in->path, (std::vector<std::string>{"0", "1"}));
  EXPECT_EQ(in->type, MsprobeFileType::kPt);
  auto kw = parse_msprobe_data_name("Functional.linear.0.forward.kwargs.weight.npy");
  ASSERT_TRUE(kw.has_value());
  EXPECT_EQ(kw->category, MsprobeCategory::kKwargs);
  EXPECT_EQ(kw->type, MsprobeFileType::kNpy);
  auto par = parse_msprobe_data_name("Module.conv2.Conv2d.forward.0.parameters.bias.pt");
  ASSERT_TRUE(par.has_value());
  EXPECT_EQ(par->entry, "Module.conv2.Conv2d.forward.0");
  EXPECT_EQ(par->category, MsprobeCategory::kParameters);
  auto bwd = parse_msprobe_data_name("Functional.relu.0.backward.output.0.pt");
  ASSERT_TRUE(bwd.has_value());
  EXPECT_EQ(bwd->parsed.direction, MsprobeDirection::kBackward);
  auto pg = parse_msprobe_data_name("Module.fc.Linear.parameters_grad.0.weight.pt");
  ASSERT_TRUE(pg.has_value());
  EXPECT_EQ(pg->entry, "Module.fc.Linear.parameters_grad.0");
  EXPECT_EQ(pg->path, std::vector<std::string>{"weight"});
  auto pg_old = parse_msprobe_data_name("Module.fc.Linear.parameters_grad.weight.pt");
  ASSERT_TRUE(pg_old.has_value());
  EXPECT_EQ(pg_old->entry, "Module.fc.Linear.parameters_grad");
  auto dbg = parse_msprobe_data_name("x.0.debug.1.npy");
  ASSERT_TRUE(dbg.has_value());
  EXPECT_EQ(dbg->category, MsprobeCategory::kDebug);
  auto acl = parse_msprobe_data_name("model.layers.0.7.input_kwargs.2.pt");
  ASSERT_TRUE(acl.has_value());
  EXPECT_EQ(acl->parsed.kind, MsprobeEntryKind::kAclgraph);
  EXPECT_EQ(acl->entry, "model.layers.0.7");
  EXPECT_EQ(acl->category, MsprobeCategory::kKwargs);
  for (const char* bad : {"dump.json", "stack.json", "construct.json", "mapping.csv", "dump_error_info.log",
                          "Functional.linear.0.forward.pt", "Functional.linear.0.forward.input.0.pt.summary.json",
                          "Functional.linear.0.forward.weights.0.pt", "../Functional.linear.0.forward.input.0.pt",
                          "embeddings.npy", "Functional.linear.0.forward.input.0.zst"}) {
    EXPECT_FALSE(parse_msprobe_data_name(bad).has_value()) << bad;
  }
}

TEST(MsprobeNames, DirectoryNames) {
  EXPECT_EQ(parse_msprobe_step_dir("step12"), 12u);
  EXPECT_FALSE(parse_msprobe_step_dir("step").has_value());
  EXPECT_FALSE(parse_msprobe_step_dir("steps1").has_value());
  EXPECT_EQ(parse_msprobe_rank_dir("proc4711")->kind, MsprobeRankKind::kProc);
  EXPECT_EQ(parse_msprobe_rank_dir("pid9")->kind, MsprobeRankKind::kPid);
  EXPECT_EQ(parse_msprobe_rank_dir("rank3")->number, 3u);
  // The graph half's bare `rank` (one card, no RANK_ID; docs/formats/msprobe.md §1.2).
  ASSERT_TRUE(parse_msprobe_rank_dir("rank").has_value());
  EXPECT_TRUE(parse_msprobe_rank_dir("rank")->bare);
  EXPECT_EQ(parse_msprobe_rank_dir("rank")->kind, MsprobeRankKind::kRank);
  EXPECT_FALSE(parse_msprobe_rank_dir("rank0")->bare);
  EXPECT_FALSE(parse_msprobe_rank_dir("proc").has_value());
  EXPECT_FALSE(parse_msprobe_rank_dir("rank-1").has_value());
}

const std::string kPt = "Functional.linear.0.forward.input.0.pt";

// Raw: only data names in the tensor directory of a step{N}/rank{R} folder.
TEST(MsprobeScope, OnlyTensorFilesOfRankFoldersAreRaw) {
  EXPECT_TRUE(is_dump_candidate_path("/d/step0/rank0/dump_tensor_data/" + kPt));
  EXPECT_TRUE(is_dump_candidate_path("/d/step3/proc77/dump_tensor_data/" + kPt));
  EXPECT_TRUE(is_dump_candidate_path("/d/step3/pid77/tensor_data/model.fc.0.output.pt"));
  EXPECT_TRUE(is_dump_candidate_path("/d/pynative/step1/rank2/dump_tensor_data/Mint.add.0.forward.output.0.npy"));
  EXPECT_TRUE(is_dump_candidate_path("rel/step0/rank0/dump_tensor_data/" + kPt));
  // The graph half (§1.2): a bare rank folder; TensorDump's suffixed files are msProbe's until renamed.
  const std::string g = "/d/graph/step0/rank/dump_tensor_data/Cell.layers.1.Block.forward.0.";
  EXPECT_TRUE(is_dump_candidate_path(g + "input.0.npy"));
  EXPECT_FALSE(is_dump_candidate_path(g + "input.0_float32_165.npy"));
  EXPECT_FALSE(is_dump_candidate_path(g + "input.0_in_bfloat16_3.npy"));
  EXPECT_FALSE(is_dump_candidate_path("/d/graph/step0/rank/dump_tensor_data/Cell.a.B.forward.input.0_float32_2.npy"));
  EXPECT_TRUE(is_dump_candidate_path("/d/step0/rank0/dump_tensor_data/Functional.f.0.forward.kwargs.atten_mask.npy"));
  for (const char* kept : {"dump.json", "stack.json", "construct.json", "debug.json", "mapping.csv",
                           "dump_error_info.log", "notes.txt", "x.npy"}) {
    EXPECT_FALSE(is_dump_candidate_path(std::string("/d/step0/rank0/dump_tensor_data/") + kept)) << kept;
    EXPECT_FALSE(is_dump_candidate_path(std::string("/d/step0/rank0/") + kept)) << kept;
  }
  EXPECT_FALSE(is_dump_candidate_path("/d/step0/rank0/" + kPt));                       // beside dump.json
  EXPECT_FALSE(is_dump_candidate_path("/d/step0/rank0/dump_tensor_data/sub/" + kPt));  // msProbe writes flat
  EXPECT_FALSE(is_dump_candidate_path("/d/rank0/dump_tensor_data/" + kPt));            // no step folder
  EXPECT_FALSE(is_dump_candidate_path("/d/step0/x/rank0/dump_tensor_data/" + kPt));
  // aclgraph's pending folder, moved into the step when the step ends: never touched.
  EXPECT_FALSE(is_dump_candidate_path("/d/dump_tensor_data/rank0/model.fc.0.output.pt"));
  // Inside another family's root, step/rank folders mean nothing.
  EXPECT_FALSE(is_dump_candidate_path("/d/msit_ge_dump/step0/rank0/dump_tensor_data/" + kPt));
}

TEST(MsprobeScope, TheRankFolderIsTheStoreHome) {
  EXPECT_EQ(store::store_home_of("/d/step0/rank0/dump_tensor_data"), "/d/step0/rank0");
  EXPECT_EQ(store::store_home_of("/d/graph/step2/proc9/dump_tensor_data"), "/d/graph/step2/proc9");
  EXPECT_EQ(store::store_home_of("/d/step0"), "");
  EXPECT_EQ(store::store_home_of("/d"), "");
  EXPECT_EQ(DumpScope::of_path("/d/step0/rank0").kind(), DumpRootKind::kMsprobeRank);
  EXPECT_FALSE(DumpScope::of_path("/d/step0/rank0").in_dump());
  EXPECT_TRUE(DumpScope::of_path("/d/step0/rank0/tensor_data").in_dump());
}

struct Tree {
  fs::path root;
  Tree() {
    std::string tmpl = (fs::temp_directory_path() / "msit-msprobe-XXXXXX").string();
    root = mkdtemp(tmpl.data());
  }
  ~Tree() {
    std::error_code ec;
    fs::remove_all(root, ec);
  }
  void file(const std::string& rel) {
    fs::create_directories((root / rel).parent_path());
    std::ofstream(root / rel) << "{}";
  }
};

MsprobeDirKind kind_of(const fs::path& p) {
  std::vector<std::string> dirs, files;
  for (const auto& e : fs::directory_iterator(p)) (e.is_directory() ? dirs : files).push_back(e.path().filename());
  return msprobe_dir_kind(p.filename().string(), dirs, files);
}

TEST(MsprobeLayout, KindsAndRankOrder) {
  Tree t;
  for (const char* r : {"rank10", "rank2", "rank0"}) t.file(std::string("dump/step1/") + r + "/dump.json");
  t.file("dump/step1/rank2/stack.json");
  fs::create_directories(t.root / "dump/step1/rank2/dump_tensor_data");
  t.file("dump/step0/proc55/dump.json");
  t.file("dump/step0/proc7/dump.json");
  t.file("mix/graph/step0/rank0/dump.json");
  t.file("acl/step0/pid3/tensor_data/a.0.output.pt");
  EXPECT_EQ(kind_of(t.root / "dump"), MsprobeDirKind::kDumpPath);
  EXPECT_EQ(kind_of(t.root / "dump/step1"), MsprobeDirKind::kStep);
  EXPECT_EQ(kind_of(t.root / "dump/step1/rank2"), MsprobeDirKind::kRank);
  EXPECT_EQ(kind_of(t.root / "dump/step1/rank2/dump_tensor_data"), MsprobeDirKind::kTensorDir);
  EXPECT_EQ(kind_of(t.root / "mix"), MsprobeDirKind::kMixSplit);
  EXPECT_EQ(kind_of(t.root / "acl/step0/pid3"), MsprobeDirKind::kRank);  // a tensor task: no dump.json
  EXPECT_EQ(kind_of(t.root), MsprobeDirKind::kNone);

  auto ranks = list_msprobe_ranks((t.root / "dump/step1").string());
  ASSERT_TRUE(ranks.ok());
  ASSERT_EQ(ranks->size(), 3u);
  EXPECT_EQ((*ranks)[0].name, "rank0");
  EXPECT_EQ((*ranks)[1].name, "rank2");  // numerically, as msProbe pairs them
  EXPECT_EQ((*ranks)[2].name, "rank10");
  EXPECT_TRUE((*ranks)[1].stack_json);
  EXPECT_EQ((*ranks)[1].tensor_dir, "dump_tensor_data");
  auto procs = list_msprobe_ranks((t.root / "dump/step0").string());
  ASSERT_TRUE(procs.ok());
  ASSERT_EQ(procs->size(), 2u);
  EXPECT_EQ((*procs)[0].name, "proc7");
  // The graph half's bare rank sorts before rank0, as msProbe's compare sorts it (-1).
  t.file("mix/graph/step0/rank/dump.json");
  auto graph = list_msprobe_ranks((t.root / "mix/graph/step0").string());
  ASSERT_TRUE(graph.ok());
  ASSERT_EQ(graph->size(), 2u);
  EXPECT_EQ((*graph)[0].name, "rank");
  EXPECT_EQ((*graph)[1].name, "rank0");
  auto steps = list_msprobe_steps((t.root / "dump").string());
  ASSERT_TRUE(steps.ok());
  ASSERT_EQ(steps->size(), 2u);
  EXPECT_EQ((*steps)[1].step, 1u);
}

}  // namespace
}  // namespace msit
