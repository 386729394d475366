// The error-jump rule over one rank report: a running floor per token, one pass.
#include "common/compare/divergence.h"

#include <algorithm>
#include <cmath>
#include <map>
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

double unit_roundoff(std::string_view dtype) {
  if (dtype.starts_with("torch.")) dtype.remove_prefix(6);
  if (dtype == "float16" || dtype == "half") return 0x1p-11;
  if (dtype == "bfloat16") return 0x1p-8;
  if (dtype.starts_with("float8_e4m3")) return 0x1p-4;
  if (dtype.starts_with("float8_e5m2")) return 0x1p-3;
  return 0.0;  // float32/64 and integers: only kMinErrorFloor
}

bool ends_with_index(std::string_view s, std::string_view tag, size_t& cut) {
  // s ends with TAG followed by decimal digits.
  size_t d = s.size();
  while (d > 0 && s[d - 1] >= '0' && s[d - 1] <= '9') --d;
  if (d == s.size() || d < tag.size() || s.substr(d - tag.size(), tag.size()) != tag) return false;
  cut = d - tag.size();
  return true;
}

}  // namespace

double rounding_floor(const ReportRow& r) {
  return std::max({kMinErrorFloor, unit_roundoff(r.golden_dtype), unit_roundoff(r.my_dtype)});
}

RowTensor row_tensor(const ReportRow& r) {
  std::string_view p = r.my_data_path;
  size_t cut = 0;
  if (ends_with_index(p, ",outputs,", cut)) return {p.substr(0, cut), true};
  if (ends_with_index(p, ",inputs,", cut)) return {p.substr(0, cut), false};
  // FX npy: {node}-{target}.OUTPUT.{k}.{ts}.npy. The last tag of each kind, found among the
  // dots (rfind of a string is a memcmp per position: a fifth of the phase on 100,000 rows).
  for (auto [tag, out] : {std::pair<std::string_view, bool>{".OUTPUT.", true}, {".INPUT.", false}}) {
    for (size_t dot = p.rfind('.'); dot != std::string_view::npos;
         dot = dot == 0 ? std::string_view::npos : p.rfind('.', dot - 1)) {
      if (p.substr(dot, tag.size()) == tag) return {p.substr(0, dot), out};
    }
  }
  return {p, true};  // a single-tensor file (_min_max): judged as an output
}

void mark_error_jumps(std::vector<ReportRow>& rows) {
  // The op's inputs, wherever they sit in the report (msit order puts them first, but the
  // rule should not depend on it).
  std::map<std::pair<int64_t, std::string_view>, double> input_level;
  std::vector<RowTensor> tensors;  // of each row, for both passes
  tensors.reserve(rows.size());
  for (auto& r : rows) {
    r.error_level = error_level(r);
    r.error_jump.reset();
    r.jump = ReportRow::Jump::kNone;
    const RowTensor& t = tensors.emplace_back(row_tensor(r));
    if (!t.output && r.error_level) {
      double& v = input_level[{r.token_id, t.op}];
      v = std::max(v, *r.error_level);
    }
  }
  std::map<int64_t, double> running;  // per token: largest error level so far
  std::map<int64_t, bool> named;
  for (size_t i = 0; i < rows.size(); ++i) {
    ReportRow& r = rows[i];
    if (!r.error_level) continue;
    double level = *r.error_level;
    double& floor_so_far = running[r.token_id];
    const RowTensor& t = tensors[i];
    if (t.output) {
      // With its inputs in the report, the op is judged against them (an earlier op that
      // amplified the noise does not raise the bar for unrelated ops); without them (TransData
      // self rows, fused ops, FX nodes without inputs), against everything before it.
      double floor = rounding_floor(r);
      if (auto it = input_level.find({r.token_id, t.op}); it != input_level.end()) floor = std::max(floor, it->second);
      else floor = std::max(floor, floor_so_far);
      r.error_jump = level / floor;
      if (level > kJumpFactor * floor) {
        bool& first = named[r.token_id];
        r.jump = first ? ReportRow::Jump::kJump : ReportRow::Jump::kFirst;
        first = true;
      }
    }
    floor_so_far = std::max(floor_so_far, level);
  }
}

}  // namespace msit
