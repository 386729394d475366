// msProbe 8.x's verdicts (docs/formats/msprobe-compare.md §7), written for 8.x's `-i compare.json`:
// real data's "Accuracy Reached or Not" from Cosine and MaxAbsErr, the statistics "Warning" from
// the statistics' magnitude of difference, md5's pass / Different.
#include <cmath>
#include <cstdlib>

#include "common/compare_msprobe/row.h"

namespace msit {
namespace {

// Python's float() of a cell: numbers as they are, texts parsed ("Nan", " inf"), else none.
std::optional<double> as_float(const MsCell& c) {
  if (c.kind == MsCell::Kind::kNumber) return c.number;
  if (c.kind != MsCell::Kind::kText) return std::nullopt;
  const char* s = c.text.c_str();
  char* end = nullptr;
  double v = std::strtod(s, &end);
  if (end == s) return std::nullopt;
  while (*end == ' ' || *end == '\t') ++end;
  if (*end != '\0') return std::nullopt;
  return v;
}

bool is_text(const MsCell& c, std::string_view t) { return c.kind == MsCell::Kind::kText && c.text == t; }

// The statistics whose NPU and bench values are both numbers and differ by more than half of
// the larger value's magnitude (8.x: |n - b| / (|max(n, b)| + 1e-10) > 0.5).
bool stats_warn(const MsprobeItem& n, const MsprobeItem& b) {
  for (size_t i = 0; i < n.stats.size(); ++i) {
    const MsCell &x = n.stats[i], &y = b.stats[i];
    if (x.kind != MsCell::Kind::kNumber || y.kind != MsCell::Kind::kNumber) continue;
    double magnitude = std::fabs(x.number - y.number) / (std::fabs(std::fmax(x.number, y.number)) + 1e-10);
    if (magnitude > 0.5) return true;
  }
  return false;
}

std::string grad_text(const MsprobeItem* it) {
  if (!it || !it->requires_grad) return "N/A";
  return *it->requires_grad ? "True" : "False";
}

void judge_tensor(MsRow& r, const MsprobeItem& n, const MsprobeItem* b) {
  r.legacy_result = ms_accuracy_reached(r.metrics[0], r.metrics[2]);
  if (!r.metric_message.empty()) return;
  if (!b) {
    r.metric_message = "Bench api/module unmatched.";
  } else if (n.data_name == "-1") {
    r.metric_message = "NPU does not have data file.";
  } else if (b->data_name == "-1") {
    r.metric_message = "Bench does not have data file.";
  }
}

void judge_summary(MsRow& r, const MsprobeItem& n, const MsprobeItem* b) {
  if (!b) {
    r.legacy_result = "N/A";
    r.metric_message = "No bench data matched.";
    return;
  }
  const bool warn = stats_warn(n, *b);
  r.legacy_result = warn ? "Warning" : "";
  r.metric_message = warn ? "Need double check api accuracy. " : "";
  if (grad_text(&n) != grad_text(b)) r.metric_message += "Requires_grad inconsistent. ";
}

MsResult level_of(std::string_view legacy) {
  if (legacy == "No" || legacy == "Unmatched" || legacy == "Different") return MsResult::kError;
  if (legacy == "Warning") return MsResult::kWarning;
  return MsResult::kPass;
}

}  // namespace

std::string ms_accuracy_reached(const MsCell& cosine, const MsCell& max_abs) {
  if (is_text(cosine, "shape unmatched")) return "Unmatched";
  if (cosine.kind == MsCell::Kind::kNone || max_abs.kind == MsCell::Kind::kNone || is_text(cosine, "None") ||
      is_text(max_abs, "None")) {
    return "None";
  }
  if (is_text(cosine, "N/A") || is_text(max_abs, "N/A")) return "No";
  auto cos = as_float(cosine), err = as_float(max_abs);
  if (!cos || !err) return "None";  // "unsupported": no number to judge
  // NaN compares false both ways, as in Python: a NaN cosine alone does not say No.
  if (*cos < 0.99 && *err > 0.001) return "No";
  if (*cos < 0.9 || *err > 1) return "No";
  return "Yes";
}

void ms_apply_legacy_verdict(std::vector<MsRow>& rows, const std::vector<MsprobeItem>& npu,
                             const std::vector<MsprobeItem>& bench, MsMode mode) {
  for (MsRow& r : rows) {
    const MsprobeItem& n = npu[r.npu];
    const MsprobeItem* b = r.bench ? &bench[*r.bench] : nullptr;
    r.messages.clear();
    switch (mode) {
      case MsMode::kTensor: judge_tensor(r, n, b); break;
      case MsMode::kSummary: judge_summary(r, n, b); break;
      case MsMode::kMd5: r.legacy_result = !b ? "N/A" : n.md5 == b->md5 ? "pass" : "Different"; break;
    }
    r.result = level_of(r.legacy_result);
  }
}

}  // namespace msit
