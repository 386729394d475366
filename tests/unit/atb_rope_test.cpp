// Rope fix-up of the ATB/torch compare (docs/formats/atb-torch.md §3.5 item 3): file selection, msit's slicing of
// the golden rotary data at row seqLen-1 (4-D and 3-D), halving of my repeated columns, and
// summaries that cannot be sliced (a note, no metrics).
#include <gtest/gtest.h>

#include "common/compaction/compact.h"
#include "common/compare_atb/atb_compare.h"
#include "common/compare_atb/rope.h"
#include "tests/unit/atb_fixtures.h"

namespace msit::atb {
namespace {

using namespace atb_test;

FloatTensor tensor(std::vector<uint64_t> shape, std::vector<float> data) {
  FloatTensor t;
  t.dtype = DType::kFloat32;
  t.shape = std::move(shape);
  t.data = std::move(data);
  return t;
}

std::vector<float> iota(size_t n, float scale = 1) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<float>(i + 1) * scale;
  return v;
}

TEST(AtbRope, SliceFourDimsAtRowSeqLenMinusOne) {
  RopeFix fix;
  fix.seq_len = 3;
  fix.rope_type = 0;
  std::string note;
  auto out = slice_rotary(tensor({1, 1, 4, 2}, iota(8)), fix, note);
  EXPECT_EQ(out.shape, (std::vector<uint64_t>{1, 2}));  // [1, 1, 2] squeezed at dim 0
  EXPECT_EQ(out.data, (std::vector<float>{5, 6}));
  EXPECT_NE(note.find("sliced at row seqLen-1 = 2"), std::string::npos) << note;
  // Dim 2 too small for seqLen: msit indexes dim 1 instead.
  fix.seq_len = 2;
  out = slice_rotary(tensor({2, 3, 1, 2}, iota(12)), fix, note);
  EXPECT_EQ(out.shape, (std::vector<uint64_t>{2, 1, 2}));
  EXPECT_EQ(out.data, (std::vector<float>{3, 4, 9, 10}));
}

TEST(AtbRope, SliceThreeDimsTakesCosOrSinColumn) {
  RopeFix fix;
  fix.seq_len = 2;
  std::string note;
  for (int type : {0, 1}) {
    fix.rope_type = type;
    auto out = slice_rotary(tensor({3, 2, 2}, iota(12)), fix, note);  // [seq, half, cos|sin]
    EXPECT_EQ(out.shape, (std::vector<uint64_t>{1, 2}));
    EXPECT_EQ(out.data, type == 0 ? (std::vector<float>{5, 7}) : (std::vector<float>{6, 8}));
  }
}

TEST(AtbRope, BoundsNoSeqLenAndOtherRanksLeaveGoldenAlone) {
  RopeFix fix;
  fix.seq_len = 4;
  fix.rope_type = 1;
  std::string note;
  // seqLen == dim: row 3 exists; msit's strict `seqLen < dim` does not slice it.
  EXPECT_EQ(slice_rotary(tensor({1, 1, 4, 1}, iota(4)), fix, note).data, (std::vector<float>{4}));
  fix.msit_bounds = true;
  note.clear();
  EXPECT_EQ(slice_rotary(tensor({1, 1, 4, 1}, iota(4)), fix, note).shape, (std::vector<uint64_t>{1, 1, 4, 1}));
  EXPECT_NE(note.find("out of bounds"), std::string::npos) << note;
  fix.seq_len.reset();
  EXPECT_EQ(slice_rotary(tensor({1, 1, 4, 1}, iota(4)), fix, note).data.size(), 4u);
  fix.seq_len = 1;
  EXPECT_EQ(slice_rotary(tensor({4, 1}, iota(4)), fix, note).data.size(), 4u);  // 2-D: not sliced
  fix.seq_len = 0;
  EXPECT_EQ(slice_rotary(tensor({1, 1, 4, 1}, iota(4)), fix, note).data.size(), 4u);
}

TEST(AtbRope, HalveOnlyOneRowWithRepeatedPairs) {
  std::string note;
  auto out = halve_repeated_columns(tensor({1, 6}, {1, 1, 2, 2, 3, 3}), note);
  EXPECT_EQ(out.shape, (std::vector<uint64_t>{1, 3}));
  EXPECT_EQ(out.data, (std::vector<float>{1, 2, 3}));
  EXPECT_EQ(halve_repeated_columns(tensor({1, 4}, {1, 1, 2, 3}), note).data.size(), 4u);
  EXPECT_EQ(halve_repeated_columns(tensor({2, 2}, {1, 1, 2, 2}), note).data.size(), 4u);
  EXPECT_EQ(halve_repeated_columns(tensor({1, 3}, {1, 1, 1}), note).data.size(), 3u);
  float nan = std::nanf("");
  EXPECT_EQ(halve_repeated_columns(tensor({1, 2}, {nan, nan}), note).data.size(), 2u);  // NaN != NaN (torch too)
}

SourceFile named(const std::string& name) {
  SourceFile f;
  f.raw_path = "/d/0_Layer/1_RopeOperation/before/" + name;
  return f;
}

TEST(AtbRope, SelectionNeedsFiveFilesAndSeqLen) {
  std::vector<SourceFile> five;
  for (int k = 0; k < 5; ++k) five.push_back(named("intensor" + std::to_string(k) + ".bin"));
  auto mine = five;
  auto seq = select_rope_files(mine);
  ASSERT_TRUE(seq.has_value());
  EXPECT_EQ(seq->raw_name(), "intensor4.bin");
  ASSERT_EQ(mine.size(), 2u);
  EXPECT_EQ(mine[0].raw_name(), "intensor2.bin");
  EXPECT_EQ(mine[1].raw_name(), "intensor3.bin");
  auto four = std::vector<SourceFile>(five.begin(), five.begin() + 4);
  EXPECT_FALSE(select_rope_files(four).has_value());
  EXPECT_EQ(four.size(), 4u);
  auto other = five;
  for (auto& f : other) f.raw_path = "/d/0_Layer/1_LinearOperation/before/" + std::string(f.raw_name());
  EXPECT_FALSE(select_rope_files(other).has_value());
  EXPECT_EQ(rope_type_of(named("intensor3.bin")), 1);
  SourceFile g = named("output_0.pth");
  g.raw_path = "/data/rotary_runs/torch_tensors/cpu_1/0/root.layers.0.mlp/output_0.pth";
  EXPECT_FALSE(rope_data_fix_applies(g, "/data/rotary_runs/torch_tensors/cpu_1"));  // only below the process dir
  g.raw_path = "/data/runs/torch_tensors/cpu_1/0/root.layers.0.self_attn.rotary_emb/output_0.pth";
  EXPECT_TRUE(rope_data_fix_applies(g, "/data/runs/torch_tensors/cpu_1"));
  EXPECT_EQ(rope_type_of(named("intensor0.bin")), -1);
}

// 11 layers; layer 0 has a rotary module (torch) and a RopeOperation (ATB) with dumped files.
struct RopeTree {
  TempDir tmp;
  fs::path torch_proc, atb_proc;
  RopeTree(const std::vector<uint64_t>& cache_shape, int seq_len, bool three_dims) {
    torch_proc = tmp.p / "t" / "msit_dump_1" / "torch_tensors" / "cpu_100";
    fs::path root = tmp.p / "a" / "msit_dump_2";
    atb_proc = root / "tensors" / "0_200";
    TorchNode list{"root.layers", "ModuleList", {}};
    std::string nodes;
    for (int i = 0; i < 11; ++i) {
      std::string b = "root.layers." + std::to_string(i), id = std::to_string(i);
      list.children.push_back({b, "Block", {{b + ".rotary_emb", "RotaryEmbedding", {}}}});
      nodes += std::string(i ? ", " : "") + "{\"opName\": \"BlockLayer_" + id +
               "\", \"opType\": \"BlockLayer\", \"nodes\": [" + "{\"opName\": \"RopeOperation_" + id +
               "_0\", \"opType\": \"RopeOperation\", \"param\": {}}]}";
    }
    write_file(torch_proc / "model_tree.json", torch_tree_json({"root", "Model", {list}}));
    write_file(root / "model" / "200" / "M.json", "{\"modelName\": \"M\", \"nodes\": [" + nodes + "]}");
    uint64_t n = 1;
    for (auto d : cache_shape) n *= d;
    fs::path g = torch_proc / "0" / "root.layers.0.rotary_emb";
    fs::path m = atb_proc / "0" / "0_BlockLayer" / "0_RopeOperation" / "before";
    uint64_t row = static_cast<uint64_t>(seq_len - 1);
    if (three_dims) {  // ChatGLM: one [seq, half, 2] cache holding cos and sin
      write_torch_tensor(g / "output.pth", iota(n, 0.5f), cache_shape);
      for (int type : {0, 1}) {
        std::vector<float> dup;
        for (uint64_t j = 0; j < cache_shape[1]; ++j) {
          float v = static_cast<float>((row * cache_shape[1] + j) * 2 + static_cast<uint64_t>(type) + 1) * 0.5f;
          dup.insert(dup.end(), {v, v});
        }
        write_atb_bin(m / ("intensor" + std::to_string(2 + type) + ".bin"), dup, {1, dup.size()}, false);
      }
    } else {  // cos and sin caches [1, 1, positions, dim]
      uint64_t dim = cache_shape[3];
      for (int type : {0, 1}) {
        auto cache = iota(n, type ? -1.0f : 1.0f);
        write_torch_tensor(g / ("output_" + std::to_string(type) + ".pth"), cache, cache_shape);
        std::vector<float> dup;
        for (uint64_t j = 0; j < dim; ++j) dup.insert(dup.end(), {cache[row * dim + j], cache[row * dim + j]});
        write_atb_bin(m / ("intensor" + std::to_string(2 + type) + ".bin"), dup, {1, dup.size()}, false);
      }
    }
    write_atb_bin(m / "intensor0.bin", {1, 2}, {1, 2}, false);
    write_atb_bin(m / "intensor1.bin", {1, 2}, {1, 2}, false);
    write_atb_bin(m / "intensor4.bin", {static_cast<float>(seq_len)}, {1}, false);
  }
  std::vector<ReportRow> rope_rows(bool compat = false) {
    AtbCompareOptions o;
    o.level = PolicySet::kApi;
    o.msit_compat = compat;
    auto res = run_atb_compare(torch_proc.string(), atb_proc.string(), o);
    EXPECT_TRUE(res.ok()) << res.error().to_string();
    std::vector<ReportRow> out;
    if (!res.ok()) return out;
    for (auto& r : res->sheets[0].rows)
      if (r.my_op_type == "RopeOperation") out.push_back(r);
    return out;
  }
};

TEST(AtbRope, FourDimCachesAgainstDuplicatedCosSin) {
  RopeTree t({1, 1, 6, 4}, 3, false);
  auto rows = t.rope_rows();
  ASSERT_EQ(rows.size(), 2u);
  for (int i = 0; i < 2; ++i) {
    const ReportRow& r = rows[static_cast<size_t>(i)];
    EXPECT_EQ(fs::path(r.golden_data_path).filename(), "output_" + std::to_string(i) + ".pth");
    EXPECT_EQ(fs::path(r.my_data_path).filename(), "intensor" + std::to_string(2 + i) + ".bin");
    EXPECT_EQ(r.golden_shape, "[1, 4]");
    EXPECT_EQ(r.my_shape, "[1, 4]");
    ASSERT_TRUE(r.cosine.has_value()) << r.note;
    EXPECT_EQ(*r.cosine, 1.0);
    EXPECT_EQ(*r.max_abs, 0.0);
    EXPECT_NE(r.note.find("sliced at row seqLen-1 = 2"), std::string::npos) << r.note;
    EXPECT_NE(r.note.find("halved"), std::string::npos) << r.note;
  }
}

TEST(AtbRope, ThreeDimCacheCrossProductCosAndSin) {
  RopeTree t({5, 3, 2}, 4, true);
  auto rows = t.rope_rows();
  ASSERT_EQ(rows.size(), 2u);  // one golden file, two of mine: cross product
  for (const auto& r : rows) {
    EXPECT_EQ(r.golden_shape, "[1, 3]");
    ASSERT_TRUE(r.cosine.has_value()) << r.note;
    EXPECT_EQ(*r.max_abs, 0.0) << r.my_data_path;
  }
}

TEST(AtbRope, SeqLenAtTheLastRowOnlyWithoutMsitCompat) {
  RopeTree t({1, 1, 4, 2}, 4, false);
  auto rows = t.rope_rows();
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(*rows[0].max_abs, 0.0);
  auto compat = t.rope_rows(true);
  ASSERT_EQ(compat.size(), 2u);
  EXPECT_EQ(compat[0].fail_reason, msit::FailReason::kShapeMismatch);  // msit: [1, 1, 4, 2] vs [1, 2]
  EXPECT_NE(compat[0].note.find("out of bounds"), std::string::npos) << compat[0].note;
}

void compact_all(const fs::path& dir, const char* ext) {
  std::vector<fs::path> files;
  for (auto& e : fs::recursive_directory_iterator(dir))
    if (e.path().extension() == ext) files.push_back(e.path());
  for (const auto& f : files) ASSERT_TRUE(compact_file(f.string(), CompactOptions{}).ok()) << f;
}

TEST(AtbRope, SummarisedCachesAreNotComparedButNoted) {
  RopeTree t({1, 1, 80, 4}, 7, false);  // 320 elements: more than a summary keeps
  compact_all(t.torch_proc, ".pth");
  auto rows = t.rope_rows();
  ASSERT_EQ(rows.size(), 2u);
  for (const auto& r : rows) {
    EXPECT_FALSE(r.cosine.has_value());
    EXPECT_EQ(r.verdict, Verdict::kSkip);
    EXPECT_NE(r.note.find("not compared"), std::string::npos) << r.note;
  }
  // The small ATB side summarised keeps its values: still exact against the raw cache.
  RopeTree small({1, 1, 80, 4}, 7, false);
  compact_all(small.atb_proc, ".bin");
  auto exact = small.rope_rows();
  ASSERT_EQ(exact.size(), 2u);
  ASSERT_TRUE(exact[0].cosine.has_value()) << exact[0].note;
  EXPECT_EQ(*exact[0].max_abs, 0.0);
}

}  // namespace
}  // namespace msit::atb
