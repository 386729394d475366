// The first-divergence rule on runs that reproduce each other exactly (docs/compare.md "Exactly
// reproduced runs"): GE vs GE of the same chain, no kernel noise on either side, one op injected.
// Outputs before the injection have error exactly 0; those of op types that compute elsewhere in
// the token are noise samples of 0, so the injected op is named even when its error reaches every
// later output. A bit-identical pair names nothing, and zero-error outputs of types that only
// ever copy (exact ops on exact inputs) do not lower a noisy run's floor.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/compare/divergence.h"
#include "common/report/op_label.h"

namespace {

using msit::ReportRow;

struct Op {
  std::string type;
  std::vector<double> inputs;  // error level of each input row
  double output;               // error level of the output row
};

ReportRow row(const Op& op, size_t i, bool output, double level) {
  ReportRow r;
  std::string name = op.type + "_" + std::to_string(i);
  r.my_data_path = "/d/" + op.type + "." + name + ".1.2.17" + std::to_string(i);
  r.my_label = {name, op.type, output ? msit::TensorRole::kOutput : msit::TensorRole::kInput, 0, i};
  r.golden_dtype = r.my_dtype = msit::CellDType{msit::DType::kFloat16};
  r.compare_mode = msit::MetricSource::kExact;
  r.verdict = msit::Verdict::kPass;
  r.red = level;
  r.cosine = 1.0 - level * level / 2;
  return r;
}

std::vector<ReportRow> rows_of(const std::vector<Op>& ops) {
  std::vector<ReportRow> rows;
  for (size_t i = 0; i < ops.size(); ++i) {
    for (double in : ops[i].inputs) rows.push_back(row(ops[i], i, false, in));
    rows.push_back(row(ops[i], i, true, ops[i].output));
  }
  return rows;
}

std::vector<std::string> named(const std::vector<ReportRow>& rows) {
  std::vector<std::string> v;
  for (const auto& r : rows)
    if (r.jump != ReportRow::Jump::kNone) v.push_back(msit::row_label(r).op);
  return v;
}

// msit-dumpgen model --ops 12 --seed 3, GE against GE, --diverge-at 5 --diverge-scale 0.05 on one
// side: the levels its report has (RED = error level; the injected TransData_5 carries 0.0512
// and passes it on, amplified by MatMul_6, damped by the Add and the softmax).
std::vector<Op> toy_chain(double injected) {
  double e = injected;
  return {{"MatMul", {0, 0}, 0},
          {"Add", {0, 0}, 0},
          {"Cast", {0}, 0},
          {"SoftmaxV2", {0}, 0},
          {"Mul", {0, 0}, 0},
          {"TransData", {0}, e},
          {"MatMul", {e, 0}, 1.12 * e},
          {"Add", {1.12 * e, 0}, 0.26 * e},
          {"Cast", {0.26 * e}, 0.26 * e},
          {"SoftmaxV2", {0.26 * e}, 0.0289 * e},
          {"Mul", {0.0289 * e, 0}, 0.0295 * e},
          {"TransData", {0.0295 * e}, 0.0295 * e}};
}

TEST(ExactReproduction, InjectedOpIsNamedThoughItsErrorPropagates) {
  for (double red : {0.02, 0.05124593526124954, 0.2, 0.5}) {
    auto rows = rows_of(toy_chain(red));
    msit::mark_error_jumps(rows);
    EXPECT_EQ(named(rows), std::vector<std::string>{"TransData_5"}) << red;
    for (const auto& r : rows) {
      if (r.jump == ReportRow::Jump::kFirst) {
        // Learned from the zeros too (without them it was 0.4 x the injected error at RED 0.05).
        EXPECT_LT(*r.noise_floor, 0.05 * red) << red;
      }
    }
  }
}

TEST(ExactReproduction, BitIdenticalPairNamesNothing) {
  auto rows = rows_of(toy_chain(0.0));
  msit::mark_error_jumps(rows);
  EXPECT_TRUE(named(rows).empty());
  for (const auto& r : rows) EXPECT_EQ(*r.error_level, 0.0);
}

// Kernel noise on the computing ops, exact copies (Gather, Reshape) of exact inputs before them:
// those zeros say nothing about the kernels' noise and must not pull the token's floor down.
TEST(ExactReproduction, ZerosOfCopyTypesAreNoNoiseSamples) {
  std::vector<Op> noisy = {{"RmsNorm", {0}, 1.5e-3},     {"MatMul", {1.5e-3}, 1.8e-3},  {"SoftmaxV2", {1.8e-3}, 2.1e-3},
                           {"MatMul", {2.1e-3}, 2.3e-3}, {"Add", {2.3e-3, 0}, 2.35e-3}, {"RmsNorm", {2.35e-3}, 2.7e-3},
                           {"MatMul", {2.7e-3}, 2.9e-3}, {"Mul", {2.9e-3, 0}, 3.0e-3}};
  std::vector<Op> with_copies;
  for (const char* t : {"Gather", "Reshape", "Gather", "Reshape", "Gather", "Reshape"})
    with_copies.push_back({t, {0}, 0});
  with_copies.insert(with_copies.end(), noisy.begin(), noisy.end());
  auto a = rows_of(noisy), b = rows_of(with_copies);
  msit::mark_error_jumps(a);
  msit::mark_error_jumps(b);
  EXPECT_TRUE(named(a).empty());
  EXPECT_TRUE(named(b).empty());
  // The first RmsNorm (exact inputs) is judged against the same floor either way.
  EXPECT_EQ(*a[1].noise_floor, *b[6 * 2 + 1].noise_floor);
}

}  // namespace
