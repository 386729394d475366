// opcheck: the output dtype's rounding, the element rules (NaN, Inf, bounds), a blocked matmul
// under a tiny memory budget, a FRACTAL_NZ weight, and ops that are not recomputed (and why).
#include <gtest/gtest.h>

#include <cmath>

#include "common/formats/graph_text.h"
#include "common/opcheck/bounds.h"
#include "common/opcheck/checker.h"
#include "common/opcheck/opcheck.h"
#include "tests/tools/dumpgen/gen_layout.h"
#include "tests/unit/compare_fixtures.h"

namespace {

using compare_test::TempDir;
using msit::DType;
using namespace msit::opcheck;

TEST(OpcheckBounds, UlpAndRoundingOfEachDtype) {
  EXPECT_EQ(ulp_of(1.0, DType::kFloat16), std::ldexp(1.0, -10));
  EXPECT_EQ(ulp_of(65504, DType::kFloat16), 32);
  EXPECT_EQ(ulp_of(0, DType::kFloat16), std::ldexp(1.0, -24));  // subnormal spacing
  EXPECT_EQ(ulp_of(1.0, DType::kBFloat16), std::ldexp(1.0, -7));
  EXPECT_EQ(ulp_of(-3.0, DType::kFloat32), std::ldexp(1.0, -22));
  EXPECT_EQ(ulp_of(7, DType::kInt32), 1);
  EXPECT_EQ(round_to(1 + std::ldexp(1.0, -11), DType::kFloat16), 1.0);  // tie: to even
  EXPECT_EQ(round_to(1 + 3 * std::ldexp(1.0, -11), DType::kFloat16), 1 + std::ldexp(1.0, -9));
  EXPECT_EQ(round_to(65519.99, DType::kFloat16), 65504);
  EXPECT_TRUE(std::isinf(round_to(65520, DType::kFloat16)));
  EXPECT_EQ(round_to(std::ldexp(1.0, -25) * 3, DType::kFloat16), std::ldexp(1.0, -23));  // subnormal tie
  EXPECT_EQ(round_to(1 + std::ldexp(1.0, -8), DType::kBFloat16), 1.0);
  EXPECT_EQ(round_to(0.1, DType::kFloat32), static_cast<double>(0.1f));
  EXPECT_EQ(round_to(-2.7, DType::kInt32), -2);
  EXPECT_EQ(round_to(1e20, DType::kInt32), 2147483647.0);
  EXPECT_EQ(round_to(-5, DType::kUInt8), 0);
  EXPECT_EQ(round_to(std::nan(""), DType::kInt64), 0);
  EXPECT_EQ(round_to(0.5, DType::kBool), 1);
  EXPECT_EQ(overflow_threshold(DType::kFloat16), 65520);
  EXPECT_TRUE(std::isinf(gamma_k(uint64_t{1} << 25, compute_unit(DType::kFloat32))));
  EXPECT_NEAR(gamma_k(1000, compute_unit(DType::kFloat16)), 1000 * std::ldexp(1.0, -24), 1e-8);
}

TEST(OpcheckChecker, NanInfAndBoundRules) {
  OutputChecker c(0, DType::kFloat16, {8});
  c.add(0, std::nan(""), 0, std::nan(""));  // NaN for NaN: fine
  c.add(1, HUGE_VAL, 0, HUGE_VAL);          // the same infinity: fine
  c.add(2, 65515, 8, HUGE_VAL);             // reaches the overflow threshold within its bound
  c.add(3, 1.0, 0.001, 1.0009765625);       // one fp16 ulp off, bound 0.001: fine
  EXPECT_EQ(c.result().beyond_bound, 0u);
  c.add(4, 1.0, 0.0005, 1.0009765625);  // beyond its bound
  c.add(5, 2.0, 1, std::nan(""));       // NaN where a number is expected
  c.add(6, -HUGE_VAL, 0, HUGE_VAL);     // infinities of different sign
  c.add(7, 100.0, 1, HUGE_VAL);         // an overflow far from the threshold
  const OutputCheck r = c.result();
  EXPECT_EQ(r.count, 8u);
  EXPECT_EQ(r.beyond_bound, 4u);
  EXPECT_EQ(r.special_mismatch, 3u);
  EXPECT_TRUE(std::isinf(r.max_bound_ratio));
  EXPECT_EQ(r.worst_index, 5u);  // the first element at the largest ratio
  EXPECT_DOUBLE_EQ(r.max_ulps, 1.0);
}

// A MatMul file: A [m, k] (float32), B stored [n, k] with transpose_x2, C = A B^T in float32.
struct MatMulFiles {
  TempDir dir;
  std::string file;
  msit::GraphDef graph;
  std::vector<float> c;
};

MatMulFiles matmul_files(uint64_t m, uint64_t k, uint64_t n, bool nz_weight, int corrupt = -1) {
  MatMulFiles f;
  auto a = compare_test::random_values(m * k, 1), b = compare_test::random_values(n * k, 2);
  f.c.assign(m * n, 0);
  for (uint64_t i = 0; i < m; ++i) {
    for (uint64_t j = 0; j < n; ++j) {
      float s = 0;
      for (uint64_t l = 0; l < k; ++l) s += a[i * k + l] * b[j * k + l];
      f.c[i * n + j] = s;
    }
  }
  if (corrupt >= 0) f.c[static_cast<size_t>(corrupt)] *= 1.01f;
  auto desc = [](const std::vector<uint64_t>& shape, size_t elems) {
    dumpgen::PbTensor d;
    d.data_type = 1;  // DT_FLOAT
    d.format = 2;
    d.shape = d.original_shape = shape;
    d.size = elems * 4;
    return d;
  };
  dumpgen::PbHeader h;
  h.op_name = "mm";
  h.inputs = {desc({m, k}, a.size()), desc({n, k}, b.size())};
  std::vector<float> stored_b = b;
  if (nz_weight) {  // the weight in FRACTAL_NZ (C0 = 8 for float32), padding NaN
    const std::vector<uint64_t> orig{n, k};
    h.inputs[1].format = dumpgen::kFmtFractalNZ;
    h.inputs[1].shape = dumpgen::device_shape(dumpgen::kFmtFractalNZ, orig, 8, 16);
    stored_b.assign(dumpgen::numel(h.inputs[1].shape), std::nanf(""));
    const auto pos = dumpgen::device_positions(dumpgen::kFmtFractalNZ, orig, 8, 16);
    for (size_t i = 0; i < pos.size(); ++i) stored_b[pos[i]] = b[i];
    h.inputs[1].size = stored_b.size() * 4;
  }
  h.outputs = {desc({m, n}, f.c.size())};
  std::string payloads = compare_test::raw_f32(a) + compare_test::raw_f32(stored_b) + compare_test::raw_f32(f.c);
  f.file = (f.dir.path / "MatMulV2.mm.3.1.1700000000000001").string();
  compare_test::write_file(f.file, dumpgen::ge_big_dump(dumpgen::encode_dump_data(h), payloads));
  dumpgen::GraphOp op{"mm", "MatMulV2", {"a:0", "b:0"},
                      {},   {},         {{"transpose_x1", "b: false"}, {"transpose_x2", "b: true"}}};
  auto g = msit::parse_graph_text(dumpgen::graph_text("g", {op}), "g.txt");
  EXPECT_TRUE(g.ok());
  f.graph = std::move(*g);
  return f;
}

TEST(Opcheck, MatMulAgreesWithItsInputsWholeAndBlocked) {
  auto f = matmul_files(37, 29, 23, false);
  OpcheckOptions whole;
  const OpCheckResult r = check_ge_file(f.file, &f.graph, whole);
  ASSERT_EQ(r.verdict, OpVerdict::kAgrees) << r.detail;
  ASSERT_EQ(r.outputs.size(), 1u);
  EXPECT_EQ(r.outputs[0].count, 37u * 23);
  EXPECT_LT(r.outputs[0].max_bound_ratio, 1);
  OpcheckOptions tiny;
  tiny.memory_bytes = 8 * (4 * 29 * 5);  // panels of 5 columns, a few rows per block
  const OpCheckResult b = check_ge_file(f.file, &f.graph, tiny);
  ASSERT_EQ(b.verdict, OpVerdict::kAgrees) << b.detail;
  EXPECT_EQ(b.outputs[0].count, r.outputs[0].count);
  EXPECT_NEAR(b.outputs[0].cosine, r.outputs[0].cosine, 1e-12);
  EXPECT_DOUBLE_EQ(b.outputs[0].max_abs, r.outputs[0].max_abs);
}

TEST(Opcheck, OneWrongElementDisagreesAndIsNamed) {
  auto f = matmul_files(16, 40, 12, false, 77);
  OpcheckOptions tiny;
  tiny.memory_bytes = 8 * (4 * 40 * 3);
  const OpCheckResult r = check_ge_file(f.file, &f.graph, tiny);
  ASSERT_EQ(r.verdict, OpVerdict::kDisagrees) << r.detail;
  EXPECT_EQ(r.outputs[0].beyond_bound, 1u);
  EXPECT_EQ(r.outputs[0].worst_index, 77u);
  EXPECT_FLOAT_EQ(static_cast<float>(r.outputs[0].worst_dumped), f.c[77]);
}

TEST(Opcheck, FractalNzWeightIsReadInLogicalOrder) {
  auto f = matmul_files(9, 21, 19, true);
  const OpCheckResult r = check_ge_file(f.file, &f.graph, OpcheckOptions{});
  ASSERT_EQ(r.verdict, OpVerdict::kAgrees) << r.detail;
  EXPECT_EQ(r.outputs[0].special_mismatch, 0u);  // no padding NaN reached the product
}

TEST(Opcheck, NotRecomputedSaysWhy) {
  auto f = matmul_files(4, 4, 4, false);
  const OpCheckResult no_graph = check_ge_file(f.file, nullptr, OpcheckOptions{});
  EXPECT_EQ(no_graph.verdict, OpVerdict::kNotRecomputed);
  EXPECT_EQ(no_graph.reason, SkipReason::kNoGraph);
  EXPECT_NE(no_graph.detail.find("transpose_x1"), std::string::npos);

  dumpgen::GraphOp bare{"mm", "MatMulV2", {}, {}, {}, {{"transpose_x1", "b: false"}}};
  auto g = msit::parse_graph_text(dumpgen::graph_text("g", {bare}), "g.txt");
  ASSERT_TRUE(g.ok());
  const OpCheckResult no_attr = check_ge_file(f.file, &*g, OpcheckOptions{});
  EXPECT_EQ(no_attr.reason, SkipReason::kMissingAttribute);
  EXPECT_NE(no_attr.detail.find("transpose_x2"), std::string::npos);

  const std::string conv = (f.dir.path / "Conv2D.conv.3.1.1700000000000002").string();
  std::filesystem::copy_file(f.file, conv);
  const OpCheckResult unknown = check_ge_file(conv, &f.graph, OpcheckOptions{});
  EXPECT_EQ(unknown.reason, SkipReason::kUnknownOp);
  EXPECT_NE(unknown.detail.find("Conv2D"), std::string::npos);

  OpcheckOptions tiny;
  tiny.memory_bytes = 64;  // not even one column of the weight
  const OpCheckResult over = check_ge_file(f.file, &f.graph, tiny);
  EXPECT_EQ(over.reason, SkipReason::kOverBudget);
}

TEST(OpcheckTable, EveryKindHasARowAndGeNamesMap) {
  for (const auto& row : op_rows()) EXPECT_EQ(op_row(row.kind).name, row.name);
  EXPECT_EQ(op_kind_of_ge_type("BatchMatMulV2"), OpKind::kBatchMatMul);
  EXPECT_EQ(op_kind_of_ge_type("ReduceMeanD"), OpKind::kReduceMean);
  EXPECT_FALSE(op_kind_of_ge_type("Conv2D").has_value());
}

}  // namespace
