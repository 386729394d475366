// The msProbe compare flow around the rules (common/compare_msprobe): which dump.json files are
// paired, the -dm / -cm mapping files, stack.json's cells, and a pair streamed in chunks of whole
// entries (docs/formats/msprobe-compare.md §3, §4, §8).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/compare_msprobe/construct.h"
#include "common/compare_msprobe/flow.h"
#include "common/compare_msprobe/mapping_file.h"
#include "common/compare_msprobe/pairs.h"
#include "common/compare_msprobe/stack.h"
#include "tests/unit/compare_fixtures.h"

namespace msit {
namespace {

using compare_test::TempDir;
using compare_test::write_file;
namespace fs = std::filesystem;

Result<std::unordered_map<std::string, std::string>> mapping(const std::string& text) {
  return parse_ms_mapping(std::span<const char>(text.data(), text.size()), "map.yaml");
}

TEST(MsprobeMapping, NameToName) {
  auto m = mapping(
      "Functional.flash_attention_score.4.forward.input.0: NPU.npu_fusion_attention.4.forward.input.0\n"
      "'a.b': \"c d\"\n");
  ASSERT_TRUE(m.ok()) << m.error().to_string();
  EXPECT_EQ(m->size(), 2u);
  EXPECT_EQ(m->at("Functional.flash_attention_score.4.forward.input.0"), "NPU.npu_fusion_attention.4.forward.input.0");
  EXPECT_EQ(m->at("a.b"), "c d");
  auto empty = mapping("");
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->empty());
}

TEST(MsprobeMapping, RefusesWhatIsNotAFlatMap) {
  for (const char* bad : {"a:\n  b: c\n", "- a\n- b\n", "a: b\na: c\n", "a: &x b\nc: *x\n", "a: [b]\n", "{a: b"}) {
    auto m = mapping(bad);
    ASSERT_FALSE(m.ok()) << bad;
    EXPECT_NE(m.error().to_string().find("map.yaml"), std::string::npos);
    EXPECT_NE(m.error().to_string().find("line "), std::string::npos) << m.error().to_string();
  }
}

TEST(MsprobeStack, BothFormatsAsPythonLists) {
  TempDir d;
  write_file(d.path / "old.json", R"({"Torch.add.0.forward": ["File a.py, line 1, in f", "it's \"q\"\n"], "x": 3})");
  write_file(d.path / "new.json",
             R"({"0": [["Torch.add.0.forward", "Torch.add.1.forward"], ["File b.py, line 2, in g"]]})");
  auto old = MsStackInfo::read((d.path / "old.json").string());
  ASSERT_TRUE(old.ok()) << old.error().to_string();
  EXPECT_EQ(old->cell("Torch.add.0.forward"), "['File a.py, line 1, in f', 'it\\'s \"q\"\\n']");
  EXPECT_EQ(old->cell("Torch.mul.0.forward"), "N/A");
  auto neu = MsStackInfo::read((d.path / "new.json").string());
  ASSERT_TRUE(neu.ok()) << neu.error().to_string();
  EXPECT_EQ(neu->cell("Torch.add.1.forward"), "['File b.py, line 2, in g']");
  write_file(d.path / "bad.json", R"(["not", "an", "object"])");
  EXPECT_FALSE(MsStackInfo::read((d.path / "bad.json").string()).ok());
}

TEST(MsprobeStack, PythonRepr) {
  EXPECT_EQ(py_str_repr("a'b"), "\"a'b\"");
  EXPECT_EQ(py_str_repr("a'b\""), "'a\\'b\"'");
  EXPECT_EQ(py_str_repr(std::string("\x01\\", 2)), "'\\x01\\\\'");
}

constexpr const char* kDump =
    R"({"task": "statistics", "level": "L1", "framework": "pytorch", "dump_data_dir": null, "data": {
 "Functional.linear.0.forward": {"input_args": [{"type": "torch.Tensor", "dtype": "torch.float32", "shape": [2],
   "Max": 1.0, "Min": 0.0, "Mean": 0.5, "Norm": 1.0, "requires_grad": true}], "input_kwargs": {},
   "output": [{"type": "torch.Tensor", "dtype": "torch.float32", "shape": [2], "Max": 1.0, "Min": 0.0,
   "Mean": 0.5, "Norm": NORM, "requires_grad": true}]}}})";

std::string dump(const std::string& norm) {
  std::string s = kDump;
  s.replace(s.find("NORM"), 4, norm);
  return s;
}

TEST(MsprobePairs, FilesRanksStepsAndDumpPaths) {
  TempDir d;
  for (const char* side : {"npu", "bench"}) {
    for (const char* r : {"rank0", "rank2", "rank10"})
      write_file(d.path / side / "step1" / r / "dump.json", dump("1.0"));
    write_file(d.path / side / "step3" / "rank0" / "dump.json", dump("1.0"));
  }
  write_file(d.path / "npu" / "step1" / "rank0" / "stack.json", "{}");
  std::vector<std::string> notes;
  auto files = ms_rank_pairs((d.path / "npu/step1/rank0/dump.json").string(),
                             (d.path / "bench/step1/rank2/dump.json").string(), notes);
  ASSERT_TRUE(files.ok()) << files.error().to_string();
  ASSERT_EQ(files->size(), 1u);
  EXPECT_EQ((*files)[0].stack_json, (d.path / "npu/step1/rank0/stack.json").string());
  EXPECT_EQ((*files)[0].suffix, "");
  // A step folder: ranks by number (rank10 after rank2), paired by position.
  auto step = ms_rank_pairs((d.path / "npu/step1").string(), (d.path / "bench/step1").string(), notes);
  ASSERT_TRUE(step.ok()) << step.error().to_string();
  ASSERT_EQ(step->size(), 3u);
  EXPECT_EQ((*step)[2].suffix, "_rank10");
  EXPECT_NE((*step)[2].bench_json.find("/rank10/"), std::string::npos);
  auto root = ms_rank_pairs((d.path / "npu").string(), (d.path / "bench").string(), notes);
  ASSERT_TRUE(root.ok()) << root.error().to_string();
  ASSERT_EQ(root->size(), 4u);
  EXPECT_EQ((*root)[3].subdir, "step3");
  // Unequal rank counts are refused, as msProbe refuses them.
  fs::remove_all(d.path / "bench/step1/rank10");
  auto uneven = ms_rank_pairs((d.path / "npu/step1").string(), (d.path / "bench/step1").string(), notes);
  ASSERT_FALSE(uneven.ok());
  EXPECT_NE(uneven.error().to_string().find("3 rank folders"), std::string::npos) << uneven.error().to_string();
  // A file against a directory.
  EXPECT_FALSE(
      ms_rank_pairs((d.path / "npu/step3/rank0/dump.json").string(), (d.path / "bench/step3").string(), notes).ok());
  EXPECT_TRUE(is_msprobe_path((d.path / "npu").string()));
  EXPECT_TRUE(is_msprobe_path((d.path / "npu/step1").string()));
  // Rank-named folders without a dump.json are another family's (msit_ge_dump/rank0).
  fs::create_directories(d.path / "ge/msit_ge_dump/rank0/1");
  EXPECT_FALSE(is_msprobe_path((d.path / "ge/msit_ge_dump").string()));
  EXPECT_FALSE(is_msprobe_path((d.path / "ge").string()));
  EXPECT_FALSE(is_msprobe_path((d.path / "npu/step1/rank0/stack.json").string()));
}

TEST(MsprobePairs, GraphAndPynativeHalves) {
  TempDir d;
  for (const char* side : {"npu", "bench"}) {
    for (const char* half : {"graph", "pynative"})
      write_file(d.path / side / half / "step0" / "rank0" / "dump.json", dump("1"));
  }
  std::vector<std::string> notes;
  auto p = ms_rank_pairs((d.path / "npu").string(), (d.path / "bench").string(), notes);
  ASSERT_TRUE(p.ok()) << p.error().to_string();
  ASSERT_EQ(p->size(), 2u);
  EXPECT_EQ((*p)[0].subdir, "graph/step0");
  EXPECT_EQ((*p)[1].subdir, "pynative/step0");
}

class CountSink : public MsRowSink {
 public:
  Status begin(const MsTable&) override { return ok_status(); }
  Status rows(const MsTable& t) override {
    chunks.push_back(t.rows->size());
    return ok_status();
  }
  Status end(const MsRankTally& t) override {
    tally = t;
    return ok_status();
  }
  std::vector<size_t> chunks;
  MsRankTally tally;
};

TEST(MsprobeFlow, StreamsWholeEntries) {
  TempDir d;
  write_file(d.path / "n/dump.json", dump("9.0"));
  write_file(d.path / "b/dump.json", dump("1.0"));
  CountSink sink;
  auto t = ms_compare_pair((d.path / "n/dump.json").string(), (d.path / "b/dump.json").string(), {}, sink);
  ASSERT_TRUE(t.ok()) << t.error().to_string();
  EXPECT_EQ(t->mode, MsMode::kSummary);
  EXPECT_EQ(t->rows, 2u);
  EXPECT_EQ(sink.chunks, std::vector<size_t>{2});
  // The output's norm is 9 times the bench's, its input equal: RelativeErr marks it an error.
  EXPECT_EQ(t->by_result[static_cast<size_t>(MsResult::kError)], 1u);
}

TEST(MsprobeConstruct, ModuleChainInnermostFirst) {
  TempDir d;
  write_file(d.path / "construct.json",
             R"({"Torch.add.0.forward": "Module.l.0.Block.forward.0", "x": {"nested": 1},
            "Module.l.0.Block.forward.0": "Module.Net.forward.0", "Module.Net.forward.0": null,
            "A.loop.0.forward": "B.loop.0.forward", "B.loop.0.forward": "A.loop.0.forward"})");
  const std::string c = (d.path / "construct.json").string();
  auto chain = ms_module_chain(c, "Torch.add.0.forward");
  ASSERT_TRUE(chain.ok()) << chain.error().to_string();
  EXPECT_EQ(*chain, (std::vector<std::string>{"Module.l.0.Block.forward.0", "Module.Net.forward.0"}));
  auto none = ms_module_chain(c, "Torch.mul.0.forward");
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
  auto loop = ms_module_chain(c, "A.loop.0.forward");  // a crafted cycle ends
  ASSERT_TRUE(loop.ok());
  EXPECT_EQ(loop->size(), 64u);
}

}  // namespace
}  // namespace msit
