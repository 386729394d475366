// The error-jump rule (docs/compare.md "First divergence") on hand-made reports: rounding noise
// names nothing, the perturbed op is named first with or without propagation, an op that only
// passes an error on (or gets it through an input) is not named, statistics rows are ignored.
#include <gtest/gtest.h>

#include <cmath>

#include "common/compare/divergence.h"
#include "common/compare/terminal_summary.h"
#include "common/report/op_label.h"

namespace {

using msit::ReportRow;

ReportRow row(int op, bool output, std::optional<double> red, int64_t token = 0, int k = 0) {
  ReportRow r;
  r.token_id = token;
  r.my_data_path = "/d/ge/Mul.Mul_" + std::to_string(op) + ".1.2.17000000000" + std::to_string(op) +
                   (output ? ",outputs," : ",inputs,") + std::to_string(k);
  // The label the GE pair builder sets (common/compare/matching.cpp); the rule reads only it.
  r.my_label = {"Mul_" + std::to_string(op), "Mul", output ? msit::TensorRole::kOutput : msit::TensorRole::kInput,
                static_cast<uint32_t>(k)};
  r.golden_dtype = msit::CellDType{msit::DType::kFloat32};
  r.my_dtype = msit::CellDType{msit::DType::kFloat16};
  r.compare_mode = msit::MetricSource::kExact;
  r.verdict = msit::Verdict::kPass;
  r.red = red;
  if (red) r.cosine = 1.0 - *red * *red / 2;
  return r;
}

// A chain of n ops (input row, output row); op `at` gets `error` on its output; with
// `propagate` later ops carry it on their inputs and outputs.
std::vector<ReportRow> chain(int n, int at, double error, bool propagate, int64_t token = 0) {
  std::vector<ReportRow> rows;
  double carried = 3e-4;
  for (int i = 0; i < n; ++i) {
    double noise = 2.5e-4 + 1e-5 * (i % 7);
    rows.push_back(row(i, false, carried, token));
    double out = i == at ? error : (propagate && at >= 0 && i > at ? error * 0.9 : noise);
    rows.push_back(row(i, true, out, token));
    carried = out;
    if (!propagate && i == at) carried = noise;
  }
  return rows;
}

std::vector<const ReportRow*> marked(const std::vector<ReportRow>& rows) {
  std::vector<const ReportRow*> v;
  for (const auto& r : rows) {
    if (r.jump != ReportRow::Jump::kNone) v.push_back(&r);
  }
  return v;
}

TEST(Divergence, RoundingNoiseNamesNothing) {
  auto rows = chain(30, -1, 0, false);
  msit::mark_error_jumps(rows);
  EXPECT_TRUE(marked(rows).empty());
  for (const auto& r : rows) {
    if (msit::row_tensor(r).output) { EXPECT_LT(*r.error_jump, msit::kJumpFactor) << r.my_data_path; }
  }
  EXPECT_NE(msit::terminal_summary(rows, 0).find("first divergence: none"), std::string::npos);
}

TEST(Divergence, PerturbedOpIsNamedFirstAtEveryLevel) {
  for (double level : {0.01, 0.02, 0.05, 0.1, 0.2, 0.5}) {
    for (bool propagate : {true, false}) {
      auto rows = chain(12, 7, level, propagate);
      msit::mark_error_jumps(rows);
      auto m = marked(rows);
      ASSERT_EQ(m.size(), 1u) << level << " " << propagate;  // passing it on is not a jump
      EXPECT_EQ(m[0]->jump, ReportRow::Jump::kFirst);
      EXPECT_EQ(msit::row_label(*m[0]).op, "Mul_7");
      EXPECT_GT(*m[0]->error_jump, msit::kJumpFactor);
      std::string text = msit::terminal_summary(rows, 0);
      EXPECT_NE(text.find("token 0: Mul_7 (Mul) output 0"), std::string::npos) << text;
    }
  }
}

TEST(Divergence, EachTokenHasItsOwnFloor) {
  auto rows = chain(6, 4, 0.1, true, 0);
  auto more = chain(6, 2, 0.1, true, 1);
  rows.insert(rows.end(), more.begin(), more.end());
  msit::mark_error_jumps(rows);
  auto m = marked(rows);
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(msit::row_label(*m[0]).op, "Mul_4");
  EXPECT_EQ(msit::row_label(*m[1]).op, "Mul_2");
  EXPECT_EQ(m[1]->token_id, 1);
}

// An error that enters through an input (a wrong weight) is the op's floor: not the op's fault.
TEST(Divergence, ErrorFromAnInputIsNotAJump) {
  auto rows = chain(5, -1, 0, false);
  ReportRow weight = row(3, false, 0.2, 0, 1);
  rows.insert(rows.begin() + 7, weight);  // Mul_3's input 1, before its output row
  rows[8].red = 0.2;                      // Mul_3's output carries it
  rows[8].cosine = 0.98;
  msit::mark_error_jumps(rows);
  EXPECT_TRUE(marked(rows).empty());
}

// Statistics-only rows carry no error level; sketch rows (cosine and RED estimates) do.
TEST(Divergence, StatisticsRowsAreIgnoredCosineAloneCounts) {
  auto rows = chain(6, -1, 0, false);
  for (auto& r : rows) {
    r.red.reset();
    r.cosine.reset();
    r.compare_mode = msit::MetricSource::kStats;
    r.verdict = msit::Verdict::kInconclusive;
  }
  rows[7].compare_mode = msit::MetricSource::kSketch;
  rows[7].cosine = 0.995;  // sqrt(2 * 0.005) = 0.1
  rows[7].verdict = msit::Verdict::kPass;
  msit::mark_error_jumps(rows);
  auto m = marked(rows);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_NEAR(*m[0]->error_level, 0.1, 1e-9);
  EXPECT_FALSE(rows[0].error_level.has_value());
  std::string text = msit::terminal_summary(rows, std::nullopt);
  EXPECT_NE(text.find("inconclusive: 11 rows"), std::string::npos) << text;
}

TEST(Divergence, RowTensorsAndFloors) {
  // The rule classifies rows by their labels, never by their path cells.
  ReportRow fx;
  fx.my_data_path = "/d/fx/add_7-aten.add.Tensor.OUTPUT.1.20250601080000000700.npy";
  fx.my_label = {"add_7", "aten.add.Tensor", msit::TensorRole::kInput, 1};
  EXPECT_FALSE(msit::row_tensor(fx).output);
  EXPECT_EQ(msit::row_tensor(fx).op, "add_7");
  EXPECT_EQ(msit::op_type_of(fx), "aten.add.Tensor");
  ReportRow golden_only;  // my side unlabelled: the golden label names the op
  golden_only.golden_label = {"root.model.norm", "LlamaRMSNorm", msit::TensorRole::kOutput, 0};
  EXPECT_TRUE(msit::row_tensor(golden_only).output);
  EXPECT_EQ(msit::op_type_of(golden_only), "LlamaRMSNorm");
  ReportRow odd;
  odd.my_data_path = "/d/x.INPUT.0.1.npy";  // no label: one tensor, judged as an output
  EXPECT_TRUE(msit::row_tensor(odd).output);
  EXPECT_EQ(msit::row_tensor(odd).op, "/d/x.INPUT.0.1.npy");
  EXPECT_EQ(msit::tensor_text(fx.my_label), "input 1");
  EXPECT_EQ(msit::op_text(fx), "add_7 (aten.add.Tensor) input 1");
  ReportRow bf;
  bf.my_dtype = msit::CellDType{msit::DType::kBFloat16, msit::CellDType::Naming::kTorchOwn};
  bf.golden_dtype = msit::CellDType{msit::DType::kFloat32};
  EXPECT_EQ(msit::rounding_floor(bf), std::ldexp(1.0, -8));
  bf.my_dtype = msit::CellDType{msit::DType::kFloat32};
  EXPECT_EQ(msit::rounding_floor(bf), msit::kMinErrorFloor);
}

}  // namespace
