// GE device-format tensors (FRACTAL_NZ, NC1HWC0) compared with FX logical npy arrays through the
// real compare pipeline must give the metrics of comparing the logical arrays directly. The GE
// side is packed by an independent packer (pad + transpose, no index formulas) with garbage padding.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <numeric>

#include "common/compaction/compact.h"
#include "common/compare/compare.h"
#include "common/compare/evaluate.h"
#include "common/compare/file_cache.h"
#include "common/compare/metrics.h"
#include "common/report/report_row.h"
#include "tests/unit/compare_fixtures.h"

using namespace compare_test;

namespace {

using Dims = std::vector<uint64_t>;

uint64_t numel(const Dims& d) { return std::accumulate(d.begin(), d.end(), uint64_t{1}, std::multiplies<>()); }
uint64_t up(uint64_t a, uint64_t b) { return (a + b - 1) / b * b; }

// Row-major transpose: output axis k is input axis perm[k] (odometer walk).
std::vector<float> transpose(const std::vector<float>& in, const Dims& shape, const std::vector<size_t>& perm) {
  const size_t nd = shape.size();
  Dims stride(nd, 1), out_shape(nd), idx(nd, 0);
  for (size_t k = nd; k-- > 1;) stride[k - 1] = stride[k] * shape[k];
  for (size_t k = 0; k < nd; ++k) out_shape[k] = shape[perm[k]];
  std::vector<float> out(in.size());
  for (uint64_t o = 0; o < out.size(); ++o) {
    uint64_t src = 0;
    for (size_t k = 0; k < nd; ++k) src += idx[k] * stride[perm[k]];
    out[o] = in[src];
    for (size_t k = nd; k-- > 0;) {
      if (++idx[k] < out_shape[k]) break;
      idx[k] = 0;
    }
  }
  return out;
}

// Embeds a row-major `shape` array into `padded` (same rank); new cells get garbage: NaN or 1e30
// alternately, so a padding leak shows as a NaN reason or an absurd max.
std::vector<float> pad(const std::vector<float>& in, const Dims& shape, const Dims& padded) {
  std::vector<float> out(numel(padded));
  for (size_t i = 0; i < out.size(); ++i) out[i] = i % 2 ? NAN : 1e30f;
  const size_t nd = shape.size();
  Dims idx(nd, 0);
  for (uint64_t i = 0; i < in.size(); ++i) {
    uint64_t dst = 0;
    for (size_t k = 0; k < nd; ++k) dst = dst * padded[k] + idx[k];
    out[dst] = in[i];
    for (size_t k = nd; k-- > 0;) {
      if (++idx[k] < shape[k]) break;
      idx[k] = 0;
    }
  }
  return out;
}

constexpr int kFractalNz = 29, kNc1hwc0 = 3;

// msaccucmp's FRACTAL_NZ -> ND description run backwards: (B, n, c) -> pad -> (B, N1, N0, C1, C0)
// -> (B, C1, N1, N0, C0).
std::vector<float> pack_nz(const std::vector<float>& nd, const Dims& orig, uint64_t n0, uint64_t c0, Dims& dev) {
  const uint64_t c = orig.back(), n = orig.size() >= 2 ? orig[orig.size() - 2] : 1, b = numel(orig) / (n * c);
  auto p = pad(nd, {b, n, c}, {b, up(n, n0), up(c, c0)});
  const uint64_t n1 = up(n, n0) / n0, c1 = up(c, c0) / c0;
  dev.assign(orig.begin(), orig.end() - std::min<size_t>(orig.size(), 2));
  for (uint64_t d : {c1, n1, n0, c0}) dev.push_back(d);
  return transpose(p, {b, n1, n0, c1, c0}, {0, 3, 1, 2, 4});
}

// NCHW -> pad C -> (N, C1, C0, H, W) -> (N, C1, H, W, C0).
std::vector<float> pack_nc1hwc0(const std::vector<float>& nd, const Dims& o, uint64_t c0, Dims& dev) {
  auto p = pad(nd, o, {o[0], up(o[1], c0), o[2], o[3]});
  const uint64_t c1 = up(o[1], c0) / c0;
  dev = {o[0], c1, o[2], o[3], c0};
  return transpose(p, {o[0], c1, c0, o[2], o[3]}, {0, 1, 3, 4, 2});
}

struct Case {
  int format;
  Dims orig;
  uint64_t n0, c0;
};

// Odd sizes force padding on every padded axis; several are smaller than one block.
const std::vector<Case>& cases() {
  static const std::vector<Case> k = {
      {kFractalNz, {3, 5}, 16, 16},    {kFractalNz, {17, 33}, 16, 16},     {kFractalNz, {2, 19, 40}, 16, 16},
      {kFractalNz, {37}, 16, 16},      {kFractalNz, {2, 3, 5, 18}, 16, 8}, {kFractalNz, {9, 7}, 16, 8},
      {kNc1hwc0, {2, 5, 3, 7}, 0, 16}, {kNc1hwc0, {1, 17, 4, 3}, 0, 16},   {kNc1hwc0, {3, 3, 2, 2}, 0, 8},
      {kNc1hwc0, {1, 1, 1, 1}, 0, 16},
  };
  return k;
}

std::string bytes_of(const std::vector<float>& v) { return {reinterpret_cast<const char*>(v.data()), v.size() * 4}; }

// A GE big-dump file with one float32 output in `format` (docs/formats/ge-dump.md §2-§4), by msit_dumpgen_lib.
std::string ge_device_file(const std::string& op, int format, const Dims& dev, const Dims& orig,
                           const std::vector<float>& stored) {
  dumpgen::PbTensor out;
  out.data_type = 1;  // DT_FLOAT
  out.format = format;
  out.shape = dev;
  out.original_shape = orig;
  out.size = stored.size() * 4;
  dumpgen::PbHeader header;
  header.op_name = op;
  header.outputs = {out};
  return dumpgen::ge_big_dump(dumpgen::encode_dump_data(header), bytes_of(stored));
}

struct Tree {
  fs::path my, golden;
  // (token, op index) -> logical golden and logical my arrays.
  std::map<std::pair<int, size_t>, std::pair<std::vector<float>, std::vector<float>>> data;
};

std::string op_name(size_t k) { return "MatMul_" + std::to_string(k); }

// Token 0: my == golden; token 1: my is a perturbed copy (a few large errors, many small).
Tree make_tree(const fs::path& root) {
  Tree t;
  t.my = root / "msit_ge_dump";
  t.golden = root / "msit_fx_dump";
  std::vector<GraphOpSpec> ops;
  for (size_t k = 0; k < cases().size(); ++k) {
    ops.push_back({op_name(k), "MatMul", {}, "mm_" + std::to_string(k) + "-aten.mm.default.OUTPUT.0"});
  }
  write_file(t.my / "dynamo_original_graph_1_rank_0_pid_7_ts_20250101000000000000.txt", graph_text(ops));
  for (int tok = 0; tok < 2; ++tok) {
    fs::path ge_dir = t.my / "worldsize1_global_rank0" / "20250101000000" / "0" / "graph_1" / "1" / std::to_string(tok);
    fs::path fx_dir = t.golden / "worldsize1_global_rank0" / "gm_20250101_dump" / std::to_string(tok);
    for (size_t k = 0; k < cases().size(); ++k) {
      const Case& c = cases()[k];
      auto g = random_values(numel(c.orig), static_cast<uint32_t>(100 * tok + k));
      auto m = g;
      if (tok == 1) {
        auto noise = random_values(m.size(), static_cast<uint32_t>(7000 + k));
        for (size_t i = 0; i < m.size(); ++i) m[i] += (i % 5 == 0 ? 0.3f : 1e-3f) * noise[i];
      }
      Dims dev;
      auto stored = c.format == kFractalNz ? pack_nz(m, c.orig, c.n0, c.c0, dev) : pack_nc1hwc0(m, c.orig, c.c0, dev);
      std::string ts = std::to_string(1700000000000000LL + static_cast<long long>(100 * tok + k));
      write_file(ge_dir / ("MatMul." + op_name(k) + "." + std::to_string(k + 10) + ".1." + ts),
                 ge_device_file(op_name(k), c.format, dev, c.orig, stored));
      std::string fx =
          "mm_" + std::to_string(k) + "-aten.mm.default.OUTPUT.0.2025010100000000" + std::to_string(10 + k) + ".npy";
      write_file(fx_dir / fx, npy_bytes({g, c.orig}));
      t.data[{tok, k}] = {std::move(g), std::move(m)};
    }
  }
  return t;
}

// The op index of a row, from "…/MatMul.MatMul_{k}.{k+10}.1.{ts},outputs,0".
size_t op_of(const msit::ReportRow& r) {
  size_t at = r.my_data_path.find("MatMul.MatMul_");
  EXPECT_NE(at, std::string::npos) << r.my_data_path;
  return std::stoul(r.my_data_path.substr(at + 14));
}

// The library's accumulator fed the logical arrays in the same chunks as the streaming compare.
msit::MetricValues direct(const std::vector<float>& g, const std::vector<float>& m, size_t chunk) {
  msit::ExactAccumulator acc;
  for (size_t i = 0; i < g.size(); i += chunk) acc.add(g.data() + i, m.data() + i, std::min(chunk, g.size() - i));
  return acc.finish();
}

// Textbook definitions (docs/formats/report.md §4) in plain double over the whole array, for an
// independent check of the values (results are float32-rounded, hence the tolerance).
struct Naive {
  double cosine, max_abs, red, max, min, mean;
};
Naive naive(const std::vector<float>& g, const std::vector<float>& m) {
  double dot = 0, gg = 0, mm = 0, d2 = 0, max_abs = 0, sum = 0;
  for (size_t i = 0; i < g.size(); ++i) {
    dot += double(g[i]) * m[i];
    gg += double(g[i]) * g[i];
    mm += double(m[i]) * m[i];
    double d = double(m[i]) - g[i];
    d2 += d * d;
    if (std::fabs(g[i]) > msit::kFltEpsilon) max_abs = std::max(max_abs, std::fabs(d));
    sum += m[i];
  }
  return {dot / std::sqrt(gg * mm),
          max_abs,
          std::sqrt(d2 / gg),
          *std::max_element(m.begin(), m.end()),
          *std::min_element(m.begin(), m.end()),
          sum / double(m.size())};
}

void expect_near_rel(std::optional<double> got, double want, double rel, const std::string& what) {
  ASSERT_TRUE(got.has_value()) << what;
  EXPECT_LE(std::fabs(*got - want), rel * std::max(std::fabs(want), 1e-30)) << what << ": " << *got << " vs " << want;
}

void check_rows(const Tree& t, const msit::CompareResult& res, size_t chunk) {
  ASSERT_EQ(res.ranks.size(), 1u);
  const auto& rows = res.ranks[0].rows;
  ASSERT_EQ(rows.size(), 2 * cases().size());
  for (const auto& r : rows) {
    size_t k = op_of(r);
    ASSERT_LT(k, cases().size());
    const Case& c = cases()[k];
    std::string what =
        "token " + std::to_string(r.token_id) + " op " + std::to_string(k) + " " + msit::shape_cell(c.orig);
    const auto& [g, m] = t.data.at({static_cast<int>(r.token_id), k});
    EXPECT_EQ(r.compare_mode, msit::MetricSource::kExact) << what;
    EXPECT_EQ(msit::msit_reason_cell(r), "") << what;  // a NaN from the padding would show up here
    EXPECT_EQ(r.note, "") << what;
    EXPECT_EQ(r.my_shape, msit::shape_cell(c.orig)) << what;
    EXPECT_EQ(r.golden_shape, msit::shape_cell(c.orig)) << what;
    msit::MetricValues want = direct(g, m, chunk);
    EXPECT_EQ(r.cosine, want.cosine) << what;
    EXPECT_EQ(r.max_rel, want.max_rel) << what;
    EXPECT_EQ(r.mean_rel, want.mean_rel) << what;
    EXPECT_EQ(r.max_abs, want.max_abs) << what;
    EXPECT_EQ(r.mean_abs, want.mean_abs) << what;
    EXPECT_EQ(r.kl, want.kl) << what;
    EXPECT_EQ(r.red, want.red) << what;
    Naive n = naive(g, m);
    EXPECT_EQ(r.my_max, n.max) << what;
    EXPECT_EQ(r.my_min, n.min) << what;
    expect_near_rel(r.my_mean, n.mean, 1e-6, what + " mean");  // printed as float32, like msit
    expect_near_rel(r.cosine, n.cosine, 1e-9, what + " cosine");
    expect_near_rel(r.max_abs, n.max_abs, 1e-7, what + " max_abs");
    if (r.token_id == 0) {
      EXPECT_EQ(r.cosine, 1.0) << what;
      EXPECT_EQ(r.max_abs, 0.0) << what;
      EXPECT_EQ(r.red, 0.0) << what;
      EXPECT_EQ(r.my_max, r.golden_max) << what;
      EXPECT_EQ(r.my_min, r.golden_min) << what;
      EXPECT_EQ(r.my_mean, r.golden_mean) << what;
      EXPECT_EQ(r.verdict, msit::Verdict::kPass) << what;
    } else {
      expect_near_rel(r.red, n.red, 1e-6, what + " red");
      EXPECT_GT(*r.max_abs, 0.0) << what;
    }
  }
}

msit::CompareResult run(const Tree& t, size_t chunk) {
  msit::CompareOptions o;
  o.jobs = 2;
  o.eval.chunk_elements = chunk;
  auto r = msit::run_compare(t.my.string(), t.golden.string(), o);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().to_string());
  return r.ok() ? std::move(r).value() : msit::CompareResult{};
}

TEST(CompareLayout, DeviceFormatsMatchLogicalArraysDefaultChunks) {
  TempDir d;
  Tree t = make_tree(d.path);
  auto res = run(t, msit::EvalOptions{}.chunk_elements);
  EXPECT_EQ(res.flow, msit::Flow::kGeFx);
  check_rows(t, res, msit::EvalOptions{}.chunk_elements);
}

TEST(CompareLayout, DeviceFormatsMatchLogicalArraysOddChunks) {
  // 7 elements per step: chunk ends fall inside NZ fractals and NC1HWC0 channel groups.
  TempDir d;
  Tree t = make_tree(d.path);
  check_rows(t, run(t, 7), 7);
}

// Summaries of the GE device-format file and of the FX npy describe the same logical tensor:
// same count and statistics, no padding, identical sketches (so summary compare says "equal").
TEST(CompareLayout, SummariesOfDeviceFormatsEqualLogicalSummaries) {
  TempDir d;
  Tree t = make_tree(d.path);
  std::vector<fs::path> ge, fx;
  for (auto& e : fs::recursive_directory_iterator(t.my / "worldsize1_global_rank0")) {
    if (e.is_regular_file() && e.path().string().find("/0/MatMul.") != std::string::npos) ge.push_back(e.path());
  }
  for (auto& e : fs::recursive_directory_iterator(t.golden)) {
    if (e.is_regular_file() && e.path().parent_path().filename() == "0") fx.push_back(e.path());
  }
  ASSERT_EQ(ge.size(), cases().size());
  ASSERT_EQ(fx.size(), cases().size());
  auto by_op = [](const fs::path& p, const char* prefix) {
    std::string n = p.filename().string();
    return std::stoul(n.substr(n.find(prefix) + std::strlen(prefix)));
  };
  std::map<size_t, fs::path> fx_of;
  for (const auto& p : fx) fx_of[by_op(p, "mm_")] = p;
  for (const auto& p : ge) {
    size_t k = by_op(p, "MatMul_");
    auto gs = msit::summarize_raw_file(p.string(), msit::StatsOptions{});
    auto fs_ = msit::summarize_raw_file(fx_of.at(k).string(), msit::StatsOptions{});
    ASSERT_TRUE(gs.ok()) << gs.error().to_string();
    ASSERT_TRUE(fs_.ok()) << fs_.error().to_string();
    ASSERT_EQ(gs->tensors.size(), 1u);
    const auto& a = gs->tensors[0].stats;
    const auto& b = fs_->tensors[0].stats;
    std::string what = p.filename().string();
    EXPECT_FALSE(gs->tensors[0].padding_included) << what;
    EXPECT_EQ(a.count, b.count) << what;
    EXPECT_EQ(a.nan_count, 0u) << what;
    EXPECT_EQ(a.max, b.max) << what;
    EXPECT_EQ(a.min, b.min) << what;
    ASSERT_TRUE(a.mean && b.mean);
    EXPECT_NEAR(*a.mean, *b.mean, 1e-12 * std::max(1.0, std::fabs(*b.mean))) << what;
    EXPECT_NEAR(a.l2norm, b.l2norm, 1e-12 * b.l2norm) << what;
    ASSERT_EQ(a.sketch.has_value(), b.sketch.has_value()) << what;
    if (a.sketch) {
      ASSERT_EQ(a.sketch->values.size(), b.sketch->values.size());
      for (size_t i = 0; i < a.sketch->values.size(); ++i) {
        EXPECT_NEAR(a.sketch->values[i], b.sketch->values[i], 1e-12 * std::max(1.0, b.l2norm))
            << what << " bucket " << i;
      }
    }
    ASSERT_EQ(a.values.has_value(), b.values.has_value()) << what;
    if (a.values) { EXPECT_EQ(*a.values, *b.values) << what; }
  }
}

// ---- Layouts without a verified formula (docs/layout.md §2): a caveat in cmp_fail_reason --------

constexpr int kFractalZ3d = 33;  // no verified index map: read in stored order, padding kept

struct OnePair {
  msit::SourceFile golden_file, my_file;
  msit::PairSpec spec;
};

msit::SourceFile source(const fs::path& p) {
  msit::SourceFile f;
  f.raw_path = p.string();
  f.kind = msit::SourceKind::kRaw;
  return f;
}

// golden, my: files already written. A GE golden is read as its output 0, an npy as the whole file.
msit::ReportRow evaluate(const fs::path& golden, const fs::path& my) {
  OnePair p;
  p.golden_file = source(golden);
  p.my_file = source(my);
  bool fx = golden.extension() == ".npy";
  p.spec.golden = {fx ? msit::SlotKind::kFxFile : msit::SlotKind::kTensor, &p.golden_file, msit::Role::kOutput, 0};
  p.spec.my = {msit::SlotKind::kTensor, &p.my_file, msit::Role::kOutput, 0};
  msit::FileCache cache;
  return msit::evaluate_pair(p.spec, cache, msit::EvalOptions{});
}

// An unconvertible GE layout against the FX logical tensor: element counts differ (msit's own
// reason), the caveat says why, padded statistics errors are withheld and nothing passes.
TEST(CompareLayout, UnverifiedLayoutVsFxGetsACaveatAndNoVerdict) {
  TempDir d;
  Dims orig = {5, 3, 1, 2, 2};            // logical N, C, D, H, W
  Dims dev = {1 * 1 * 2 * 2, 1, 16, 16};  // (C1*D*H*W, N1, N0, C0): padded to 1024 elements
  auto logical = random_values(numel(orig), 3);
  std::vector<float> stored(numel(dev), 0.0f);
  for (size_t i = 0; i < logical.size(); ++i) stored[i * 7 % stored.size()] = logical[i] + 50.0f;
  fs::path ge = d.path / "Conv3D.conv_0.1.1.1700000000000000";
  fs::path fx = d.path / "conv_0-aten.convolution.default.OUTPUT.0.20250101000000000000.npy";
  write_file(ge, ge_device_file("conv_0", kFractalZ3d, dev, orig, stored));
  write_file(fx, npy_bytes({logical, orig}));
  msit::ReportRow r = evaluate(fx, ge);
  EXPECT_EQ(msit::msit_reason_cell(r), "data shape doesn't match.");  // what msit says, and filters on
  EXPECT_NE(r.caveat.find("my_data: FRACTAL_Z_3D [4, 1, 16, 16] has no verified conversion to original_shape "
                          "[5, 3, 1, 2, 2]; its statistics include the padding."),
            std::string::npos)
      << r.caveat;
  EXPECT_EQ(msit::fail_reason_cell(r), msit::msit_reason_cell(r) + " " + r.caveat);
  for (size_t k = 0; k < 4; ++k) {
    EXPECT_FALSE(r.stat_abs[k].has_value()) << k;  // max +50 vs logical: would read as a huge error
    EXPECT_FALSE(r.stat_rel[k].has_value()) << k;
  }
  EXPECT_EQ(r.verdict, msit::Verdict::kSkip);
  EXPECT_FALSE(r.cosine.has_value());
  EXPECT_TRUE(msit::apply_msit_filters({r}).empty());  // msit drops shape-only rows; so do its filters
}

// The same unverified layout on both sides: compared element by element in stored order; the
// metrics are kept (padding sits at the same places) and the caveat says what they cover.
TEST(CompareLayout, UnverifiedLayoutOnBothSidesKeepsStoredOrderMetrics) {
  TempDir d;
  Dims orig = {5, 3, 1, 2, 2};
  Dims dev = {4, 1, 16, 16};
  auto a = random_values(numel(dev), 4);
  auto b = a;
  for (size_t i = 0; i < b.size(); i += 3) b[i] *= 1.5f;
  fs::path g = d.path / "g" / "Conv3D.conv_0.1.1.1700000000000000";
  fs::path m = d.path / "m" / "Conv3D.conv_0.1.1.1700000000000000";
  write_file(g, ge_device_file("conv_0", kFractalZ3d, dev, orig, a));
  write_file(m, ge_device_file("conv_0", kFractalZ3d, dev, orig, b));
  msit::ReportRow r = evaluate(g, m);
  EXPECT_EQ(r.compare_mode, msit::MetricSource::kExact);
  EXPECT_EQ(msit::msit_reason_cell(r), "");
  EXPECT_NE(r.caveat.find("layout: FRACTAL_Z_3D [4, 1, 16, 16] has no verified conversion to original_shape "
                          "[5, 3, 1, 2, 2]; compared element by element in stored order, padding included."),
            std::string::npos)
      << r.caveat;
  EXPECT_EQ(msit::fail_reason_cell(r), r.caveat);
  msit::MetricValues want = direct(a, b, msit::EvalOptions{}.chunk_elements);
  EXPECT_EQ(r.cosine, want.cosine);
  EXPECT_EQ(r.max_abs, want.max_abs);
  EXPECT_EQ(r.red, want.red);
  EXPECT_EQ(r.verdict, msit::Verdict::kFail);  // 1.5x on a third of the elements
}

}  // namespace
