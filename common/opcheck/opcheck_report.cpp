// Text and JSON of opcheck results (docs/opcheck.md "Reading the report").
#include "common/opcheck/opcheck_report.h"

#include <cmath>
#include <cstdio>

namespace msit::opcheck {
namespace {

std::string num(double v, const char* fmt = "%.6g") {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

std::string shape_text(const std::vector<uint64_t>& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? "," : "") + std::to_string(dims[i]);
  return s + "]";
}

nlohmann::json finite_or_text(double v) {
  if (std::isfinite(v)) return v;
  return num(v);
}

}  // namespace

std::string verdict_line(const OpCheckResult& r) {
  std::string s = r.op_name.empty() ? r.path : r.op_name;
  if (!r.op_type.empty()) s += " (" + r.op_type + ")";
  s += ": " + std::string(op_verdict_sentence(r.verdict));
  if (r.verdict == OpVerdict::kNotRecomputed) s += ": " + std::string(skip_reason_name(r.reason)) + ": " + r.detail;
  return s;
}

std::vector<std::string> output_lines(const OpCheckResult& r) {
  std::vector<std::string> lines;
  for (const auto& o : r.outputs) {
    std::string s =
        "output " + std::to_string(o.index) + " " + std::string(dtype_name(o.dtype)) + " " + shape_text(o.shape) + ": ";
    if (o.beyond_bound > 0) {
      s += std::to_string(o.beyond_bound) + " of " + std::to_string(o.count) +
           " elements beyond a correct kernel's bound";
      if (o.special_mismatch) s += " (" + std::to_string(o.special_mismatch) + " NaN/Inf mismatches)";
      s += "; worst " + num(o.max_bound_ratio, "%.3g") + "x its bound";
    } else {
      s += "all " + std::to_string(o.count) + " elements within a correct kernel's bound (worst " +
           num(o.max_bound_ratio, "%.2g") + "x)";
    }
    s += " at element " + std::to_string(o.worst_index) + " (recomputed " + num(o.worst_recomputed) + ", dumped " +
         num(o.worst_dumped) + ", bound " + num(o.worst_bound, "%.3g") + "); cosine " + num(o.cosine, "%.6f") +
         ", RED " + num(o.red, "%.3g") + ", max abs " + num(o.max_abs, "%.3g") + ", max " + num(o.max_ulps, "%.3g") +
         " ulps, mean " + num(o.mean_ulps, "%.3g") + " ulps";
    lines.push_back(std::move(s));
  }
  return lines;
}

nlohmann::json result_json(const OpCheckResult& r) {
  nlohmann::json j;
  j["op_name"] = r.op_name;
  j["op_type"] = r.op_type;
  j["path"] = r.path;
  j["op"] = r.kind ? std::string(op_kind_name(*r.kind)) : std::string();
  j["verdict"] = std::string(op_verdict_name(r.verdict));
  if (r.verdict == OpVerdict::kNotRecomputed) {
    j["reason"] = std::string(skip_reason_name(r.reason));
    j["detail"] = r.detail;
  }
  j["outputs"] = nlohmann::json::array();
  for (const auto& o : r.outputs) {
    j["outputs"].push_back({{"index", o.index},
                            {"dtype", std::string(dtype_name(o.dtype))},
                            {"shape", o.shape},
                            {"count", o.count},
                            {"beyond_bound", o.beyond_bound},
                            {"special_mismatch", o.special_mismatch},
                            {"cosine", finite_or_text(o.cosine)},
                            {"red", finite_or_text(o.red)},
                            {"max_abs", finite_or_text(o.max_abs)},
                            {"max_ulps", finite_or_text(o.max_ulps)},
                            {"mean_ulps", finite_or_text(o.mean_ulps)},
                            {"max_bound_ratio", finite_or_text(o.max_bound_ratio)},
                            {"worst_index", o.worst_index},
                            {"worst_recomputed", finite_or_text(o.worst_recomputed)},
                            {"worst_dumped", finite_or_text(o.worst_dumped)},
                            {"worst_bound", finite_or_text(o.worst_bound)}});
  }
  return j;
}

}  // namespace msit::opcheck
