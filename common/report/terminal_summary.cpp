// Terminal summary of one report: what was compared how, where it first went wrong, the worst.
#include "common/report/terminal_summary.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>

#include "common/report/csv.h"

namespace msit {
namespace {

std::string metric(const char* name, const std::optional<double>& v) {
  if (!v || std::isnan(*v)) return "";
  return std::string(" ") + name + "=" + python_float_repr(*v);
}

std::string describe(const ReportRow& r) {
  std::string s = "token " + (r.token_text.empty() ? std::to_string(r.token_id) : r.token_text) + "  my " + r.my_data_path;
  if (!r.golden_data_path.empty()) s += "\n      golden " + r.golden_data_path;
  s += "\n     ";
  if (!r.compare_mode.empty()) s += " [" + r.compare_mode + "]";
  s += metric("cosine", r.cosine) + metric("max_abs_err", r.max_abs) + metric("max_rel_err", r.max_rel) +
       metric("rel_euclid", r.red) + metric("kl", r.kl);
  if (!r.stat_abs[0] || r.compare_mode == "stats") s += metric("max_stat_abs_err", r.stat_abs[0]) + metric("min_stat_abs_err", r.stat_abs[1]);
  if (std::string why = fail_reason_cell(r); !why.empty()) s += "  reason: " + why;
  return s;
}

// Badness key: larger is worse.
double badness(const ReportRow& r) {
  if (r.cosine) return 2.0 - *r.cosine;                       // in [1, 3] when a cosine exists
  if (r.verdict == "fail") return 1.0;
  return r.stat_rel[0] ? std::min(0.99, *r.stat_rel[0] / 100.0) : -1.0;
}

// Same token and rank and bit-identical metrics: the same tensor pair reached twice.
bool same_data(const ReportRow& a, const ReportRow& b) {
  if (a.token_id != b.token_id || a.token_text != b.token_text || a.rank != b.rank || a.compare_mode != b.compare_mode) {
    return false;
  }
  bool any = false;
  auto eq = [&](const std::optional<double>& x, const std::optional<double>& y) {
    any = any || x.has_value();
    if (x.has_value() != y.has_value()) return false;
    return !x || std::memcmp(&*x, &*y, sizeof(double)) == 0;
  };
  bool equal = eq(a.cosine, b.cosine) && eq(a.max_abs, b.max_abs) && eq(a.max_rel, b.max_rel) &&
               eq(a.mean_abs, b.mean_abs) && eq(a.mean_rel, b.mean_rel) && eq(a.kl, b.kl) && eq(a.red, b.red);
  for (size_t k = 0; k < a.stat_abs.size(); ++k) equal = equal && eq(a.stat_abs[k], b.stat_abs[k]);
  return equal && any;  // rows without any number are never folded
}

}  // namespace

const ReportRow* first_divergence(const std::vector<ReportRow>& rows) {
  for (const auto& r : rows) {
    if (r.verdict == "fail") return &r;
  }
  return nullptr;
}

std::vector<const ReportRow*> worst_rows(const std::vector<ReportRow>& rows, size_t n) {
  std::vector<const ReportRow*> v;
  for (const auto& r : rows) {
    if (badness(r) >= 0) v.push_back(&r);
  }
  std::stable_sort(v.begin(), v.end(), [](const ReportRow* a, const ReportRow* b) {
    double ba = badness(*a), bb = badness(*b);
    if (ba != bb) return ba > bb;
    return a->red.value_or(0.0) > b->red.value_or(0.0);
  });
  // One op's output and the next op's input are usually the same tensor on both sides: their
  // rows carry identical metrics and would fill the list twice. Equal keys keep report order
  // (stable sort), so the row kept is the first of them in execution order.
  std::vector<const ReportRow*> out;
  for (size_t i = 0; i < v.size() && out.size() < n; ++i) {
    bool seen = std::any_of(out.begin(), out.end(), [&](const ReportRow* o) { return same_data(*o, *v[i]); });
    if (!seen) out.push_back(v[i]);
  }
  return out;
}

std::string terminal_summary(const std::vector<ReportRow>& rows, std::optional<int64_t> rank) {
  std::map<std::string, size_t> modes, verdicts;
  for (const auto& r : rows) {
    ++modes[r.compare_mode.empty() ? "none" : r.compare_mode];
    ++verdicts[r.verdict.empty() ? "none" : r.verdict];
  }
  std::string s = rank ? "rank " + std::to_string(*rank) + ": " : "";
  s += std::to_string(rows.size()) + " rows;";
  for (const auto& [m, c] : modes) s += " " + m + " " + std::to_string(c);
  s += " |";
  for (const auto& [v, c] : verdicts) s += " " + v + " " + std::to_string(c);
  s += "\n";
  if (const ReportRow* f = first_divergence(rows)) {
    s += "first divergence (execution order):\n  " + describe(*f) + "\n";
  } else {
    s += "no divergence found\n";
  }
  auto worst = worst_rows(rows, 10);
  if (!worst.empty()) {
    s += "worst " + std::to_string(worst.size()) + ":\n";
    for (const ReportRow* r : worst) s += "  " + describe(*r) + "\n";
  }
  return s;
}

}  // namespace msit
