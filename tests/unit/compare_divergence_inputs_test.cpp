// What the first-divergence rule models of an op's inputs and outputs (docs/compare.md "First
// divergence", issue 40): the errors of several inputs add, an error diluted by one op (a mask
// added) is seen again through that op's own inputs, a bf16 tensor rounds at 2^-8 whatever msit
// names it, a reduction's output is judged by its inputs' absolute error, discrete rows are not
// judged and block the ops that consume their flips, a name with a thin margin is a suspect, and
// every judged output carries its margin and detection floor.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "common/compare/divergence.h"
#include "common/compare/outcome.h"
#include "common/compare/terminal_summary.h"
#include "common/report/op_label.h"

namespace {

using msit::DType;
using msit::ReportRow;

// A GE vs FX row of op `op` (type `type`): its input k or its output, with error level `level`
// (RED; a cosine that implies less), in execution order `order`. The pair's metrics are the
// signature the rule finds a producer by: an input row gets its producer's by copy().
ReportRow row(const std::string& op, const std::string& type, bool output, double level, uint32_t order, int k = 0,
              DType my = DType::kFloat32) {
  ReportRow r;
  r.my_data_path = "/d/ge/" + type + "." + op + ".1.2.1700000000" + std::to_string(order) +
                   (output ? ",outputs," : ",inputs,") + std::to_string(k);
  r.my_label = {op, type, output ? msit::TensorRole::kOutput : msit::TensorRole::kInput, static_cast<uint32_t>(k),
                order};
  r.golden_dtype = msit::CellDType{DType::kFloat32};
  r.my_dtype = msit::CellDType{my};
  r.compare_mode = msit::MetricSource::kExact;
  r.verdict = msit::Verdict::kPass;
  r.red = level;
  r.cosine = 1.0 - level * level / 2;
  r.max_abs = level * 3;  // distinct metrics per tensor: the signature
  r.mean_abs = level / 2;
  return r;
}

// The input row of `op` that reads the tensor `producer` wrote: the same pair of data, so the
// same metrics.
ReportRow input_from(const ReportRow& producer, const std::string& op, const std::string& type, uint32_t order, int k) {
  ReportRow r = producer;
  r.my_label = {op, type, msit::TensorRole::kInput, static_cast<uint32_t>(k), order};
  r.my_data_path = "/d/ge/" + type + "." + op + ".in";
  return r;
}

const ReportRow* named(const std::vector<ReportRow>& rows, ReportRow::Jump j = ReportRow::Jump::kFirst) {
  for (const auto& r : rows)
    if (r.jump == j) return &r;
  return nullptr;
}

// A chain of single-input ops with noise ~3e-4 each, ending in `tail` (appended by the test).
std::vector<ReportRow> chain(int n) {
  std::vector<ReportRow> rows;
  double carried = 3e-4;
  for (int i = 0; i < n; ++i) {
    std::string op = "Op_" + std::to_string(i);
    rows.push_back(row(op, i % 2 ? "Add" : "MatMulV2", false, carried, 2 * i));
    double out = std::sqrt(carried * carried + 9e-8);
    rows.push_back(row(op, i % 2 ? "Add" : "MatMulV2", true, out, 2 * i + 1));
    carried = out;
  }
  return rows;
}

TEST(DivergenceInputs, ErrorsOfTwoInputsAdd) {
  // A product of two factors that each carry 0.01 has 0.0141 without any error of its own: the
  // largest input (0.01) would make that 1.41x, a jump; the two combined explain it.
  auto rows = chain(6);
  for (int i = 0; i < 4; ++i) {
    std::string op = "Mul_" + std::to_string(i);
    uint32_t at = 100 + 3 * static_cast<uint32_t>(i);
    rows.push_back(row(op, "Mul", false, 0.01, at, 0));
    rows.push_back(row(op, "Mul", false, 0.01 * (1 + 0.01 * i), at + 1, 1));
    rows.push_back(row(op, "Mul", true, 0.0142 * (1 + 0.01 * i), at + 2));
  }
  msit::mark_error_jumps(rows);
  EXPECT_EQ(named(rows), nullptr);
  EXPECT_EQ(named(rows, ReportRow::Jump::kSuspect), nullptr);
  // One of them with an error of its own on top is still named.
  rows.back().red = 0.06;
  rows.back().cosine = 1.0 - 0.06 * 0.06 / 2;
  msit::mark_error_jumps(rows);
  ASSERT_NE(named(rows), nullptr);
  EXPECT_EQ(msit::row_label(*named(rows)).op, "Mul_3");
}

TEST(DivergenceInputs, AnErrorDilutedByAMaskIsSeenThroughItsProducer) {
  // scores (0.01) + a large mask: the sum's relative error drops to 0.001; the softmax after it
  // removes the mask and shows the scores' 0.01 again. Its input error is what reached the mask
  // add, not the add's diluted level.
  auto rows = chain(6);
  ReportRow scores = row("Muls_20", "Muls", true, 0.01, 40);
  rows.push_back(row("Muls_20", "Muls", false, 0.0095, 39));
  rows.push_back(scores);
  rows.push_back(input_from(scores, "Add_21", "Add", 41, 0));
  ReportRow sum = row("Add_21", "Add", true, 0.001, 42);
  rows.push_back(sum);
  rows.push_back(input_from(sum, "SoftmaxV2_22", "SoftmaxV2", 43, 0));
  rows.push_back(row("SoftmaxV2_22", "SoftmaxV2", true, 0.011, 44));
  msit::mark_error_jumps(rows);
  EXPECT_EQ(named(rows), nullptr) << (named(rows) ? msit::op_text(*named(rows)) : "");
  // Without the producer's metrics on the softmax's input row (another tensor), it is a jump.
  rows[rows.size() - 2].max_abs = 0.5;
  msit::mark_error_jumps(rows);
  ASSERT_NE(named(rows), nullptr);
  EXPECT_EQ(msit::row_label(*named(rows)).op, "SoftmaxV2_22");
}

// The mean over a row of x (a LayerNorm's first ReduceMeanD): 512 input elements, 8 outputs.
// Levels and mean absolute errors from an npgen clean run (fp16, noise 1e-4, seed 5002).
std::vector<ReportRow> layer_norm_mean(double out_level, double out_mean_abs) {
  auto rows = chain(6);
  for (int i = 0; i < 2; ++i) {  // the token's other ReduceMeanD: a mean of squares, no cancellation
    std::string op = "ReduceMeanD_" + std::to_string(70 + i);
    uint32_t at = 60 + 2 * static_cast<uint32_t>(i);
    ReportRow in = row(op, "ReduceMeanD", false, 1.0e-3, at);
    ReportRow out = row(op, "ReduceMeanD", true, 2.1e-4, at + 1);
    in.elements = 512;
    out.elements = 8;
    in.mean_abs = 1.6e-3;
    out.mean_abs = 3.0e-4;
    rows.push_back(in);
    rows.push_back(out);
  }
  ReportRow in = row("ReduceMeanD_79", "ReduceMeanD", false, 9.3e-4, 80);
  ReportRow out = row("ReduceMeanD_79", "ReduceMeanD", true, out_level, 81);
  in.elements = 512;
  out.elements = 8;
  in.mean_abs = 7.6e-4;
  out.mean_abs = out_mean_abs;
  rows.push_back(in);
  rows.push_back(out);
  return rows;
}

TEST(DivergenceInputs, AReductionsOutputIsJudgedByItsInputsAbsoluteError) {
  // The mean of a row centred near 0 has 3.4x its input's relative error (0.0032 vs 0.00093)
  // from cancellation alone: its absolute error (1.4e-4) is a fifth of its input's (7.6e-4),
  // as an average of the input's errors is. Named (margin 1.25) before reductions were modelled.
  auto rows = layer_norm_mean(3.2e-3, 1.4e-4);
  msit::mark_error_jumps(rows);
  EXPECT_EQ(named(rows), nullptr) << msit::op_text(*named(rows));
  EXPECT_EQ(named(rows, ReportRow::Jump::kSuspect), nullptr);
  // The same levels from sketched rows (no mean absolute error): judged as before, named.
  for (auto& r : rows) r.mean_abs.reset();
  msit::mark_error_jumps(rows);
  ASSERT_NE(named(rows), nullptr);
  EXPECT_EQ(msit::row_label(*named(rows)).op, "ReduceMeanD_79");
  // An error of the mean's own: its absolute error now exceeds what averaging its input allows.
  rows = layer_norm_mean(0.3, 4.4e-3);
  msit::mark_error_jumps(rows);
  ASSERT_NE(named(rows), nullptr);
  EXPECT_EQ(msit::row_label(*named(rows)).op, "ReduceMeanD_79");
}

TEST(DivergenceInputs, AReductionsConsumerGetsItsLevelsNotItsAveragedError) {
  // x - mean(x): the mean's absolute error is small next to x's values, so the Sub after it is
  // judged against the levels of its inputs (0.00093 and 0.0032), and an error of its own of
  // RED 0.02 is named; against the mean's averaged input error (0.017) it was not.
  auto rows = layer_norm_mean(3.2e-3, 1.4e-4);
  ReportRow x = rows[rows.size() - 2];
  x.my_label = {"Sub_80", "Sub", msit::TensorRole::kInput, 0, 82};
  x.my_data_path = "/d/ge/Sub.Sub_80.in0";
  rows.push_back(x);
  rows.push_back(input_from(rows[rows.size() - 2], "Sub_80", "Sub", 83, 1));
  ReportRow sub = row("Sub_80", "Sub", true, 0.02, 84);
  sub.elements = 512;
  sub.mean_abs = 1.6e-2;
  rows.push_back(sub);
  msit::mark_error_jumps(rows);
  ASSERT_NE(named(rows), nullptr);
  EXPECT_EQ(msit::row_label(*named(rows)).op, "Sub_80");
}

TEST(DivergenceInputs, Bf16TensorsRoundAtTheirOwnDtype) {
  // msit names a bf16 GE tensor float32; its rounding is still 2^-8, and an output at 4 unit
  // roundoffs of bf16 is within its rounding floor (kDtypeFactor = 5).
  ReportRow r = row("Op_1", "Mul", true, 0.004, 1, 0, DType::kBFloat16);
  EXPECT_EQ(msit::rounding_floor(r), std::ldexp(1.0, -8));
  auto rows = chain(6);
  rows.push_back(row("Cast_9", "Cast", false, 1e-4, 50));
  rows.push_back(row("Cast_9", "Cast", true, 0.015, 51, 0, DType::kBFloat16));
  msit::mark_error_jumps(rows);
  EXPECT_EQ(named(rows), nullptr);
  EXPECT_EQ(named(rows, ReportRow::Jump::kSuspect), nullptr);
  rows.back().my_dtype = msit::CellDType{DType::kFloat32};  // the same level in fp32 is a jump
  msit::mark_error_jumps(rows);
  ASSERT_NE(named(rows), nullptr);
  EXPECT_EQ(msit::row_label(*named(rows)).op, "Cast_9");
}

TEST(DivergenceInputs, DiscreteRowsAreNotJudgedAndBlockTheirConsumers) {
  auto rows = chain(6);
  // An argmax whose flipped index makes RED 0.09: not an error level, never named.
  ReportRow argmax = row("ArgMaxV2_30", "ArgMaxV2", true, 0.09, 60, 0, DType::kInt32);
  argmax.golden_dtype = msit::CellDType{DType::kInt64};
  argmax.differing = 1;
  rows.push_back(row("ArgMaxV2_30", "ArgMaxV2", false, 4e-4, 59));
  rows.push_back(argmax);
  // A select whose bool condition flips: its output follows the flips, not judged either.
  ReportRow cond = row("SelectV2_31", "SelectV2", false, 0.08, 61, 0, DType::kBool);
  cond.golden_dtype = msit::CellDType{DType::kBool};
  cond.differing = 3;
  rows.push_back(cond);
  rows.push_back(row("SelectV2_31", "SelectV2", false, 4e-4, 62, 1));
  rows.push_back(row("SelectV2_31", "SelectV2", true, 0.05, 63));
  msit::mark_error_jumps(rows);
  EXPECT_EQ(named(rows), nullptr);
  const ReportRow& a = rows[rows.size() - 4];
  EXPECT_FALSE(a.error_level.has_value());
  EXPECT_FALSE(a.margin.has_value());
  const ReportRow& s = rows.back();
  EXPECT_FALSE(s.margin.has_value());
  EXPECT_NE(s.note.find("a discrete input of this op differs"), std::string::npos) << s.note;
  std::string text = msit::terminal_summary(rows, 0);
  EXPECT_NE(text.find("discrete outputs that differ"), std::string::npos) << text;
  EXPECT_NE(text.find("ArgMaxV2_30 (ArgMaxV2) output 0: 1 element differs"), std::string::npos) << text;
  // A condition that does not flip leaves the select judged: its own error is named.
  rows[rows.size() - 3].differing = 0;
  msit::mark_error_jumps(rows);
  ASSERT_NE(named(rows), nullptr);
  EXPECT_EQ(msit::row_label(*named(rows)).op, "SelectV2_31");
}

TEST(DivergenceInputs, AThinMarginIsASuspectAndTheCompareInconclusive) {
  auto rows = chain(8);
  rows.push_back(row("Op_40", "Sub", false, 4e-4, 80));
  ReportRow& out = rows.emplace_back(row("Op_40", "Sub", true, 0.0, 81));
  msit::mark_error_jumps(rows);
  // Put the output just over the level it is named at: margin 1.1, under kConfirmMargin.
  double named_at = *rows.back().detection_floor / msit::kConfirmMargin;
  out.red = 1.1 * named_at;
  out.cosine = 1.0;
  msit::mark_error_jumps(rows);
  EXPECT_EQ(named(rows), nullptr);
  const ReportRow* s = named(rows, ReportRow::Jump::kSuspect);
  ASSERT_NE(s, nullptr);
  EXPECT_NEAR(*s->margin, 1.1, 1e-9);
  msit::RowTally t;
  t.add(rows);
  EXPECT_EQ(t.suspect, 1u);
  EXPECT_EQ(msit::compare_outcome(t).status, msit::CompareStatus::kInconclusive);
  std::string text = msit::terminal_summary(rows, 0);
  EXPECT_NE(text.find("suspects (over their threshold by less than a divergence needs"), std::string::npos) << text;
  EXPECT_NE(text.find("first divergence: none above"), std::string::npos) << text;
  // Over the confirming margin it is the first divergence, and the compare fails.
  out.red = 1.3 * named_at;
  msit::mark_error_jumps(rows);
  ASSERT_NE(named(rows), nullptr);
  msit::RowTally f;
  f.add(rows);
  EXPECT_EQ(msit::compare_outcome(f).status, msit::CompareStatus::kDivergence);
}

TEST(DivergenceInputs, EveryJudgedOutputHasItsMarginAndDetectionFloor) {
  auto rows = chain(10);
  msit::mark_error_jumps(rows);
  std::vector<const ReportRow*> token;
  double most = 0;
  for (const auto& r : rows) {
    token.push_back(&r);
    if (!msit::row_tensor(r).output) {
      EXPECT_FALSE(r.margin.has_value());
      continue;
    }
    ASSERT_TRUE(r.margin.has_value());
    ASSERT_TRUE(r.detection_floor.has_value());
    // The level an output is named at (margin 1) is at least the dtype's rounding floor.
    EXPECT_GE(*r.detection_floor, msit::kConfirmMargin * msit::kDtypeFactor * msit::rounding_floor(r) - 1e-15);
    EXPECT_NEAR(*r.margin, *r.error_level / (*r.detection_floor / msit::kConfirmMargin), 1e-12);
    most = std::max(most, *r.detection_floor);
  }
  ASSERT_TRUE(msit::token_detection_floor(token).has_value());
  EXPECT_EQ(*msit::token_detection_floor(token), most);
  std::string text = msit::terminal_summary(rows, 0);
  EXPECT_NE(text.find("first divergence: none above "), std::string::npos) << text;
}

}  // namespace
