// The first-divergence rule over one rank report (docs/compare.md "First divergence"), pass 1:
// per token, each output's input error (its op's continuous inputs combined, at least what
// reached them one op earlier), discrete rows set apart; pass 2 is divergence_floor.cpp.
#include "common/compare/divergence.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <map>
#include <string>
#include <utility>

#include "common/compare/discrete.h"
#include "common/compare/divergence_detail.h"
#include "common/report/op_label.h"

namespace msit {

using divergence_detail::Out;

namespace {

// The rule's reads and writes are the same on a ReportRow and on a JumpRow (jump_row.h): each
// step below is written once for both.
template <class Row>
std::optional<double> level_of(const Row& r) {
  std::optional<double> level;
  if (r.red && std::isfinite(*r.red)) level = *r.red;
  if (r.cosine && std::isfinite(*r.cosine)) {
    double from_cos = std::sqrt(2.0 * std::max(0.0, 1.0 - *r.cosine));
    level = std::max(level.value_or(0.0), from_cos);
  }
  return level;
}

// Of the tensor's own dtype: a bf16 GE tensor rounds at 2^-8 although msit names it float32.
double unit_roundoff(DType t) {
  switch (t) {
    case DType::kFloat16: return 0x1p-11;
    case DType::kBFloat16: return 0x1p-8;
    case DType::kFloat8E4M3FN: return 0x1p-4;
    case DType::kFloat8E5M2: return 0x1p-3;
    default: return 0.0;  // float32/64 and integers: only kMinErrorFloor
  }
}

template <class Row>
double floor_of(const Row& r) {
  return std::max({kMinErrorFloor, unit_roundoff(r.golden_dtype.dtype), unit_roundoff(r.my_dtype.dtype)});
}

// The execution order the rule walks a token's rows in.
uint64_t row_order(const ReportRow& r) { return row_label(r).order; }
uint64_t row_order(const JumpRow& r) { return r.order; }

}  // namespace

std::optional<double> error_level(const ReportRow& r) { return level_of(r); }
std::optional<double> error_level(const JumpRow& r) { return level_of(r); }
double rounding_floor(const ReportRow& r) { return floor_of(r); }
double rounding_floor(const JumpRow& r) { return floor_of(r); }

RowTensor row_tensor(const ReportRow& r) {
  const TensorLabel& l = row_label(r);
  if (!l.known()) return {r.my_data_path, true};
  return {l.op, l.role != TensorRole::kInput};
}

std::string_view op_type_of(const ReportRow& r) {
  const TensorLabel& l = row_label(r);
  return l.op_type.empty() ? row_tensor(r).op : std::string_view(l.op_type);
}

RowTensor row_tensor(const JumpRow& r) { return {r.op, r.output}; }
std::string_view op_type_of(const JumpRow& r) { return r.op_type.empty() ? r.op : r.op_type; }

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

// The metrics of a row, bit for bit: an op's input row and the output row of the op that made
// that tensor compare the same data, so they carry the same numbers (how the producer of an
// input is found without a graph; only rows with an error, where a collision is unlikely).
using Signature = std::array<uint64_t, 5>;
template <class Row>
Signature signature(const Row& r) {
  auto bits = [](const OptDouble& v) { return v ? std::bit_cast<uint64_t>(*v) : ~uint64_t{0}; };
  return {bits(r.cosine), bits(r.red), bits(r.max_abs), bits(r.mean_abs), static_cast<uint64_t>(r.compare_mode)};
}

// The continuous inputs of one op: each input row's level and what reached it one op earlier.
struct OpInputs {
  std::vector<size_t> rows;
  bool discrete_differs = false;  // a discrete input (indices, a mask) with flips
};

// Errors of several inputs add: a product passes on the relative errors of both factors, and a
// sum at most the larger of its terms'. The root of the sum of squares is the product's error
// for independent errors and bounds the sum's; it is what an op with one input passes on.
double combine(const std::vector<double>& levels) {
  double s = 0;
  for (double l : levels) s += l * l;
  return std::sqrt(s);
}

// The input error a reduction's output may show without an error of its own, as a level of that
// output (docs/compare.md "First divergence", step 2, "Reductions"). An output with fewer elements
// than its one continuous input (a mean, max or min over an axis, a gather of rows, a slice) is
// within the range of its inputs' errors element by element: |sum w_i d_i| <= max |d_i| when the
// weights sum to at most 1, so its absolute error is at most its input's, whatever their
// correlation. Relative to a small output (the mean of a row centred near 0) that absolute error
// is a large relative one: the level of the output times mean|input error| / mean|output error|.
// A sum scales output and error alike, which this underestimates: the learned gain stays for it.
// 0 when not a reduction or the rows carry no mean absolute error (sketched rows).
template <class Row>
double reduction_input_error(const Row& in, const Row& out, double out_level) {
  if (out.elements == 0 || in.elements <= out.elements) return 0.0;
  if (!in.mean_abs || !out.mean_abs || !(*out.mean_abs > 0) || !std::isfinite(*in.mean_abs)) return 0.0;
  return out_level * *in.mean_abs / *out.mean_abs;
}

struct TokenInputs {
  std::map<std::string_view, OpInputs> by_op;
  bool any = false;  // a token without input rows: a chain of outputs (ATB/torch sheets)
};

template <class Row>
TokenInputs collect_inputs(const std::vector<Row>& rows, const std::vector<size_t>& order) {
  TokenInputs t;
  for (size_t i : order) {
    const Row& r = rows[i];
    RowTensor tensor = row_tensor(r);
    if (tensor.output) continue;
    OpInputs& in = t.by_op[tensor.op];
    if (discrete_row(r)) {
      in.discrete_differs = in.discrete_differs || discrete_differs(r);
    } else if (r.error_level) {
      in.rows.push_back(i);
      t.any = true;
    }
  }
  return t;
}

// Pass 1 over one token in execution order: each output's input error. P of an op with input
// rows combines its continuous inputs, each taken at the larger of its own level and the input
// error of the op that made it (found by signature): an op that dilutes an error (adds a large
// mask, or averages) lowers the level of its output without lowering what the next op can
// amplify again (a softmax after the mask). Without input rows: the token's earlier rows.
template <class Row>
std::vector<Out> outputs_of_token(std::vector<Row>& rows, const std::vector<size_t>& order) {
  TokenInputs ins = collect_inputs(rows, order);
  std::map<Signature, double> made;  // an output's signature -> its op's input error
  std::vector<Out> outs;
  double so_far = 0, prev = 0;
  for (size_t i : order) {
    Row& r = rows[i];
    if (!r.error_level) continue;
    double level = *r.error_level;
    RowTensor tensor = row_tensor(r);
    if (!tensor.output) {
      so_far = std::max(so_far, level);
      continue;
    }
    auto it = ins.by_op.find(tensor.op);
    bool has_inputs = it != ins.by_op.end() && !it->second.rows.empty();
    double in = ins.any ? so_far : prev, own = in, upstream = in, widest = 0, passed_on = in;
    if (has_inputs) {
      std::vector<double> levels, reached;
      for (size_t k : it->second.rows) {
        double l = *rows[k].error_level;
        levels.push_back(l);
        auto m = l > 0 ? made.find(signature(rows[k])) : made.end();
        reached.push_back(std::max(l, m != made.end() ? m->second : 0.0));
        widest = std::max(widest, l);
      }
      own = combine(levels);
      upstream = combine(reached);
      passed_on = own;
      if (it->second.rows.size() == 1) {
        double averaged = reduction_input_error(rows[it->second.rows[0]], r, level);
        own = std::max(own, averaged);
        upstream = std::max(upstream, averaged);
      }
    }
    double f = rounding_floor(r);
    bool blocked = it != ins.by_op.end() && it->second.discrete_differs;
    outs.push_back(
        {i, level, std::max(f, own), std::max(f, upstream), f, has_inputs && level == widest, blocked, r.elements});
    // What reached this op, for the ops that read its output: a reduction's averaged input error is
    // an absolute error, small again next to a consumer's larger values (x - mean(x)), so they get
    // its inputs' levels combined, not that.
    if (level > 0) made[signature(r)] = passed_on;
    prev = level;
    so_far = std::max(so_far, level);
  }
  return outs;
}

template <class Row>
void reset(Row& r) {
  r.error_level = discrete_row(r) ? std::nullopt : error_level(r);  // a flip count is not an error level
  r.error_jump.reset();
  r.error_floor.reset();
  r.noise_floor.reset();
  r.margin.reset();
  r.detection_floor.reset();
  r.jump = ReportRow::Jump::kNone;
}

template <class Row>
void token_jumps(std::vector<Row>& rows, std::vector<size_t> token_rows) {
  for (size_t i : token_rows) reset(rows[i]);
  std::stable_sort(token_rows.begin(), token_rows.end(), [&](size_t a, size_t b) {
    const uint64_t la = row_order(rows[a]), lb = row_order(rows[b]);
    return la != lb ? la < lb : a < b;
  });
  divergence_detail::judge_token(rows, outputs_of_token(rows, token_rows));
}

template <class Row>
void error_jumps(std::vector<Row>& rows) {
  std::map<int64_t, std::vector<size_t>> tokens;
  for (size_t i = 0; i < rows.size(); ++i) tokens[rows[i].token_id].push_back(i);
  for (auto& [token, idx] : tokens) token_jumps(rows, std::move(idx));
}

}  // namespace

void mark_token_jumps(std::vector<ReportRow>& rows, std::vector<size_t> token_rows) {
  token_jumps(rows, std::move(token_rows));
}
void mark_token_jumps(std::vector<JumpRow>& rows, std::vector<size_t> token_rows) {
  token_jumps(rows, std::move(token_rows));
}
void mark_error_jumps(std::vector<ReportRow>& rows) { error_jumps(rows); }
void mark_error_jumps(std::vector<JumpRow>& rows) { error_jumps(rows); }

std::optional<double> token_detection_floor(const std::vector<const ReportRow*>& token_rows) {
  std::optional<double> floor;
  for (const ReportRow* r : token_rows)
    if (r->detection_floor) floor = std::max(floor.value_or(0.0), *r->detection_floor);
  return floor;
}

}  // namespace msit
