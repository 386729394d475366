// The first-divergence rule, pass 2 over one token (docs/compare.md "First divergence"): what
// the type's other outputs and the token say is normal (gain, noise floor, the kernel-noise
// cap), each output's margin over its threshold and its detection floor, and the marks.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <utility>

#include "common/compare/divergence.h"
#include "common/compare/divergence_detail.h"

namespace msit::divergence_detail {
namespace {

// What the outputs of one op type in a token say, sorted for leave-one-out medians: their
// gains (output^2 / input^2, of those with input error above the rounding floor) and the
// noise they add (output^2 - input^2). `outs` keeps them for the noise net of a gain.
struct TypeStats {
  std::vector<double> gains, noises;
  std::vector<const Out*> outs;
};
constexpr double kMaxGainSq = 4.0;

double gain_sq_of(const Out& o) { return o.level * o.level / (o.own * o.own); }
bool has_gain(const Out& o) { return o.own > o.floor; }

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
  double n = std::max(kMaxKernelNoiseUnits * std::max(kCoarsestComputeRoundoff, o.floor), o.reached);
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
  static double net(const Out& o, double gain_sq) { return o.level * o.level - gain_sq * o.own * o.own; }
  std::map<std::pair<std::string_view, double>, std::vector<double>> sorted_;
};

// What the judged outputs of a token say, the judged output left out by each lookup.
struct TokenStats {
  std::map<std::string_view, TypeStats> by_type;
  std::vector<double> spread;  // |output^2 - input^2| of the non-copy outputs
};

// The op types of a token that compute: at least one of their outputs is not a copy of its
// inputs' error. An output of such a type with error exactly 0 on exact inputs reproduced its
// op bit for bit: a noise sample of 0 for the token's spread, not a copy to leave out
// (docs/compare.md "Exactly reproduced runs"; without it, a GE vs GE pair whose only error is
// the injected op learned its floor from the outputs downstream of the injection alone).
template <class Row>
TokenStats token_stats(const std::vector<Row>& rows, const std::vector<Out>& outs) {
  TokenStats s;
  std::set<std::string_view> computing;
  for (const Out& o : outs)
    if (!o.copy && !o.blocked) computing.insert(op_type_of(rows[o.row]));
  for (const Out& o : outs) {
    if (o.blocked) continue;
    TypeStats& t = s.by_type[op_type_of(rows[o.row])];
    if (has_gain(o)) t.gains.push_back(gain_sq_of(o));
    t.noises.push_back(o.excess());
    t.outs.push_back(&o);
    if (!o.copy) s.spread.push_back(std::abs(o.excess()));
    else if (o.level == 0 && computing.count(op_type_of(rows[o.row]))) s.spread.push_back(0.0);
  }
  for (auto& [type, t] : s.by_type) {
    std::sort(t.gains.begin(), t.gains.end());
    std::sort(t.noises.begin(), t.noises.end());
  }
  std::sort(s.spread.begin(), s.spread.end());
  return s;
}

// One output's floors: G (squared gain), N^2 (noise), from the others.
struct Floors {
  double gain_sq, noise_sq;
};

Floors floors_of(const Out& o, std::string_view type, TokenStats& s, NetNoise& net_noise) {
  const TypeStats& t = s.by_type[type];
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
      (o.copy ? median_without(s.spread, s.spread.size()) : median_of_others(s.spread, std::abs(o.excess())))
          .value_or(0.0);
  // A prior: no healthy kernel adds more than kMaxKernelNoiseUnits roundoffs. Above that
  // (and above this output's inputs' error), the type's noise and the token's spread are
  // an error carried in (an injection upstream that the type's later outputs amplify),
  // which would hide the op where it entered. The noise the type adds beyond its gain
  // stays (a gain above kMaxGainSq or varying between calls).
  double cap = max_noise_sq(o);
  if (type_noise > cap) type_noise = std::max(net_noise.of_others(type, t, o, gain_sq), cap);
  token_spread = std::min(token_spread, cap);
  return {gain_sq, std::max({0.0, type_noise, token_spread})};
}

// 1 + kSampleDeviations / sqrt(2n): how much the level of a tensor of n elements may be over
// its expectation by sampling alone (1 when n is not known).
double sampling_allowance(uint64_t n) {
  return n == 0 ? 1.0 : 1.0 + kSampleDeviations / std::sqrt(2.0 * static_cast<double>(n));
}

const char* const kBlockedNote =
    "first divergence: not judged, a discrete input of this op differs (its output follows the flips)";

// Why a statistics row over its threshold is a suspect: the output upstream whose statistics moved.
template <class Row>
std::string moved_note(const Row& upstream) {
  char level[32];
  std::snprintf(level, sizeof level, "%.3g", upstream.error_level.value_or(0.0));
  return "judged from statistics, and the statistics of " + std::string(row_tensor(upstream).op) +
         " upstream moved too (error level at least " + level + "): the error may have come from there";
}

template <class Row>
void add_note(Row& r, const std::string& note) {
  r.note = r.note.empty() ? note : r.note + "; " + note;
}

}  // namespace

template <class Row>
void judge_token(std::vector<Row>& rows, const std::vector<Out>& outs) {
  TokenStats s = token_stats(rows, outs);
  NetNoise net_noise;
  StatsUpstream<Row> stats;
  bool named = false;
  for (const Out& o : outs) {
    Row& r = rows[o.row];
    if (o.blocked) {
      add_note(r, kBlockedNote);
      continue;
    }
    const Row* moved = r.compare_mode == MetricSource::kStats ? stats.moved() : nullptr;
    stats.add(r, o.level);
    Floors f = floors_of(o, op_type_of(r), s, net_noise);
    double floor = std::sqrt(f.gain_sq * o.reached * o.reached + f.noise_sq);
    r.noise_floor = std::sqrt(f.noise_sq);
    r.error_floor = floor;
    r.error_jump = floor > 0 ? o.level / floor : 0.0;
    double k = r.compare_mode == MetricSource::kSketch ? kJumpFactorSketch : kJumpFactor;
    // Named above the larger of the jump threshold and the dtype's rounding floor.
    double named_at =
        std::max(std::sqrt(k * k * f.gain_sq * o.reached * o.reached + kNoiseFactor * kNoiseFactor * f.noise_sq) *
                     sampling_allowance(o.elements),
                 kDtypeFactor * o.floor);
    double margin = o.level / named_at;
    r.margin = margin;
    r.detection_floor = kConfirmMargin * named_at;
    if (margin <= 1.0) continue;
    if (margin >= kConfirmMargin && !moved) {
      r.jump = named ? ReportRow::Jump::kJump : ReportRow::Jump::kFirst;
      named = true;
    } else if (!named) {
      r.jump = ReportRow::Jump::kSuspect;
      if (moved) add_note(r, moved_note(*moved));
    }
  }
}

template void judge_token<ReportRow>(std::vector<ReportRow>& rows, const std::vector<Out>& outs);
template void judge_token<JumpRow>(std::vector<JumpRow>& rows, const std::vector<Out>& outs);

}  // namespace msit::divergence_detail
