// ATB/torch compare: topology parsers (valid, corrupt, hostile), layers, mapping files, and the
// fixtures of docs/formats/atb-torch.md §5 with the rows msit produced (order, pairing, metrics).
#include <gtest/gtest.h>

#include "common/compaction/compact.h"
#include "common/compare_atb/atb_compare.h"
#include "common/compare_atb/side.h"
#include "common/compare_atb/stats_compare.h"
#include "common/compare_atb/xlsx_report.h"
#include "common/report/csv.h"
#include "tests/unit/atb_fixtures.h"

namespace msit::atb {
namespace {

using namespace atb_test;

TEST(AtbTopology, TorchModelTreeOfF1) {
  std::string text =
      R"({"name": "root", "type": "Net", "children": [{"name": "root.act", "type": "ReLU", "children": []}, {"name": "root.fc", "type": "Linear", "children": []}]})";
  auto t = parse_torch_model_tree(text, "model_tree.json");
  ASSERT_TRUE(t.ok()) << t.error().to_string();
  ASSERT_EQ(t->nodes.size(), 3u);
  EXPECT_EQ(t->nodes[1].name, "root.act");  // registration order kept
  EXPECT_EQ(t->nodes[2].tensor_path, "root.fc");
  EXPECT_EQ(t->nodes[0].children, (std::vector<uint32_t>{1, 2}));
}

TEST(AtbTopology, CorruptAndHostileInputsAreErrors) {
  for (std::string bad : {"", "{", "[]", "{\"type\": \"x\"}", "{\"name\": 3}", "{\"name\": \"r\", \"children\": 5}",
                          "{\"name\": \"r\", \"children\": [1]}", "\xff\xfe"}) {
    EXPECT_FALSE(parse_torch_model_tree(bad, "t.json").ok()) << bad;
  }
  // Names are directory names: a path in one would read outside the dump.
  EXPECT_FALSE(parse_torch_model_tree(R"({"name": "..", "children": []})", "t.json").ok());
  EXPECT_FALSE(parse_torch_model_tree(R"({"name": "root", "children": [{"name": "a/../../etc"}]})", "t.json").ok());
  uint32_t show0 = 0;
  EXPECT_FALSE(parse_atb_model(R"({"nodes": [{"opName": "x", "opType": "../x"}]})", "m.json", false, show0).ok());
  std::string deep;
  for (int i = 0; i < 100000; ++i) deep += "{\"name\": \"r\", \"children\": [";
  auto r = parse_torch_model_tree(deep, "deep.json");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("nested deeper"), std::string::npos);
  uint32_t show = 0;
  for (std::string bad :
       {"{}", "{\"nodes\": 1}", "{\"nodes\": [1]}", "{\"nodes\": [{\"opType\": \"A\", \"nodes\": {}}]}", "[1]"}) {
    EXPECT_FALSE(parse_atb_model(bad, "m.json", false, show).ok()) << bad;
  }
  // Brackets inside strings do not count towards the depth.
  EXPECT_TRUE(check_json_depth("{\"a\": \"[[[[[[[[[[\"}", 2, "x").ok());
}

TEST(AtbTopology, AtbModelPathsStartAndTransdata) {
  uint32_t show = 0;
  auto t = parse_atb_model(f3_atb_model("BlockLayer", 5, 2), "M.json", false, show);
  ASSERT_TRUE(t.ok()) << t.error().to_string();
  EXPECT_EQ(t->start, 5);
  ASSERT_EQ(t->nodes.size(), 7u);
  EXPECT_EQ(t->nodes[1].tensor_path, "5_BlockLayer");
  EXPECT_EQ(t->nodes[3].tensor_path, "5_BlockLayer/1_LinearOperation");
  EXPECT_TRUE(t->nodes[3].param.has_bias_true);
  EXPECT_EQ(t->nodes[4].tensor_path, "6_BlockLayer");
  EXPECT_EQ(t->nodes[6].show_order, 7u);
  auto td = parse_atb_model(f3_atb_model("L", 0, 1), "M.json", true, show);
  ASSERT_TRUE(td.ok());
  EXPECT_EQ(td->nodes[1].tensor_path, "1_L");  // TransdataOperation_0 takes opId 0
}

TEST(AtbLayers, MoreThanTenChildrenAndMoreThanFiveOfOneType) {
  auto tree = [](int n) {
    auto j = torch_tree_json(f3_torch_tree(n));
    return parse_torch_model_tree(j, "t").value();
  };
  EXPECT_EQ(layer_type(tree(11)), "Block");
  EXPECT_EQ(layer_nodes(tree(11), "Block").size(), 11u);
  EXPECT_EQ(layer_type(tree(10)), "");  // F6: 10 layers -> no layer matches
}

TEST(AtbMapping, StringValueAndMsitLetters) {
  std::string text = R"({"BlockLayer_outtensor0": ["Block_output"], "LinearOperation": "Linear"})";
  auto doc = parse_op_mapping(text, "op_mapping_file.json", false);
  ASSERT_TRUE(doc.ok());
  ASSERT_EQ(doc->size(), 2u);
  EXPECT_EQ((*doc)[0].first, "BlockLayer_outtensor0");  // file order kept
  EXPECT_EQ((*doc)[1].second, (std::vector<std::string>{"Linear"}));
  auto compat = parse_op_mapping(text, "op_mapping_file.json", true);
  ASSERT_TRUE(compat.ok());
  EXPECT_EQ((*compat)[1].second.size(), 6u);
  for (std::string bad : {"[]", "{\"a-b\": \"x\"}", "{\"a\": 1}", "{\"a\": [\"x y\"]}", "{\"a\": [[\"x\"]]}", "nope"}) {
    EXPECT_FALSE(parse_op_mapping(bad, "m.json", false).ok()) << bad;
  }
  auto table = custom_table(*doc);
  EXPECT_EQ(table.size(), 6u);
  EXPECT_EQ(table[0].first, "CommonLayer_outtensor0");
}

// F3: torch cpu_100 (11 Blocks) vs ATB 0_200 (11 BlockLayers); files for layers 0 and 10.
struct F3 {
  TempDir tmp;
  fs::path torch_proc, atb_root, atb_proc;
  explicit F3(const std::string& linear_param = "{\"hasBias\": true}") {
    torch_proc = tmp.p / "msit_dump_20260101_000000" / "torch_tensors" / "cpu_100";
    atb_root = tmp.p / "atb" / "msit_dump_20260101_000001";
    atb_proc = atb_root / "tensors" / "0_200";
    write_file(torch_proc / "model_tree.json", torch_tree_json(f3_torch_tree()));
    write_file(atb_root / "model" / "200" / "M.json", f3_atb_model("BlockLayer", 0, 11, linear_param));
    for (int i : {0, 10}) {
      std::string b = "root.layers." + std::to_string(i);
      write_torch_tensor(torch_proc / "0" / b / "output.pth", {1, 2, 3, 4}, {1, 4});
      write_torch_tensor(torch_proc / "0" / (b + ".ln") / "output.pth", {-1, -0.5, 0.5, 1}, {1, 4});
      write_torch_tensor(torch_proc / "0" / (b + ".fc") / "output.pth", {1, 2, 3, 4}, {1, 4});
      fs::path l = atb_proc / "0" / (std::to_string(i) + "_BlockLayer");
      write_atb_bin(l / "after" / "outtensor0.bin", {1, 2, 3, 4}, {1, 4}, true);
      write_atb_bin(l / "0_LayerNormOperation" / "after" / "outtensor0.bin", {-1, -0.5, 0.5, 1}, {1, 4}, true);
      write_atb_bin(l / "1_LinearOperation" / "after" / "outtensor0.bin", {1, 2, 3, 5}, {1, 4}, false);
    }
  }
};

std::vector<std::string> pairs_of(const std::vector<ReportRow>& rows) {
  std::vector<std::string> v;
  for (const auto& r : rows) v.push_back(tail(r.golden_data_path, 2) + " -> " + tail(r.my_data_path, 4));
  return v;
}

TEST(AtbCompareFixtures, F3AtbVsTorchApi) {
  F3 f;
  AtbCompareOptions o;
  o.level = PolicySet::kApi;
  auto res = run_atb_compare(f.torch_proc.string(), f.atb_proc.string(), o);
  ASSERT_TRUE(res.ok()) << res.error().to_string();
  ASSERT_EQ(res->sheets.size(), 1u);
  const auto& rows = res->sheets[0].rows;
  std::vector<std::string> want = {
      "root.layers.0/output.pth -> 0/0_BlockLayer/after/outtensor0.bin",
      "root.layers.0.ln/output.pth -> 0_BlockLayer/0_LayerNormOperation/after/outtensor0.bin",
      "root.layers.0.fc/output.pth -> 0_BlockLayer/1_LinearOperation/after/outtensor0.bin",
      "root.layers.10/output.pth -> 0/10_BlockLayer/after/outtensor0.bin",
      "root.layers.10.fc/output.pth -> 0/10_BlockLayer/after/outtensor0.bin",
      "root.layers.10.ln/output.pth -> 10_BlockLayer/0_LayerNormOperation/after/outtensor0.bin",
      "root.layers.10/output.pth -> 10_BlockLayer/1_LinearOperation/after/outtensor0.bin",
      "root.layers.10.fc/output.pth -> 10_BlockLayer/1_LinearOperation/after/outtensor0.bin",
      "root.layers.10.fc/output.pth -> 10_BlockLayer/1_LinearOperation/after/outtensor0.bin"};
  EXPECT_EQ(pairs_of(rows), want);
  for (size_t i = 0; i < rows.size(); ++i) EXPECT_EQ(rows[i].data_id, i);
  const ReportRow& lin = rows[2];
  ASSERT_EQ(msit::msit_reason_cell(lin), "") << msit::verdict_name(lin.verdict);
  EXPECT_EQ(lin.golden_op_type, "Linear");
  EXPECT_EQ(lin.my_op_type, "LinearOperation");
  EXPECT_EQ(msit::dtype_cell_text(lin.my_dtype), "torch.float32");
  EXPECT_EQ(lin.my_shape, "[1, 4]");
  EXPECT_EQ(*lin.my_mean, 2.75);
  EXPECT_DOUBLE_EQ(*lin.cosine, 0.9939990885);
  EXPECT_DOUBLE_EQ(*lin.max_rel, 0.25);
  EXPECT_DOUBLE_EQ(*lin.mean_rel, 0.0625);
  EXPECT_DOUBLE_EQ(*lin.max_abs, 1.0);
  EXPECT_DOUBLE_EQ(*lin.mean_abs, 0.25);
  EXPECT_NEAR(*lin.kl, 0.10107865929603577, 1e-6);
  EXPECT_NEAR(*lin.red, 0.18257419764995575, 1e-7);
  EXPECT_EQ(msit::msit_reason_cell(lin), "");
  // The cells msit wrote for this row (docs/formats/atb-torch.md §5 F3), from golden_op_type to the reason.
  auto cells = row_cells(lin, false);
  std::vector<std::string> msit_cells = {"Linear", "torch.float32", "[1, 4]", "4.0", "1.0", "2.5"};
  EXPECT_EQ(std::vector<std::string>(cells.begin() + 3, cells.begin() + 9), msit_cells);
  // KL and RED: msit reduces in float32, we accumulate in double (docs/formats/report.md §4): last digits
  // differ (0.10107865929603577 vs 0.10107848793268204), checked with a tolerance above.
  std::vector<std::string> msit_metrics = {"LinearOperation", "torch.float32", "[1, 4]", "5.0", "1.0", "2.75",
                                           "0.9939990885",    "0.25",          "0.0625", "1.0", "0.25"};
  EXPECT_EQ(std::vector<std::string>(cells.begin() + 10, cells.begin() + 21), msit_metrics);
  EXPECT_EQ(cells[23], "");
  const ReportRow& ln = rows[1];
  EXPECT_EQ(msit::dtype_cell_text(ln.my_dtype), "torch.float16");
  EXPECT_EQ(*ln.cosine, 1.0);
  EXPECT_EQ(*ln.max_abs, 0.0);
  EXPECT_LE(*ln.kl, 1e-7);
}

TEST(AtbCompareFixtures, F3bThreeSheetsNumberRowsAcrossSheets) {
  F3 f;
  auto res = run_atb_compare(f.torch_proc.string(), f.atb_proc.string(), AtbCompareOptions{});
  ASSERT_TRUE(res.ok()) << res.error().to_string();
  ASSERT_EQ(res->sheets.size(), 3u);
  EXPECT_EQ(res->sheets[0].name, "layer");
  EXPECT_EQ(res->sheets[0].rows.size(), 2u);
  EXPECT_EQ(res->sheets[1].rows.size(), 0u);
  ASSERT_EQ(res->sheets[2].rows.size(), 9u);
  EXPECT_EQ(res->sheets[0].rows[1].data_id, 1u);
  EXPECT_EQ(res->sheets[2].rows[0].data_id, 2u);
  EXPECT_EQ(res->sheets[2].rows[8].data_id, 10u);
}

TEST(AtbCompareFixtures, F3cUserMappingFile) {
  F3 f;
  fs::path dir = f.tmp.p / "map";
  write_file(dir / "op_mapping_file.json",
             R"({"BlockLayer_outtensor0": ["Block_output"], "LinearOperation": "Linear"})");
  for (bool compat : {false, true}) {
    AtbCompareOptions o;
    o.level = PolicySet::kApi;
    o.op_mapping_dir = dir.string();
    o.msit_compat = compat;
    auto res = run_atb_compare(f.torch_proc.string(), f.atb_proc.string(), o);
    ASSERT_TRUE(res.ok());
    auto got = pairs_of(res->sheets[0].rows);
    ASSERT_EQ(got.size(), 12u) << compat;
    // The extra rows: layers.0 -> 0_BlockLayer (file key) right after the ALL_OUTPUT one, layers.0.fc -> Linear.
    EXPECT_EQ(got[0], got[1]);
    EXPECT_EQ(got[3], "root.layers.0.fc/output.pth -> 0_BlockLayer/1_LinearOperation/after/outtensor0.bin");
    EXPECT_EQ(got[4], got[3]);
  }
}

// The process directory of a torch-hook dump under `root` whose model is root.act (ReLU) and
// root.fc (Linear), with its model_tree.json; the token directories are the test's.
fs::path act_fc_process(const fs::path& root) {
  const fs::path proc = root / "msit_dump_1" / "torch_tensors" / "cpu_1";
  write_file(proc / "model_tree.json",
             torch_tree_json({"root", "Net", {{"root.act", "ReLU", {}}, {"root.fc", "Linear", {}}}}));
  return proc;
}

TEST(AtbCompareFixtures, F1bTorchVsTorch) {
  TempDir tmp;
  fs::path procs[2];
  for (int s = 0; s < 2; ++s) {
    procs[s] = act_fc_process(tmp.p / (s ? "my" : "golden"));
    for (int t : {0, 1}) {
      fs::path d = procs[s] / std::to_string(t);
      for (const char* m : {"root.fc", "root.act"}) {
        write_torch_tensor(d / m / "input_0.pth", {1, 2}, {1, 2});
        write_torch_tensor(d / m / "output.pth", {1, 2}, {1, 2});
      }
      write_torch_tensor(d / "root" / "input_0.pth", {1, 2}, {1, 2});
      write_torch_tensor(d / "root" / "output_0.pth", {1, 2}, {1, 2});
      write_torch_tensor(d / "root" / "output_1_0.pth", {3, 4}, {1, 2});
    }
  }
  AtbCompareOptions o;
  o.level = PolicySet::kApi;
  auto res = run_atb_compare(procs[0].string(), procs[1].string(), o);
  ASSERT_TRUE(res.ok()) << res.error().to_string();
  const auto& rows = res->sheets[0].rows;
  ASSERT_EQ(rows.size(), 8u);
  std::vector<std::string> want = {
      "root.fc/output.pth -> 0/root.fc/output.pth", "root.act/output.pth -> 0/root.act/output.pth",
      "root/output_0.pth -> 0/root/output_0.pth", "root/output_0.pth -> 0/root/output_1_0.pth"};
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(tail(rows[i].golden_data_path, 2) + " -> " + tail(rows[i].my_data_path, 3), want[i]);
    EXPECT_EQ(rows[i].token_id, 0);
    EXPECT_EQ(rows[i + 4].token_id, 1);
    EXPECT_EQ(rows[i + 4].data_id, i + 4);
  }
}

// Streaming (docs/compare.md "Streaming"): a sheet evaluated one token pair at a time gives the
// rows of one chunk holding them all, byte for byte, and hands them on in report order before the
// sheet ends. The first-divergence rule judges a token id's rows together: "warmup" (id 0, after
// the numbered tokens) is judged with token 0, whose rows wait for it.
TEST(AtbCompareStream, ChunksGiveTheRowsOfOneChunk) {
  TempDir tmp;
  fs::path procs[2];
  for (int s = 0; s < 2; ++s) {
    procs[s] = act_fc_process(tmp.p / (s ? "my" : "golden"));
    for (std::string t : {"0", "1", "2", "warmup"}) {
      fs::path d = procs[s] / t;
      // My token 1 diverges at root.fc; warm-up's inputs differ (judged with token 0's rows).
      float e = s == 1 && t == "1" ? 0.5f : 0.0f, w = s == 1 && t == "warmup" ? 0.25f : 0.0f;
      write_torch_tensor(d / "root.fc" / "input_0.pth", {1 + w, 2, 3, 4}, {1, 4});
      write_torch_tensor(d / "root.fc" / "output.pth", {1 + e + w, 2, 3, 4 - e}, {1, 4});
      write_torch_tensor(d / "root.act" / "input_0.pth", {1 + e + w, 2, 3, 4 - e}, {1, 4});
      write_torch_tensor(d / "root.act" / "output.pth", {1 + e + w, 2, 3, 4 - e}, {1, 4});
    }
  }
  struct Batches : RowSink {
    std::vector<std::vector<ReportRow>> got;
    Status begin_rank(const RankInfo&) override { return ok_status(); }
    Status rows(std::vector<ReportRow>& rows) override {
      got.push_back(rows);
      return ok_status();
    }
    Status end_rank(const RankInfo&) override { return ok_status(); }
  };
  auto csv = [](const std::vector<ReportRow>& rows) {
    std::string out;
    EXPECT_TRUE(write_report_csv(rows, CsvOptions{}, [&](std::string_view p) {
                  out += p;
                  return ok_status();
                }).ok());
    return out;
  };
  AtbCompareOptions whole;
  whole.level = PolicySet::kApi;
  auto want = run_atb_compare(procs[0].string(), procs[1].string(), whole);
  ASSERT_TRUE(want.ok()) << want.error().to_string();
  ASSERT_EQ(want->sheets[0].rows.size(), 8u);
  AtbCompareOptions one = whole;
  one.chunk_jobs = 1;
  Batches b;
  ASSERT_TRUE(stream_atb_compare(procs[0].string(), procs[1].string(), one, b).ok());
  // Tokens 0 and warmup go on together at the end (both id 0); tokens 1 and 2 cannot pass token 0.
  ASSERT_EQ(b.got.size(), 1u);
  EXPECT_EQ(csv(b.got[0]), csv(want->sheets[0].rows));
  // Without the warm-up, each token's rows go on as soon as they are judged.
  fs::remove_all(procs[1] / "warmup");
  want = run_atb_compare(procs[0].string(), procs[1].string(), whole);
  ASSERT_TRUE(want.ok());
  Batches b2;
  ASSERT_TRUE(stream_atb_compare(procs[0].string(), procs[1].string(), one, b2).ok());
  ASSERT_EQ(b2.got.size(), 3u);
  std::vector<ReportRow> all;
  for (auto& batch : b2.got) all.insert(all.end(), batch.begin(), batch.end());
  EXPECT_EQ(csv(all), csv(want->sheets[0].rows));
  size_t jumps = 0;
  for (const auto& r : all) jumps += r.jump == ReportRow::Jump::kFirst;
  EXPECT_EQ(jumps, 1u);  // token 1's root.fc
}

// F4: two model files, warm-up in dir 0; tokens 0, 1, 2 map to 1/0_PLayer, 1/11_DLayer, 2/11_DLayer.
TEST(AtbCompareFixtures, F4TokensWithTwoModels) {
  TempDir tmp;
  fs::path tp = tmp.p / "t" / "msit_dump_1" / "torch_tensors" / "npu0_100";
  write_file(tp / "model_tree.json", torch_tree_json(f3_torch_tree()));
  for (int t : {0, 1, 2}) {
    float v = static_cast<float>(t + 1);
    write_torch_tensor(tp / std::to_string(t) / "root.layers.0" / "output.pth", {v, v, v, v}, {4});
  }
  fs::path root = tmp.p / "a" / "msit_dump_2";
  write_file(root / "model" / "200" / "Prefill.json", f3_atb_model("PLayer", 0, 11));
  write_file(root / "model" / "200" / "Decode.json", f3_atb_model("DLayer", 11, 11));
  fs::path ap = root / "tensors" / "1_200";
  auto put = [&](const char* dir, const char* op, float v) {
    write_atb_bin(ap / dir / op / "after" / "outtensor0.bin", {v, v, v, v}, {4}, false);
  };
  put("0", "0_PLayer", 9), put("0", "11_DLayer", 9), put("1", "0_PLayer", 1), put("1", "11_DLayer", 2);
  put("2", "11_DLayer", 3);
  for (bool compat : {false, true}) {
    AtbCompareOptions o;
    o.level = PolicySet::kLayer;
    o.msit_compat = compat;
    auto res = run_atb_compare(tp.string(), ap.string(), o);
    ASSERT_TRUE(res.ok()) << res.error().to_string();
    const auto& rows = res->sheets[0].rows;
    ASSERT_EQ(rows.size(), 3u);
    EXPECT_EQ(tail(rows[0].my_data_path, 4), "1/0_PLayer/after/outtensor0.bin");
    EXPECT_EQ(tail(rows[1].my_data_path, 4), "1/11_DLayer/after/outtensor0.bin");
    EXPECT_EQ(tail(rows[2].my_data_path, 4), "2/11_DLayer/after/outtensor0.bin");
    for (int i = 0; i < 3; ++i) {
      EXPECT_EQ(rows[static_cast<size_t>(i)].token_id, i);
      EXPECT_EQ(*rows[static_cast<size_t>(i)].cosine, 1.0);
    }
  }
}

// F5: two ATB ranks of [1, 4] concatenated against torch's [1, 8].
TEST(AtbCompareFixtures, F5TwoRanksConcatenated) {
  TempDir tmp;
  fs::path tp = tmp.p / "t" / "msit_dump_1" / "torch_tensors" / "cpu_100";
  write_file(tp / "model_tree.json", torch_tree_json(f3_torch_tree()));
  write_torch_tensor(tp / "0" / "root.layers.0" / "output.pth", {0, 1, 2, 3, 4, 5, 6, 7}, {1, 8});
  fs::path root = tmp.p / "a" / "msit_dump_2";
  for (const char* pid : {"200", "201"}) write_file(root / "model" / pid / "M.json", f3_atb_model("L", 0, 11));
  write_atb_bin(root / "tensors" / "0_200" / "0" / "0_L" / "after" / "outtensor0.bin", {0, 1, 2, 3}, {1, 4}, false);
  write_atb_bin(root / "tensors" / "1_201" / "0" / "0_L" / "after" / "outtensor0.bin", {4, 5, 6, 7}, {1, 4}, false);
  AtbCompareOptions o;
  o.level = PolicySet::kLayer;
  auto res = run_atb_compare(tp.string(), (root / "tensors" / "1_201").string(), o);
  ASSERT_TRUE(res.ok()) << res.error().to_string();
  const auto& rows = res->sheets[0].rows;
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_NE(rows[0].my_data_path.find("1_201"), std::string::npos);
  EXPECT_EQ(rows[0].my_shape, "[1, 8]");
  EXPECT_EQ(*rows[0].my_mean, 3.5);
  EXPECT_EQ(*rows[0].cosine, 1.0);
}

// End to end: one diverging op among equal ones is the only failing row, and it is named.
TEST(AtbCompareEndToEnd, InjectedDivergenceIsNamed) {
  F3 f;
  auto d = f.atb_proc / "0" / "10_BlockLayer" / "0_LayerNormOperation" / "after" / "outtensor0.bin";
  write_atb_bin(d, {1, -0.5, 0.5, -1}, {1, 4}, true);
  // Make layer 0's Linear equal, so only the injected op diverges.
  write_atb_bin(f.atb_proc / "0" / "0_BlockLayer" / "1_LinearOperation" / "after" / "outtensor0.bin", {1, 2, 3, 4},
                {1, 4}, false);
  write_atb_bin(f.atb_proc / "0" / "10_BlockLayer" / "1_LinearOperation" / "after" / "outtensor0.bin", {1, 2, 3, 4},
                {1, 4}, false);
  AtbCompareOptions o;
  o.level = PolicySet::kApi;
  auto res = run_atb_compare(f.torch_proc.string(), f.atb_proc.string(), o);
  ASSERT_TRUE(res.ok());
  std::vector<const ReportRow*> failing;
  for (const auto& r : res->sheets[0].rows)
    if (r.verdict == Verdict::kFail) failing.push_back(&r);
  ASSERT_EQ(failing.size(), 1u);
  EXPECT_EQ(failing[0]->my_op_type, "LayerNormOperation");
  EXPECT_NE(failing[0]->my_data_path.find("10_BlockLayer/0_LayerNormOperation"), std::string::npos);
  EXPECT_NE(failing[0]->golden_data_path.find("root.layers.10.ln"), std::string::npos);
}

// Summarise (compact) every ATB .bin of a tree: the raw files are replaced by .summary.json.
void compact_tree(const fs::path& root) {
  std::vector<fs::path> bins;
  for (auto& e : fs::recursive_directory_iterator(root)) {
    if (e.is_regular_file() && (e.path().extension() == ".bin" || e.path().extension() == ".pth"))
      bins.push_back(e.path());
  }
  for (const auto& b : bins) ASSERT_TRUE(compact_file(b.string(), CompactOptions{}).ok()) << b;
}

// The same rows on a summarised ATB side, compared against raw torch; the divergence still shows.
TEST(AtbCompareEndToEnd, SummarisedAtbAgainstRawTorch) {
  F3 f;
  write_atb_bin(f.atb_proc / "0" / "10_BlockLayer" / "0_LayerNormOperation" / "after" / "outtensor0.bin",
                {1, -0.5, 0.5, -1}, {1, 4}, true);
  compact_tree(f.atb_root / "tensors");
  ASSERT_TRUE(fs::exists(f.atb_proc / "0" / "0_BlockLayer" / "after" / "outtensor0.bin.summary.json"));
  AtbCompareOptions o;
  o.level = PolicySet::kApi;
  auto res = run_atb_compare(f.torch_proc.string(), f.atb_proc.string(), o);
  ASSERT_TRUE(res.ok()) << res.error().to_string();
  const auto& rows = res->sheets[0].rows;
  ASSERT_EQ(rows.size(), 9u);
  EXPECT_EQ(tail(rows[5].my_data_path, 4), "10_BlockLayer/0_LayerNormOperation/after/outtensor0.bin");  // the raw name
  // Four-element tensors keep their values in the summary, so even this compare is exact.
  EXPECT_EQ(rows[5].verdict, Verdict::kFail);
  EXPECT_EQ(rows[1].verdict, Verdict::kPass);
  // Both sides summarised: the same rows and verdicts.
  compact_tree(f.torch_proc);
  ASSERT_TRUE(fs::exists(f.torch_proc / "0" / "root.layers.0" / "output.pth.summary.json"));
  auto both = run_atb_compare(f.torch_proc.string(), f.atb_proc.string(), o);
  ASSERT_TRUE(both.ok()) << both.error().to_string();
  ASSERT_EQ(both->sheets[0].rows.size(), 9u);
  for (size_t i = 0; i < 9; ++i) {
    EXPECT_EQ(both->sheets[0].rows[i].verdict, rows[i].verdict) << i;
    EXPECT_EQ(both->sheets[0].rows[i].golden_data_path, rows[i].golden_data_path) << i;
  }
}

// Two ranks, one summarised: no concatenation, a note saying so, the selected rank compared.
TEST(AtbCompareFixtures, F5OnSummariesIsNotConcatenated) {
  TempDir tmp;
  fs::path tp = tmp.p / "t" / "msit_dump_1" / "torch_tensors" / "cpu_100";
  write_file(tp / "model_tree.json", torch_tree_json(f3_torch_tree()));
  write_torch_tensor(tp / "0" / "root.layers.0" / "output.pth", {0, 1, 2, 3, 4, 5, 6, 7}, {1, 8});
  fs::path root = tmp.p / "a" / "msit_dump_2";
  for (const char* pid : {"200", "201"}) write_file(root / "model" / pid / "M.json", f3_atb_model("L", 0, 11));
  write_atb_bin(root / "tensors" / "0_200" / "0" / "0_L" / "after" / "outtensor0.bin", {0, 1, 2, 3}, {1, 4}, false);
  write_atb_bin(root / "tensors" / "1_201" / "0" / "0_L" / "after" / "outtensor0.bin", {4, 5, 6, 7}, {1, 4}, false);
  compact_tree(root / "tensors");
  AtbCompareOptions o;
  o.level = PolicySet::kLayer;
  auto res = run_atb_compare(tp.string(), (root / "tensors" / "1_201").string(), o);
  ASSERT_TRUE(res.ok()) << res.error().to_string();
  const auto& rows = res->sheets[0].rows;
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_NE(rows[0].note.find("ranks not concatenated"), std::string::npos) << rows[0].note;
  EXPECT_EQ(rows[0].my_shape, "[1, 4]");
}

// 2.4: a topology whose opIds (start 5) disagree with the dump's dirs (0..10): msit's rule pairs
// the wrong dirs, the robust rule (type + order of the dirs) the right ones.
TEST(AtbCompareFixtures, RobustDirRule) {
  TempDir tmp;
  fs::path tp = tmp.p / "t" / "msit_dump_1" / "torch_tensors" / "cpu_100";
  write_file(tp / "model_tree.json", torch_tree_json(f3_torch_tree()));
  fs::path root = tmp.p / "a" / "msit_dump_2";
  write_file(root / "model" / "200" / "M.json", f3_atb_model("BlockLayer", 5, 11));
  for (int i = 0; i < 11; ++i) {
    float v = static_cast<float>(i + 1);
    write_torch_tensor(tp / "0" / ("root.layers." + std::to_string(i)) / "output.pth", {v, -v, v, 2 * v}, {4});
    write_atb_bin(root / "tensors" / "0_200" / "0" / (std::to_string(i) + "_BlockLayer") / "after" / "outtensor0.bin",
                  {v, -v, v, 2 * v}, {4}, false);
  }
  for (bool robust : {false, true}) {
    AtbCompareOptions o;
    o.level = PolicySet::kLayer;
    o.robust_dirs = robust;
    auto res = run_atb_compare(tp.string(), (root / "tensors" / "0_200").string(), o);
    ASSERT_TRUE(res.ok()) << res.error().to_string();
    const auto& rows = res->sheets[0].rows;
    ASSERT_EQ(rows.size(), robust ? 11u : 6u);  // msit: nodes 0..5 -> dirs 5..10
    size_t equal = 0;
    for (const auto& r : rows) equal += r.max_abs && *r.max_abs == 0.0;
    EXPECT_EQ(equal, robust ? 11u : 0u);
  }
}

// ATB's named files (intensor{k}_{irName}.bin): exact-name keys find them unless --msit-compat.
TEST(AtbCompareFixtures, IrNamedFilesFoundByExactKeys) {
  F3 f;
  for (int i : {0, 10}) {
    fs::path d = f.atb_proc / "0" / (std::to_string(i) + "_BlockLayer") / "0_LayerNormOperation" / "after";
    fs::rename(d / "outtensor0.bin", d / "outtensor0_y.bin");
  }
  for (bool compat : {false, true}) {
    AtbCompareOptions o;
    o.level = PolicySet::kApi;
    o.msit_compat = compat;
    auto res = run_atb_compare(f.torch_proc.string(), f.atb_proc.string(), o);
    ASSERT_TRUE(res.ok());
    size_t ln = 0;
    for (const auto& r : res->sheets[0].rows) ln += r.my_op_type == "LayerNormOperation";
    EXPECT_EQ(ln, compat ? 0u : 2u);
  }
}

// --stats: torch statistics.csv (last Output row) against ATB stats .bin files.
TEST(AtbStatsCompare, StatisticsCsvAgainstStatsBin) {
  F3 f;
  for (int i : {0, 10}) {
    std::string b = "root.layers." + std::to_string(i) + ".fc";
    write_file(f.torch_proc / "0" / b / "statistics.csv",
               "NodeName,NodeType,InputOutput,Index,DataType,Shape,Max,Min,Mean,L2Norm\r\n" + b +
                   ",Linear,Input,0,torch.float32,\"(1, 4)\",9,9,9,9\r\n" + b +
                   ",Linear,Output,0,torch.float32,\"(1, 4)\",4.0,1.0,2.5,5.477225575051661\r\n");
    write_file(
        f.atb_proc / "0" / (std::to_string(i) + "_BlockLayer") / "1_LinearOperation" / "after" / "outtensor0.bin",
        "$Version=1.0\n$Object.Count=0\n$Object.Length=0\nformat=2\ndtype=0\ndims=1,4\nmax=5\nmin=1\nmean=2.75\n"
        "l2norm=6.244997998398398\n$End=1\n");
  }
  auto res = run_stats_compare(f.torch_proc.string(), f.atb_proc.string(), AtbCompareOptions{});
  ASSERT_TRUE(res.ok()) << res.error().to_string();
  // F3's api matches with a golden statistics.csv: layers.0.fc -> Linear; layers.10.fc -> 10_BlockLayer
  // (a tensor .bin, summarised here; msit would drop it) and -> Linear twice (ALL_OUTPUT, file key).
  ASSERT_EQ(res->rows.size(), 4u);
  EXPECT_EQ(res->rows[1].my_op_type, "BlockLayer");
  const msit::ReportRow& r = res->rows[0];
  EXPECT_EQ(r.golden_op_type, "Linear");
  EXPECT_EQ(r.my_op_type, "LinearOperation");
  EXPECT_EQ(*r.stat_abs[0], 1.0);
  EXPECT_EQ(*r.stat_rel[0], 0.25);
  EXPECT_EQ(*r.stat_abs[1], 0.0);
  EXPECT_EQ(*r.stat_abs[2], 0.25);
  EXPECT_NEAR(*r.stat_abs[3], 0.7677724, 1e-6);
  // Statistics only: no |delta| above 1 is inconclusive, not a pass (the one outcome table).
  EXPECT_EQ(r.verdict, msit::Verdict::kInconclusive);
  EXPECT_EQ(r.compare_mode, msit::MetricSource::kStats);
  // Op labels from the dump structure: my ATB node path and type, the golden torch module.
  EXPECT_EQ(r.my_label.op, "0_BlockLayer/1_LinearOperation");
  EXPECT_EQ(r.my_label.op_type, "LinearOperation");
  EXPECT_EQ(r.my_label.role, msit::TensorRole::kOutput);
  EXPECT_TRUE(r.golden_label.op.ends_with("layers.0.fc")) << r.golden_label.op;
  EXPECT_EQ(r.golden_label.op_type, "Linear");
  EXPECT_EQ(r.golden_label.role, msit::TensorRole::kOutput);
  EXPECT_GT(res->dropped, 0u);  // nodes without statistics.csv
  std::string csv = stats_report_csv(res->rows);
  EXPECT_EQ(csv.substr(0, csv.find(',')), "token_id");
  auto atb_golden = run_stats_compare(f.atb_proc.string(), f.torch_proc.string(), AtbCompareOptions{});
  EXPECT_FALSE(atb_golden.ok());
}

// F6 / ATB vs ATB: equal file counts pair in string order (outtensor10 before outtensor2), and
// same-name matching pairs every node with itself.
TEST(AtbCompareFixtures, AtbVsAtbPairsFilesInStringOrder) {
  TempDir tmp;
  fs::path procs[2];
  for (int s = 0; s < 2; ++s) {
    fs::path root = tmp.p / (s ? "my" : "golden") / "msit_dump_1";
    write_file(root / "model" / "200" / "M.json", f3_atb_model("BlockLayer", 0, 11));
    procs[s] = root / "tensors" / "0_200";
    for (int k = 0; k < 12; ++k) {
      write_atb_bin(procs[s] / "0" / "0_BlockLayer" / "0_LayerNormOperation" / "after" /
                        ("outtensor" + std::to_string(k) + ".bin"),
                    {static_cast<float>(k), 1}, {2}, false);
    }
  }
  AtbCompareOptions o;
  o.level = PolicySet::kApi;
  auto res = run_atb_compare(procs[0].string(), procs[1].string(), o);
  ASSERT_TRUE(res.ok()) << res.error().to_string();
  const auto& rows = res->sheets[0].rows;
  ASSERT_EQ(rows.size(), 12u);
  std::vector<std::string> order;
  for (const auto& r : rows) {
    EXPECT_EQ(fs::path(r.golden_data_path).filename(), fs::path(r.my_data_path).filename());
    EXPECT_EQ(*r.cosine, 1.0);
    order.push_back(fs::path(r.my_data_path).stem().string());
  }
  EXPECT_EQ(order[1], "outtensor1");
  EXPECT_EQ(order[2], "outtensor10");
  EXPECT_EQ(order[4], "outtensor2");
}

TEST(AtbSide, DetectionAndErrors) {
  F3 f;
  EXPECT_EQ(detect_side_kind(f.atb_proc.string()), SideKind::kAtb);
  EXPECT_EQ(detect_side_kind((f.torch_proc / "0").string()), SideKind::kTorch);
  EXPECT_FALSE(detect_side_kind(f.tmp.p.string()).has_value());
  fs::remove_all(f.atb_root / "model");
  EXPECT_FALSE(detect_side_kind(f.atb_proc.string()).has_value());  // no topology: not an ATB dump
}

// A sheet longer than Excel's limit goes on in "NAME (2)", ...: every row once, in order; a
// sheet that fits (or is empty) stays one sheet under its own name.
TEST(AtbXlsx, ASheetOverTheRowLimitGoesOnInNumberedSheets) {
  std::vector<AtbSheet> sheets(3);
  sheets[0].name = "layer";
  sheets[0].rows.resize(7);
  sheets[1].name = "module";
  sheets[2].name = "api";
  sheets[2].rows.resize(3);
  const auto parts = xlsx_sheet_parts(sheets, 3);
  std::vector<std::string> names;
  for (const auto& p : parts) names.push_back(p.name + ":" + std::to_string(p.first) + "+" + std::to_string(p.count));
  EXPECT_EQ(names, (std::vector<std::string>{"layer:0+3", "layer (2):3+3", "layer (3):6+1", "module:0+0", "api:0+3"}));
  EXPECT_EQ(parts[1].sheet, 0u);
  EXPECT_EQ(parts[4].sheet, 2u);
  EXPECT_EQ(kXlsxSheetRows + 1, size_t{1} << 20);  // Excel's 1,048,576 rows, the header included
  // The streamed writer starts the same parts as the rows come (the workbook opened with the
  // first rows: the sheets begun before are added then).
  TempDir tmp;
  XlsxReportWriter w((tmp.p / "r.xlsx").string(), true, 3);
  std::vector<ReportRow> seven(7);
  ASSERT_TRUE(w.begin_sheet("layer").ok());
  ASSERT_TRUE(w.rows(std::span<const ReportRow>(seven).first(2)).ok());
  ASSERT_TRUE(w.rows(std::span<const ReportRow>(seven).subspan(2)).ok());
  ASSERT_TRUE(w.begin_sheet("module").ok());
  ASSERT_TRUE(w.begin_sheet("api").ok());
  ASSERT_TRUE(w.rows(sheets[2].rows).ok());
  ASSERT_TRUE(w.commit().ok());
  std::vector<std::string> want;
  for (const auto& p : parts) want.push_back(p.name);
  EXPECT_EQ(w.sheet_names(), want);
  EXPECT_TRUE(fs::is_regular_file(tmp.p / "r.xlsx"));
  XlsxReportWriter empty((tmp.p / "e.xlsx").string(), false, 3);  // sheets without rows: opened at commit
  ASSERT_TRUE(empty.begin_sheet("layer").ok());
  ASSERT_TRUE(empty.begin_sheet("api").ok());
  ASSERT_TRUE(empty.commit().ok());
  EXPECT_EQ(empty.sheet_names(), (std::vector<std::string>{"layer", "api"}));
}

}  // namespace
}  // namespace msit::atb
