// The first-divergence rule on JumpRows (common/compare/jump_row.h), the rows a flow keeps
// without their report cells (the msProbe flow), gives what it gives on the ReportRows they
// stand for, field for field: levels, floors, margins, marks and notes.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "common/compare/divergence.h"
#include "common/report/op_label.h"

namespace msit {
namespace {

ReportRow row(const std::string& op, const std::string& type, bool output, double level, uint64_t order,
              MetricSource mode = MetricSource::kExact, DType my = DType::kFloat32) {
  ReportRow r;
  r.my_data_path = op + (output ? ".output" : ".input");
  r.my_label = {op, type, output ? TensorRole::kOutput : TensorRole::kInput, 0, order};
  r.golden_dtype = CellDType{DType::kFloat32};
  r.my_dtype = CellDType{my};
  r.compare_mode = mode;
  r.red = level;
  if (mode != MetricSource::kStats) r.cosine = 1.0 - level * level / 2;
  return r;
}

JumpRow jump_row(const ReportRow& r) {
  JumpRow j;
  j.cosine = r.cosine;
  j.red = r.red;
  j.max_abs = r.max_abs;
  j.mean_abs = r.mean_abs;
  j.differing = r.differing;
  j.elements = r.elements;
  j.my_dtype = r.my_dtype;
  j.golden_dtype = r.golden_dtype;
  j.compare_mode = r.compare_mode;
  j.token_id = r.token_id;
  j.op = r.my_label.op;
  j.op_type = r.my_label.op_type;
  j.output = r.my_label.role != TensorRole::kInput;
  j.order = r.my_label.order;
  return j;
}

void expect_same(const OptDouble& a, const OptDouble& b, const char* what, size_t i) {
  ASSERT_EQ(a.has_value(), b.has_value()) << what << " row " << i;
  if (a) { EXPECT_EQ(*a, *b) << what << " row " << i; }
}

// Two tokens of a chain of ops (each with an input and an output), noise ~1e-4, an error
// injected at op 30 of token 0 and a thin jump in token 1; statistics rows and a bf16 op among them.
std::vector<ReportRow> rows() {
  std::vector<ReportRow> out;
  for (int64_t token = 0; token < 2; ++token) {
    double level = 1e-4;
    for (uint64_t k = 0; k < 60; ++k) {
      const std::string op = "Functional.op" + std::to_string(k % 7) + "." + std::to_string(k) + ".forward";
      const std::string type = "Functional.op" + std::to_string(k % 7);
      const MetricSource mode = k % 11 == 5 ? MetricSource::kStats : MetricSource::kExact;
      const DType dt = k % 13 == 4 ? DType::kBFloat16 : DType::kFloat32;
      out.push_back(row(op, type, false, level, k, mode, dt));
      level = level * (1.0 + 0.01 * static_cast<double>(k % 5)) + 1e-5;
      if (token == 0 && k == 30) level *= 50;
      if (token == 1 && k == 40) level *= 2.5;
      out.push_back(row(op, type, true, level, k, mode, dt));
      out.back().token_id = out[out.size() - 2].token_id = token;
    }
  }
  return out;
}

TEST(JumpRow, RuleGivesWhatItGivesOnReportRows) {
  std::vector<ReportRow> full = rows();
  std::vector<JumpRow> kept;
  for (const ReportRow& r : full) kept.push_back(jump_row(r));
  mark_error_jumps(full);
  mark_error_jumps(kept);
  size_t named = 0;
  for (size_t i = 0; i < full.size(); ++i) {
    expect_same(full[i].error_level, kept[i].error_level, "error_level", i);
    expect_same(full[i].error_jump, kept[i].error_jump, "error_jump", i);
    expect_same(full[i].error_floor, kept[i].error_floor, "error_floor", i);
    expect_same(full[i].noise_floor, kept[i].noise_floor, "noise_floor", i);
    expect_same(full[i].margin, kept[i].margin, "margin", i);
    expect_same(full[i].detection_floor, kept[i].detection_floor, "detection_floor", i);
    EXPECT_EQ(full[i].jump, kept[i].jump) << i;
    EXPECT_EQ(full[i].note, kept[i].note) << i;
    named += full[i].jump != ReportRow::Jump::kNone;
  }
  EXPECT_GT(named, 0u);  // the rows exercise the marks, not only the levels
}

}  // namespace
}  // namespace msit
