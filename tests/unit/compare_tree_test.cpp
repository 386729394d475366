// End-to-end compare on generated trees: GE vs FX (rank and old layouts), summaries instead of
// raw files, mixed trees, _min_max files, corrupt inputs and missing ranks.
#include <gtest/gtest.h>

#include <cmath>

#include "common/compaction/compact.h"
#include "common/compaction/compact_run.h"
#include "common/compare/compare.h"
#include "common/compare/dump_index.h"
#include "common/compare/terminal_summary.h"
#include "common/formats/min_max.h"
#include "common/report/csv.h"
#include "common/report/op_label.h"
#include "tests/unit/compare_fixtures.h"

using namespace compare_test;

namespace {

struct Model {
  fs::path my, golden;
  int ops = 6;
  int tokens = 2;
  int diverge_at = 3;  // my outputs of ops >= this differ
  size_t n = 1000;
};

std::string ts16(int k) { return std::to_string(1700000000000000LL + k * 10); }

// A chain of Add ops: GE dump (my) vs FX dump (golden). old_layout: PTA <= 7.1.0 directories.
Model make_model(const fs::path& root, bool old_layout, int diverge_at = 3) {
  Model m;
  m.diverge_at = diverge_at;
  m.my = root / "msit_ge_dump";
  m.golden = root / "msit_fx_dump";
  std::vector<GraphOpSpec> ops;
  for (int k = 0; k < m.ops; ++k) {
    std::string in = k == 0 ? "arg0_1:0" : "Add_" + std::to_string(k - 1) + ":0";
    ops.push_back({"Add_" + std::to_string(k), "Add", {in}, "add_" + std::to_string(k) + "-aten.add.Tensor.OUTPUT.0"});
  }
  std::string graph_name = old_layout ? "dynamo_original_graph_1_20250101000000000000.txt"
                                      : "dynamo_original_graph_1_rank_0_pid_7_ts_20250101000000000000.txt";
  write_file(m.my / graph_name, graph_text(ops));
  for (int t = 0; t < m.tokens; ++t) {
    fs::path ge_dir =
        old_layout ? m.my / "20250101000000" / "0" / "graph_1" / "1" / std::to_string(t)
                   : m.my / "worldsize1_global_rank0" / "20250101000000" / "0" / "graph_1" / "1" / std::to_string(t);
    fs::path fx_dir = old_layout ? m.golden / "data_dump" / std::to_string(t + 1) / "gm_20250101_dump"
                                 : m.golden / "worldsize1_global_rank0" / "gm_20250101_dump" / std::to_string(t);
    std::vector<float> g_prev = random_values(m.n, 1000 + t), m_prev = g_prev;
    for (int k = 0; k < m.ops; ++k) {
      std::vector<float> g_out = random_values(m.n, static_cast<uint32_t>(t * 100 + k));
      std::vector<float> m_out = g_out;
      if (k >= m.diverge_at) {
        auto noise = random_values(m.n, static_cast<uint32_t>(9000 + t * 100 + k));
        for (size_t i = 0; i < m.n; ++i) m_out[i] = g_out[i] * 0.5f + noise[i];
      } else {
        for (size_t i = 0; i < m.n; ++i) m_out[i] = g_out[i] * (1.0f + 1e-4f);
      }
      std::string ge_name = "Add.Add_" + std::to_string(k) + "." + std::to_string(k + 10) + ".1." + ts16(t * 100 + k);
      write_file(ge_dir / ge_name, ge_file_bytes({{m_prev, {}}}, {{m_out, {}}}, "Add_" + std::to_string(k)));
      std::string fx_base = "add_" + std::to_string(k) + "-aten.add.Tensor";
      std::string fxts = "202501010000000000" + std::to_string(10 + k);
      write_file(fx_dir / (fx_base + ".INPUT.0." + fxts + ".npy"), npy_bytes({g_prev, {}}));
      write_file(fx_dir / (fx_base + ".OUTPUT.0." + fxts + ".npy"), npy_bytes({g_out, {}}));
      g_prev = g_out;
      m_prev = m_out;
    }
  }
  return m;
}

// Replaces every raw dump file below root with its rich summary (as `compact` would).
void summarize_tree(const fs::path& root, bool only_fx = false, bool keep_raw = false) {
  std::vector<fs::path> files;
  for (auto& e : fs::recursive_directory_iterator(root)) {
    if (!e.is_regular_file()) continue;
    std::string n = e.path().filename().string();
    if (n.ends_with(".txt") || n.ends_with(".json")) continue;
    if (only_fx && !n.ends_with(".npy")) continue;
    files.push_back(e.path());
  }
  for (const auto& f : files) {
    auto s = msit::summarize_raw_file(f.string(), msit::StatsOptions{});
    ASSERT_TRUE(s.ok()) << s.error().to_string();
    write_file(f.string() + ".summary.json", msit::summary_to_json(*s));
    if (!keep_raw) fs::remove(f);
  }
}

msit::CompareResult run(const Model& m) {
  msit::CompareOptions o;
  o.jobs = 2;
  auto r = msit::run_compare(m.my.string(), m.golden.string(), o);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().to_string());
  return r.ok() ? std::move(r).value() : msit::CompareResult{};
}

void expect_divergence_at(const msit::CompareResult& res, const Model& m) {
  ASSERT_EQ(res.ranks.size(), 1u);
  const auto& rows = res.ranks[0].rows;
  EXPECT_EQ(rows.size(), static_cast<size_t>(m.ops * m.tokens * 2));
  const msit::ReportRow* f = msit::first_divergence(rows);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->token_id, 0);
  EXPECT_NE(f->my_data_path.find("Add.Add_" + std::to_string(m.diverge_at) + "."), std::string::npos)
      << f->my_data_path;
  EXPECT_NE(f->my_data_path.find(",outputs,0"), std::string::npos);
  std::string summary = msit::terminal_summary(rows, std::nullopt);
  EXPECT_NE(summary.find("first divergence"), std::string::npos);
  EXPECT_NE(summary.find("Add.Add_" + std::to_string(m.diverge_at) + "."), std::string::npos);
}

TEST(CompareTree, GeVsFxRankLayoutFindsInjectedDivergence) {
  TempDir d;
  Model m = make_model(d.path, false);
  auto res = run(m);
  EXPECT_EQ(res.flow, msit::Flow::kGeFx);
  ASSERT_EQ(res.ranks.size(), 1u);
  EXPECT_EQ(res.ranks[0].rank, 0);
  expect_divergence_at(res, m);
  for (const auto& r : res.ranks[0].rows) {
    EXPECT_EQ(r.compare_mode, msit::MetricSource::kExact);
    EXPECT_TRUE(msit::msit_reason_cell(r).empty()) << msit::msit_reason_cell(r);
    EXPECT_TRUE(r.golden_data_path.ends_with(".npy")) << r.golden_data_path;
    EXPECT_EQ(msit::dtype_cell_text(r.golden_dtype), "torch.float32");
    EXPECT_EQ(r.my_shape, "[1000]");
    // The evaluator records where the GE cell's file ends (before ",inputs,k" / ",outputs,k").
    std::string my_file = msit::row_file(r, false);
    EXPECT_TRUE(r.my_data_path.starts_with(my_file + ",")) << r.my_data_path;
    EXPECT_TRUE(fs::is_regular_file(my_file)) << my_file;
    EXPECT_EQ(msit::row_file(r, true), r.golden_data_path);
  }
  // Rows in msit order: sorted by the text after the last '.' of my_data_path (timestamp,role,k).
  const auto& rows = res.ranks[0].rows;
  for (size_t i = 1; i < rows.size(); ++i) {
    auto key = [](const std::string& s) { return s.substr(s.rfind('.') + 1); };
    EXPECT_LE(key(rows[i - 1].my_data_path), key(rows[i].my_data_path));
  }
}

TEST(CompareTree, OldLayoutTokenOffByOne) {
  TempDir d;
  Model m = make_model(d.path, true);
  auto res = run(m);
  ASSERT_EQ(res.ranks.size(), 1u);
  EXPECT_FALSE(res.ranks[0].rank.has_value());
  expect_divergence_at(res, m);
  std::set<int64_t> tokens;
  for (const auto& r : res.ranks[0].rows) tokens.insert(r.token_id);
  EXPECT_EQ(tokens, (std::set<int64_t>{0, 1}));
}

TEST(CompareTree, SummaryCompareMatchesFullCompare) {
  TempDir full_dir, sum_dir;
  Model full = make_model(full_dir.path, false);
  Model sum = make_model(sum_dir.path, false);
  summarize_tree(sum.my);
  summarize_tree(sum.golden);
  auto exact = run(full);
  auto est = run(sum);
  expect_divergence_at(est, sum);
  const auto& a = exact.ranks[0].rows;
  const auto& b = est.ranks[0].rows;
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    // Summaries stand for their raw files: same cells, same order.
    EXPECT_EQ(a[i].my_data_path.substr(a[i].my_data_path.rfind('/')),
              b[i].my_data_path.substr(b[i].my_data_path.rfind('/')));
    // Identical bytes (op 0's input) are proven equal by the hash; the rest are estimated.
    bool same = a[i].max_abs == 0.0;
    EXPECT_EQ(b[i].compare_mode, same ? msit::MetricSource::kHash : msit::MetricSource::kSketch) << a[i].my_data_path;
    EXPECT_EQ(a[i].verdict, b[i].verdict) << a[i].my_data_path;
    ASSERT_TRUE(a[i].red && b[i].red);
    if (*a[i].red > 1e-3) { EXPECT_NEAR(*b[i].red / *a[i].red, 1.0, 0.25) << a[i].my_data_path; }
    EXPECT_TRUE(b[i].stat_abs[0].has_value());
    EXPECT_EQ(b[i].max_rel.has_value(), same);  // not knowable from a sketch
  }
}

TEST(CompareTree, MixedRawGeVsSummaryFx) {
  TempDir d;
  Model m = make_model(d.path, false);
  summarize_tree(m.golden, true);
  auto res = run(m);
  expect_divergence_at(res, m);
  for (const auto& r : res.ranks[0].rows) {
    EXPECT_TRUE(r.compare_mode == msit::MetricSource::kSketch || r.compare_mode == msit::MetricSource::kHash)
        << msit::metric_source_text(r.compare_mode);
  }
}

TEST(CompareTree, MinMaxFilesGiveStatsErrors) {
  TempDir d;
  Model m = make_model(d.path, false, 100);
  // Replace one FX output with the old converter's _min_max.npy.
  fs::path fx_dir = m.golden / "worldsize1_global_rank0" / "gm_20250101_dump" / "0";
  fs::path victim;
  for (auto& e : fs::directory_iterator(fx_dir)) {
    if (e.path().filename().string().starts_with("add_2-aten.add.Tensor.OUTPUT.0.")) victim = e.path();
  }
  ASSERT_FALSE(victim.empty());
  std::string stem = victim.string().substr(0, victim.string().size() - 4);
  write_file(stem + "_min_max.npy", msit::encode_min_max_npy(msit::DType::kFloat32, -3.0, 3.0));
  fs::remove(victim);
  auto res = run(m);
  bool seen = false;
  for (const auto& r : res.ranks[0].rows) {
    if (r.golden_data_path.find("_min_max.npy") == std::string::npos) continue;
    seen = true;
    EXPECT_EQ(r.compare_mode, msit::MetricSource::kStats);
    EXPECT_EQ(r.golden_shape, "[2]");
    EXPECT_TRUE(r.stat_abs[0] && r.stat_abs[1]);
    EXPECT_FALSE(r.stat_abs[2].has_value());
    EXPECT_FALSE(r.cosine.has_value());
  }
  EXPECT_TRUE(seen);
}

TEST(CompareTree, CorruptFileBecomesRowNotCrash) {
  TempDir d;
  Model m = make_model(d.path, false, 100);
  fs::path ge_dir = m.my / "worldsize1_global_rank0" / "20250101000000" / "0" / "graph_1" / "1" / "0";
  fs::path victim;
  for (auto& e : fs::directory_iterator(ge_dir)) {
    if (e.path().filename().string().starts_with("Add.Add_1.")) victim = e.path();
  }
  write_file(victim, "\x10\x00\x00\x00\x00\x00\x00\x00garbage");
  // And a GE file whose op is absent from the graph.
  write_file(ge_dir / ("Mul.Mul_9.99.1." + ts16(50)), ge_file_bytes({{{1, 2}, {}}}, {{{3, 4}, {}}}));
  auto res = run(m);
  bool corrupt = false, absent = false;
  for (const auto& r : res.ranks[0].rows) {
    if (r.my_data_path.find("Add.Add_1.") != std::string::npos && r.token_id == 0) {
      corrupt = true;
      EXPECT_EQ(r.verdict, msit::Verdict::kError);
      EXPECT_NE(msit::msit_reason_cell(r).find(victim.filename().string()), std::string::npos)
          << msit::msit_reason_cell(r);
    }
    if (r.my_data_path.find("Mul.Mul_9.") != std::string::npos) {
      absent = true;
      EXPECT_NE(msit::msit_reason_cell(r).find("not found in graph"), std::string::npos);
      EXPECT_FALSE(r.msit_row);
    }
  }
  EXPECT_TRUE(corrupt);
  EXPECT_TRUE(absent);
}

// Summaries are read in batches (io_uring where allowed): a corrupt GE summary (shared by the
// rows of its tensors, preloaded) and a corrupt FX summary (one row, read with its batch) each
// become error rows naming the file; every other row is compared as usual.
TEST(CompareTree, CorruptSummariesBecomeRowsNotCrash) {
  TempDir d;
  Model m = make_model(d.path, false);
  summarize_tree(m.my);
  summarize_tree(m.golden);
  fs::path ge_victim, fx_victim;
  for (auto& e : fs::recursive_directory_iterator(d.path)) {
    std::string n = e.path().filename().string();
    if (n.starts_with("Add.Add_1.") && n.ends_with(".summary.json") && ge_victim.empty()) ge_victim = e.path();
    if (n.starts_with("add_4-aten.add.Tensor.OUTPUT.") && fx_victim.empty()) fx_victim = e.path();
  }
  ASSERT_FALSE(ge_victim.empty());
  ASSERT_FALSE(fx_victim.empty());
  write_file(ge_victim, "{\"schema\": \"msit-compact/summary\", \"tensors\": [");
  write_file(fx_victim, "");
  auto res = run(m);
  ASSERT_EQ(res.ranks.size(), 1u);
  size_t ge_rows = 0, fx_rows = 0, compared = 0;
  for (const auto& r : res.ranks[0].rows) {
    bool ge_bad = r.my_data_path.find(ge_victim.filename().string().substr(0, 20)) != std::string::npos &&
                  msit::msit_reason_cell(r).find(ge_victim.filename().string()) != std::string::npos;
    bool fx_bad = msit::msit_reason_cell(r).find(fx_victim.filename().string()) != std::string::npos;
    if (ge_bad) ++ge_rows;
    if (fx_bad) ++fx_rows;
    if (ge_bad || fx_bad) EXPECT_EQ(r.verdict, msit::Verdict::kError) << msit::msit_reason_cell(r);
    else if (r.verdict != msit::Verdict::kError) ++compared;
  }
  EXPECT_EQ(ge_rows, 1u);  // one row for the op: its tensors cannot be counted
  EXPECT_EQ(fx_rows, 1u);
  EXPECT_EQ(compared, res.ranks[0].rows.size() - 2);
}

TEST(CompareTree, NoCommonRankIsAClearError) {
  TempDir d;
  Model m = make_model(d.path, false);
  fs::rename(m.golden / "worldsize1_global_rank0", m.golden / "worldsize2_global_rank1");
  auto r = msit::run_compare(m.my.string(), m.golden.string(), msit::CompareOptions{});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("no common rank"), std::string::npos) << r.error().to_string();
}

TEST(CompareTree, MissingGraphIsAClearError) {
  TempDir d;
  Model m = make_model(d.path, false);
  for (auto& e : fs::directory_iterator(m.my)) {
    if (e.path().extension() == ".txt") fs::remove(e.path());
  }
  auto r = msit::run_compare(m.my.string(), m.golden.string(), msit::CompareOptions{});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("graph"), std::string::npos) << r.error().to_string();
}

TEST(CompareTree, FxVsFxAndGeVsGeByName) {
  TempDir d1, d2;
  Model a = make_model(d1.path, false);
  Model b = make_model(d2.path, false);
  auto fx = msit::run_compare(a.golden.string(), b.golden.string(), msit::CompareOptions{});
  ASSERT_TRUE(fx.ok()) << fx.error().to_string();
  EXPECT_EQ(fx->flow, msit::Flow::kFxFx);
  ASSERT_EQ(fx->ranks[0].rows.size(), static_cast<size_t>(a.ops * a.tokens * 2));
  for (const auto& r : fx->ranks[0].rows) EXPECT_EQ(r.cosine, 1.0);
  auto ge = msit::run_compare(a.my.string(), b.my.string(), msit::CompareOptions{});
  ASSERT_TRUE(ge.ok()) << ge.error().to_string();
  EXPECT_EQ(ge->flow, msit::Flow::kGeGe);
  ASSERT_EQ(ge->ranks[0].rows.size(), static_cast<size_t>(a.ops * a.tokens * 2));
  for (const auto& r : ge->ranks[0].rows) {
    EXPECT_EQ(r.verdict, msit::Verdict::kPass);
    EXPECT_EQ(r.max_abs, 0.0);
  }
}

// A raw file next to its summary (compact --keep-raw) is one source, and the raw one: no row is
// doubled, none is shifted to another tensor's file, all are compared exactly.
TEST(CompareTree, RawFileBeatsItsSummaryInTheSameDirectory) {
  TempDir d;
  Model m = make_model(d.path, false);
  summarize_tree(m.my, false, true);
  summarize_tree(m.golden, false, true);
  for (const auto& rank : fs::directory_iterator(m.golden)) {
    auto tree = msit::index_fx_tree(rank.path().string(), true);
    ASSERT_TRUE(tree.ok()) << tree.error().to_string();
    size_t nodes = 0;
    for (const auto& g : tree->groups) {
      for (const auto& [tok, files] : g.tokens) {
        for (const auto& [key, node] : files.fx_nodes) {
          ++nodes;
          ASSERT_EQ(node.inputs.size(), 1u) << key;
          ASSERT_EQ(node.outputs.size(), 1u) << key;
          EXPECT_EQ(node.inputs[0].kind, msit::SourceKind::kRaw) << key;
          EXPECT_EQ(node.outputs[0].kind, msit::SourceKind::kRaw) << key;
        }
      }
    }
    EXPECT_EQ(nodes, static_cast<size_t>(m.ops * m.tokens));
  }
  auto res = run(m);
  expect_divergence_at(res, m);
  for (const auto& r : res.ranks[0].rows) {
    EXPECT_EQ(r.compare_mode, msit::MetricSource::kExact) << r.my_data_path;
    EXPECT_EQ(r.golden_data_path.find(".summary.json"), std::string::npos) << r.golden_data_path;
  }
}

// msit keeps the larger of two GE files with the same op name: raw, and after both are moved
// into a summary store (the listing leaves sizes out; the store is asked for these two).
TEST(CompareTree, DuplicatedGeOpNameKeepsTheLargerFileRawAndStored) {
  TempDir d;
  const std::string small = "Add.Add_1.1.1.1700000000000001", large = "Add.Add_1.2.1.1700000000000002";
  auto make_tree = [&](const std::string& name) {
    const fs::path root = d.path / name / "msit_ge_dump";
    const fs::path dir = root / "worldsize1_global_rank0" / "20250101000000" / "0" / "g" / "1" / "0";
    fs::create_directories(dir);
    write_file(dir / small, ge_file_bytes({Tensor{{1.0f}, {}}}, {Tensor{{2.0f}, {}}}, "Add_1"));
    write_file(dir / large, ge_file_bytes({Tensor{{1, 2, 3, 4}, {}}}, {Tensor{{5, 6, 7, 8}, {}}}, "Add_1"));
    return root;
  };
  const fs::path raw = make_tree("raw"), stored = make_tree("stored");
  msit::CompactRunOptions o;
  o.file.format = msit::SummaryFormat::kStore;
  msit::CompactReport r = msit::run_compact({stored.string()}, o, {});
  ASSERT_TRUE(r.failures.empty()) << r.failures.front().reason;
  ASSERT_EQ(r.raw_removed, 2u);
  for (const auto& [root, kind] : {std::pair{raw, msit::SourceKind::kRaw}, {stored, msit::SourceKind::kStored}}) {
    auto tree = msit::index_ge_tree((root / "worldsize1_global_rank0").string(), true);
    ASSERT_TRUE(tree.ok()) << tree.error().to_string();
    ASSERT_EQ(tree->groups.size(), 1u);
    ASSERT_EQ(tree->groups[0].tokens.size(), 1u);
    const auto& ops = tree->groups[0].tokens.begin()->second.ge_ops;
    ASSERT_EQ(ops.size(), 1u) << root;
    EXPECT_EQ(ops[0].second.kind, kind) << root;
    EXPECT_EQ(ops[0].second.raw_name(), large) << root;
  }
}

}  // namespace
