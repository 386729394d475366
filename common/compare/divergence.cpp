// The first-divergence rule over one rank report (docs/compare.md "First divergence"): per
// token, each output's input error and excess, the noise floor of its op type, the jumps.
#include "common/compare/divergence.h"

#include "common/report/op_label.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace msit {

std::optional<double> error_level(const ReportRow& r) {
  std::optional<double> level;
  if (r.red && std::isfinite(*r.red)) level = *r.red;
  if (r.cosine && std::isfinite(*r.cosine)) {
    double from_cos = std::sqrt(2.0 * std::max(0.0, 1.0 - *r.cosine));
    level = std::max(level.value_or(0.0), from_cos);
  }
  return level;
}

namespace {

// Of the dtype the report cell names (a bf16 GE tensor read as float32 has float32's).
double unit_roundoff(const CellDType& cell) {
  switch (named_dtype(cell)) {
    case DType::kFloat16: return 0x1p-11;
    case DType::kBFloat16: return 0x1p-8;
    case DType::kFloat8E4M3FN: return 0x1p-4;
    case DType::kFloat8E5M2: return 0x1p-3;
    default: return 0.0;  // float32/64 and integers: only kMinErrorFloor
  }
}

}  // namespace

double rounding_floor(const ReportRow& r) {
  return std::max({kMinErrorFloor, unit_roundoff(r.golden_dtype), unit_roundoff(r.my_dtype)});
}

RowTensor row_tensor(const ReportRow& r) {
  const TensorLabel& l = row_label(r);
  if (!l.known()) return {r.my_data_path, true};
  return {l.op, l.role != TensorRole::kInput};
}

std::string_view op_type_of(const ReportRow& r) {
  const TensorLabel& l = row_label(r);
  return l.op_type.empty() ? row_tensor(r).op : std::string_view(l.op_type);
}

std::vector<size_t> walk_order(const std::vector<ReportRow>& rows) {
  std::vector<size_t> v(rows.size());
  for (size_t i = 0; i < v.size(); ++i) v[i] = i;
  std::stable_sort(v.begin(), v.end(),
                   [&](size_t a, size_t b) { return row_label(rows[a]).order < row_label(rows[b]).order; });
  return v;
}

std::optional<double> median_without(const std::vector<double>& v, size_t skip) {
  size_t m = v.size() - (skip < v.size() ? 1 : 0);
  if (m == 0) return std::nullopt;
  auto at = [&](size_t k) { return v[skip < v.size() && k >= skip ? k + 1 : k]; };
  return m % 2 ? at(m / 2) : 0.5 * (at(m / 2 - 1) + at(m / 2));
}

namespace {

// One output row as the rule sees it.
struct Out {
  size_t row;
  double level, inputs;  // inputs: max(rounding floor, the op's input rows or earlier rows)
  double floor;          // the rounding floor of the row's dtypes
  bool copy;             // output error bit-identical to its input's: a copy (reshape, view)
  double excess() const { return level * level - inputs * inputs; }
};

// What the outputs of one op type in a token say, sorted for leave-one-out medians: their
// gains (output^2 / input^2, of those with input error above the rounding floor) and the
// noise they add (output^2 - input^2). `outs` keeps them for the noise net of a gain.
struct TypeStats {
  std::vector<double> gains, noises;
  std::vector<const Out*> outs;
};
constexpr double kMaxGainSq = 4.0;

double gain_sq_of(const Out& o) { return o.level * o.level / (o.inputs * o.inputs); }
bool has_gain(const Out& o) { return o.inputs > o.floor; }

// The median of `sorted` without one occurrence of `own` (nullopt when nothing is left).
std::optional<double> median_of_others(const std::vector<double>& sorted, double own) {
  auto pos = static_cast<size_t>(std::lower_bound(sorted.begin(), sorted.end(), own) - sorted.begin());
  return median_without(sorted, pos);
}

// The square of the most noise a learned floor may keep for output `o`: what a healthy
// kernel adds to it (kMaxKernelNoiseUnits unit roundoffs of bf16, or of the row's dtype when
// coarser), or the error its own inputs carry when that is larger. Above the kernel bound the
// floor is error carried in from upstream; an output whose inputs carry an error of that size
// itself may vary by as much again (ops pass a large error on with a gain that varies, and
// pairs of unrelated tensors reach levels ~1), so for it the floor is kept up to its inputs'.
double max_noise_sq(const Out& o) {
  double n = std::max(kMaxKernelNoiseUnits * std::max(kCoarsestComputeRoundoff, o.floor), o.inputs);
  return n * n;
}

// What the type's other outputs add beyond the gain `gain_sq` explains: median of
// output^2 - G input^2, the judged output left out. Not above the type's noise (G >= 1); it
// exceeds max_noise_sq() only when their gain is larger than kMaxGainSq or varies
// between them, and the cap never lowers a floor under it. Sorted once per type and gain (a
// type's leave-one-out gain medians take a few values), so the pass stays O(n log n).
class NetNoise {
 public:
  double of_others(std::string_view type, const TypeStats& t, const Out& own, double gain_sq) {
    std::vector<double>& v = sorted_[{type, gain_sq}];
    if (v.empty()) {
      for (const Out* q : t.outs) v.push_back(net(*q, gain_sq));
      std::sort(v.begin(), v.end());
    }
    return median_of_others(v, net(own, gain_sq)).value_or(0.0);
  }

 private:
  static double net(const Out& o, double gain_sq) { return o.level * o.level - gain_sq * o.inputs * o.inputs; }
  std::map<std::pair<std::string_view, double>, std::vector<double>> sorted_;
};

// The op types of a token that compute: at least one of their outputs is not a copy of its
// inputs' error. An output of such a type with error exactly 0 on exact inputs reproduced its
// op bit for bit: a noise sample of 0 for the token's spread, not a copy to leave out
// (docs/compare.md "Exactly reproduced runs"; without it, a GE vs GE pair whose only error is
// the injected op learned its floor from the outputs downstream of the injection alone).
std::set<std::string_view> computing_types(const std::vector<ReportRow>& rows, const std::vector<Out>& outs) {
  std::set<std::string_view> types;
  for (const Out& o : outs)
    if (!o.copy) types.insert(op_type_of(rows[o.row]));
  return types;
}

}  // namespace

void mark_error_jumps(std::vector<ReportRow>& rows) {
  // The op's inputs, wherever they sit in the report (msit order puts them first, but the
  // rule should not depend on it).
  std::map<std::pair<int64_t, std::string_view>, double> input_level;
  std::map<int64_t, bool> token_has_inputs;  // a token with no input row at all: a chain of outputs
  std::vector<RowTensor> tensors;
  tensors.reserve(rows.size());
  for (auto& r : rows) {
    r.error_level = error_level(r);
    r.error_jump.reset();
    r.error_floor.reset();
    r.noise_floor.reset();
    r.jump = ReportRow::Jump::kNone;
    const RowTensor& t = tensors.emplace_back(row_tensor(r));
    if (!t.output && r.error_level) {
      double& v = input_level[{r.token_id, t.op}];
      v = std::max(v, *r.error_level);
      token_has_inputs[r.token_id] = true;
    }
  }
  // Pass 1: per token, each output's level and input error, in execution order.
  std::map<int64_t, std::vector<Out>> tokens;
  std::map<int64_t, double> earlier;   // per token: largest error level so far
  std::map<int64_t, double> last_out;  // per token: the level of the output before
  for (size_t i : walk_order(rows)) {
    const ReportRow& r = rows[i];
    if (!r.error_level) continue;
    double level = *r.error_level;
    double& so_far = earlier[r.token_id];
    if (tensors[i].output) {
      // Without input rows of its own (TransData self rows, fused ops, FX nodes without inputs):
      // every earlier row of the token is the input. In a token without any input rows (ATB/torch
      // sheets pair outputs; the labels' tree order is execution order): the output before it,
      // which an error left out of later ops (a local one) then cannot hide behind.
      auto it = input_level.find({r.token_id, tensors[i].op});
      double& prev = last_out[r.token_id];
      double in = it != input_level.end() ? it->second : token_has_inputs[r.token_id] ? so_far : prev;
      double f = rounding_floor(r);
      tokens[r.token_id].push_back({i, level, std::max(f, in), f, it != input_level.end() && level == it->second});
      prev = level;
    }
    so_far = std::max(so_far, level);
  }
  // Pass 2: per token, the learned floors, the jump of each output, the first jump. Medians,
  // leaving the judged output out: an injected error is one sample, and outputs downstream of
  // it carry it on their inputs as well.
  for (auto& [token, outs] : tokens) {
    std::map<std::string_view, TypeStats> by_type;
    std::vector<double> spread;  // |output^2 - input^2| of the non-copy outputs
    std::set<std::string_view> computing = computing_types(rows, outs);
    for (const Out& o : outs) {
      TypeStats& t = by_type[op_type_of(rows[o.row])];
      if (has_gain(o)) t.gains.push_back(gain_sq_of(o));
      t.noises.push_back(o.excess());
      t.outs.push_back(&o);
      if (!o.copy) spread.push_back(std::abs(o.excess()));
      else if (o.level == 0 && computing.count(op_type_of(rows[o.row]))) spread.push_back(0.0);
    }
    for (auto& [type, t] : by_type) {
      std::sort(t.gains.begin(), t.gains.end());
      std::sort(t.noises.begin(), t.noises.end());
    }
    std::sort(spread.begin(), spread.end());
    bool named = false;
    NetNoise net_noise;
    for (const Out& o : outs) {
      ReportRow& r = rows[o.row];
      std::string_view type = op_type_of(rows[o.row]);
      const TypeStats& t = by_type[type];
      // The type's gain (within [1, kMaxGainSq]) and own noise, from its other outputs; the
      // noise not net of the gain: when the type's outputs all carry similar input error, the
      // median ratio absorbs their own noise too, and a bf16 kernel's first call (near-exact
      // inputs) would stand out against a floor that lost it.
      std::optional<double> g =
          has_gain(o) ? median_of_others(t.gains, gain_sq_of(o)) : median_without(t.gains, t.gains.size());
      double gain_sq = g ? std::clamp(*g, 1.0, kMaxGainSq) : 1.0;
      double type_noise = median_of_others(t.noises, o.excess()).value_or(0.0);
      // The token's spread, the judged output left out: the floor of types with one output
      // and of outputs whose inputs are exact.
      double token_spread =
          (o.copy ? median_without(spread, spread.size()) : median_of_others(spread, std::abs(o.excess())))
              .value_or(0.0);
      // A prior: no healthy kernel adds more than kMaxKernelNoiseUnits roundoffs. Above that
      // (and above this output's inputs' error), the type's noise and the token's spread are
      // an error carried in (an injection upstream that the type's later outputs amplify),
      // which would hide the op where it entered. The noise the type adds beyond its gain
      // stays (a gain above kMaxGainSq or varying between calls).
      double cap = max_noise_sq(o);
      if (type_noise > cap) type_noise = std::max(net_noise.of_others(type, t, o, gain_sq), cap);
      token_spread = std::min(token_spread, cap);
      double noise_sq = std::max({0.0, type_noise, token_spread});
      double floor = std::sqrt(gain_sq * o.inputs * o.inputs + noise_sq);
      r.noise_floor = std::sqrt(noise_sq);
      r.error_floor = floor;
      r.error_jump = floor > 0 ? o.level / floor : 0.0;
      double k = r.compare_mode == MetricSource::kSketch ? kJumpFactorSketch : kJumpFactor;
      double threshold = std::sqrt(k * k * gain_sq * o.inputs * o.inputs + kNoiseFactor * kNoiseFactor * noise_sq);
      if (o.level > threshold && o.level > kDtypeFactor * o.floor) {
        r.jump = named ? ReportRow::Jump::kJump : ReportRow::Jump::kFirst;
        named = true;
      }
    }
  }
}

}  // namespace msit
