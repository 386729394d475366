// The first-divergence rule's prior on kernel noise (docs/compare.md "First divergence", step 4):
// no healthy kernel adds more than kMaxKernelNoiseUnits bf16 unit roundoffs, so a learned noise
// floor above that is an error carried in. An error entering at the first softmax and amplified
// by the later ones is named where it entered; a reduced-precision kernel's noise (fp32 output,
// bf16 arithmetic) on a noise-only run names nothing; an exact op (a transpose) whose output
// carries an injected error is named; an op type that amplifies more than the gain clamp keeps
// the noise beyond its gain as its floor.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "common/compare/divergence.h"
#include "common/report/op_label.h"

namespace {

using msit::ReportRow;

// The cap in levels (not squared): 4 x 2^-8.
constexpr double kCap = msit::kMaxKernelNoiseUnits * msit::kCoarsestComputeRoundoff;

struct Op {
  std::string type;
  double noise;       // relative noise the kernel adds, in units of the run's noise level
  double gain = 1.0;  // how the op scales the relative error of its input; noise 0: a copy
};

// One decoder block as bench/divergence_grid.py's llama chain orders it (docs/dumpgen.md),
// after a GatherV2 (an embedding lookup: exact inputs, exact op). The softmax amplifies the
// relative error of its logits (1.6x), the norms damp it a little.
std::vector<Op> model(int blocks) {
  std::vector<Op> ops = {{"GatherV2", 0.0}};
  for (int b = 0; b < blocks; ++b) {
    for (const Op& op : std::vector<Op>{{"RmsNorm", 1.5, 0.95},
                                        {"MatMul", 1.0},
                                        {"Reshape", 0.0},
                                        {"Transpose", 0.0},
                                        {"BatchMatMul", 1.0},
                                        {"SoftmaxV2", 0.7, 1.6},
                                        {"BatchMatMul", 1.0},
                                        {"Transpose", 0.0},
                                        {"Reshape", 0.0},
                                        {"MatMul", 1.0},
                                        {"Add", 0.3, 0.97},
                                        {"RmsNorm", 1.5, 0.95},
                                        {"MatMul", 1.0},
                                        {"Mul", 0.5},
                                        {"MatMul", 1.0}})
      ops.push_back(op);
  }
  return ops;
}

struct Lcg {
  uint64_t s;
  double uniform() {  // [-1, 1)
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<double>(s >> 11) / 4503599627370496.0 - 1.0;
  }
};

ReportRow row(const Op& op, size_t i, bool output, double level, bool sketch) {
  ReportRow r;
  r.my_data_path = "/d/ge/" + op.type + "." + op.type + "_" + std::to_string(i) + ".1.2.1700000" + std::to_string(i) +
                   (output ? ",outputs,0" : ",inputs,0");
  r.my_label = {op.type + "_" + std::to_string(i), op.type,
                output ? msit::TensorRole::kOutput : msit::TensorRole::kInput, 0};
  r.golden_dtype = r.my_dtype = msit::CellDType{msit::DType::kFloat32};
  r.compare_mode = sketch ? msit::MetricSource::kSketch : msit::MetricSource::kExact;
  r.verdict = msit::Verdict::kPass;
  r.red = level;
  r.cosine = 1.0 - level * level / 2;
  return r;
}

struct Scenario {
  int blocks = 3;
  double noise = 1e-3;
  std::string reduced;       // this type's kernel computes in bf16: noise reduced_noise, fp32 rows
  double reduced_noise = 0;  // ~2^-8 / sqrt(3) for bf16 rounding of one operand pair and result
  int at = -1;               // op index perturbed
  double red = 0;
  bool sketch = false;  // levels estimated with ~6% error each (summarised pairs)
  uint64_t seed = 1;
};

// Input and output row of every op, errors combined in quadrature; copies (noise 0) pass their
// input's level on bit for bit, as a reshape or transpose of a raw pair does.
std::vector<ReportRow> run(const Scenario& s) {
  std::vector<Op> ops = model(s.blocks);
  Lcg rng{s.seed * 104729};
  auto est = [&](double v) { return s.sketch ? v * (1.0 + 0.06 * rng.uniform() * 1.7) : v; };
  std::vector<ReportRow> rows;
  double carried = 0;
  for (size_t i = 0; i < ops.size(); ++i) {
    const Op& op = ops[i];
    double own = (op.type == s.reduced ? s.reduced_noise : op.noise * s.noise) * (1.0 + 0.2 * rng.uniform());
    double passed = op.noise == 0 ? carried : carried * op.gain * (1.0 + 0.04 * rng.uniform());
    double out = std::sqrt(passed * passed + (op.noise == 0 ? 0.0 : own * own));
    if (static_cast<int>(i) == s.at) out = std::sqrt(out * out + s.red * s.red);
    double in_est = est(carried);
    rows.push_back(row(op, i, false, in_est, s.sketch));
    rows.push_back(row(op, i, true, op.noise == 0 && static_cast<int>(i) != s.at ? in_est : est(out), s.sketch));
    carried = out;
  }
  return rows;
}

const ReportRow* first(const std::vector<ReportRow>& rows) {
  for (const auto& r : rows)
    if (r.jump == ReportRow::Jump::kFirst) return &r;
  return nullptr;
}

// The first op named, as a divergence or as a suspect (a thin margin).
const ReportRow* first_name(const std::vector<ReportRow>& rows) {
  for (const auto& r : rows)
    if (r.jump == ReportRow::Jump::kFirst || r.jump == ReportRow::Jump::kSuspect) return &r;
  return nullptr;
}

std::string name_of(const ReportRow* r) { return r ? std::string(msit::row_label(*r).op) : "nothing"; }

// The tuning grid's miss on main (docs/compare.md): RED 0.05 at the first SoftmaxV2 (op 6),
// propagated. The later softmaxes see it on their inputs and add (1.6^2 - 1) x 0.05^2 to it,
// so the type's own noise (median L^2 - P^2 of its other outputs) was ~0.06, above the
// injected error itself. Capped at kCap, it names the softmax.
TEST(DivergencePrior, EarlyPropagatedSoftmaxInjectionIsNamed) {
  for (double red : {0.05, 0.2}) {
    for (bool sketch : {false, true}) {
      for (uint64_t seed = 1; seed <= 5; ++seed) {
        Scenario s;
        s.at = 6;
        s.red = red;
        s.sketch = sketch;
        s.seed = seed;
        auto rows = run(s);
        msit::mark_error_jumps(rows);
        // Named: a divergence, or at a thin margin a suspect (seed 3 sketched at RED 0.05: margin 1.195).
        ASSERT_EQ(name_of(first_name(rows)), "SoftmaxV2_6") << red << " sketch " << sketch << " seed " << seed;
        // Why it was missed without the cap: the other softmaxes' outputs add more than any kernel.
        const ReportRow& later = rows[2 * 21 + 1];  // SoftmaxV2_21's output
        ASSERT_EQ(msit::row_label(later).op, "SoftmaxV2_21");
        double in = *rows[2 * 21].error_level;
        EXPECT_GT(std::sqrt(*later.error_level * *later.error_level - in * in), 2 * kCap);
        // With the cap the floor is what the other softmaxes add beyond their gain, which
        // varies by a few % between calls; the first softmax's error is above it.
        EXPECT_LT(msit::kNoiseFactor * *first_name(rows)->noise_floor, *first_name(rows)->error_level);
        if (!sketch && red == 0.05) { EXPECT_LE(*first_name(rows)->noise_floor, kCap + 1e-12) << seed; }
      }
    }
  }
}

// Noise only, the MatMuls computing in bf16 with fp32 rows (~2^-8 / sqrt(3) on every call,
// 20x the other kernels), raw and sketched, the run's noise from 1e-4 to 3e-3: nothing named.
// The first MatMul's inputs are near exact: its floor is the type's noise (below the cap).
TEST(DivergencePrior, ReducedPrecisionNoiseOnlyNamesNothing) {
  for (double noise : {1e-4, 1e-3, 3e-3}) {
    for (bool sketch : {false, true}) {
      for (uint64_t seed = 1; seed <= 10; ++seed) {
        Scenario s;
        s.noise = noise;
        s.reduced = "MatMul";
        s.reduced_noise = std::ldexp(1.0, -8) / std::sqrt(3.0);
        s.sketch = sketch;
        s.seed = seed;
        auto rows = run(s);
        msit::mark_error_jumps(rows);
        EXPECT_EQ(first(rows), nullptr) << noise << " sketch " << sketch << " seed " << seed << ": "
                                        << name_of(first(rows));
      }
    }
  }
}

// An error in a transpose (an exact op: its other calls pass their input's error on bit for
// bit), early and propagated, and late; and one in the embedding gather, the first op.
TEST(DivergencePrior, ExactOpInjectionIsNamed) {
  for (int at : {4, 8, 34}) {
    for (double red : {0.05, 0.2}) {
      for (uint64_t seed = 1; seed <= 5; ++seed) {
        Scenario s;
        s.at = at;
        s.red = red;
        s.seed = seed;
        auto rows = run(s);
        msit::mark_error_jumps(rows);
        EXPECT_EQ(name_of(first(rows)), "Transpose_" + std::to_string(at)) << red << " seed " << seed;
      }
    }
  }
  Scenario s;
  s.at = 0;
  s.red = 0.2;
  auto rows = run(s);
  msit::mark_error_jumps(rows);
  EXPECT_EQ(name_of(first(rows)), "GatherV2_0");
}

// A type that amplifies relative error by 3x (gain^2 9, above the clamp of 4) on inputs that
// carry 0.02: each call adds 0.057 over its input, more than the cap, and it is no divergence.
// The noise the type's other outputs add beyond the clamped gain stays its floor.
TEST(DivergencePrior, NoiseBeyondTheGainClampStaysTheFloor) {
  std::vector<ReportRow> rows;
  for (size_t i = 0; i < 8; ++i) {
    Op op = i % 2 ? Op{"SoftmaxV2", 1.0} : Op{"MatMul", 1.0};
    double in = 0.02 * (1.0 + 0.05 * static_cast<double>(i % 3));
    double out = i % 2 ? 3.0 * in * (1.0 + 0.03 * static_cast<double>(i % 4)) : in * 1.01;
    rows.push_back(row(op, i, false, in, false));
    rows.push_back(row(op, i, true, out, false));
  }
  msit::mark_error_jumps(rows);
  EXPECT_EQ(first(rows), nullptr) << name_of(first(rows));
  EXPECT_GT(*rows[3].noise_floor, kCap);  // SoftmaxV2_1: the floor beyond the gain, not the cap
}

}  // namespace
