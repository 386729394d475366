// Terminal summary of one report: what was compared how, where it first went wrong (error jump
// and threshold), the worst pairs, the errors, and what to run next.
#include "common/compare/terminal_summary.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>

#include "common/base/printable.h"
#include "common/compare/discrete.h"
#include "common/compare/divergence.h"
#include "common/io/derived_names.h"
#include "common/report/csv.h"
#include "common/report/op_label.h"

namespace msit {
namespace {

// The token as the report writes it: ATB/torch keys may be text ("warmup").
std::string token_of(const ReportRow& r) { return r.token_text.empty() ? std::to_string(r.token_id) : r.token_text; }

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

std::string metric(const char* name, const std::optional<double>& v) {
  if (!v || std::isnan(*v)) return "";
  if (std::strcmp(name, "cosine") == 0) return " cosine=" + python_float_repr(*v);  // 0.9999 vs 0.99999 matters
  return std::string(" ") + name + "=" + num(*v);
}

// The verdict as the summary prints it: "none" for no verdict.
std::string verdict_text(Verdict v) { return v == Verdict::kNone ? "none" : std::string(verdict_name(v)); }

// One line of metrics: mode, the seven metrics present, stats errors when that is all there is.
std::string metrics_line(const ReportRow& r) {
  std::string_view mode = metric_source_text(r.compare_mode);
  std::string s = mode.empty() ? "" : "[" + std::string(mode) + "]";
  s += metric("cosine", r.cosine);
  if (r.cosine) s += metric("cos_dist", 1.0 - *r.cosine);
  s += metric("RED", r.red) + metric("max_abs_err", r.max_abs) + metric("max_rel_err", r.max_rel) + metric("kl", r.kl);
  if (!r.cosine) s += metric("max_stat_abs_err", r.stat_abs[0]) + metric("min_stat_abs_err", r.stat_abs[1]);
  s += " verdict " + verdict_text(r.verdict);
  if (r.error_jump && r.jump != ReportRow::Jump::kNone) s += ", error jump " + num(*r.error_jump) + "x";
  if (r.margin && r.jump != ReportRow::Jump::kNone) s += ", margin " + num(*r.margin);
  if (std::string why = fail_reason_cell(r); !why.empty()) s += "; reason: " + why;
  return s;
}

bool flagged(const ReportRow& r) { return r.verdict == Verdict::kFail || r.jump != ReportRow::Jump::kNone; }

double badness(const ReportRow& r) {
  if (r.cosine) return 2.0 - *r.cosine;  // in [1, 3] when a cosine exists
  if (r.verdict == Verdict::kFail) return 1.0;
  return r.stat_rel[0] ? std::min(0.99, *r.stat_rel[0] / 100.0) : 0.0;
}

// Same token and rank and bit-identical metrics: the same tensor pair reached twice.
bool same_data(const ReportRow& a, const ReportRow& b) {
  if (a.token_id != b.token_id || a.token_text != b.token_text || a.rank != b.rank ||
      a.compare_mode != b.compare_mode) {
    return false;
  }
  bool any = false;
  auto eq = [&](const std::optional<double>& x, const std::optional<double>& y) {
    any = any || x.has_value();
    if (x.has_value() != y.has_value()) return false;
    return !x || std::bit_cast<uint64_t>(*x) == std::bit_cast<uint64_t>(*y);  // NaN equals itself here
  };
  bool equal = eq(a.cosine, b.cosine) && eq(a.max_abs, b.max_abs) && eq(a.max_rel, b.max_rel) &&
               eq(a.mean_abs, b.mean_abs) && eq(a.mean_rel, b.mean_rel) && eq(a.kl, b.kl) && eq(a.red, b.red);
  for (size_t k = 0; k < a.stat_abs.size(); ++k) equal = equal && eq(a.stat_abs[k], b.stat_abs[k]);
  return equal && any;  // rows without any number are never folded
}

// "margin 2.1 (detection floor 0.019)": how far over its threshold the name is, and the
// smallest error the rule could have named at that output.
std::string margin_text(const ReportRow& f) {
  std::string s;
  if (f.margin) s += ", margin " + num(*f.margin);
  if (f.margin && f.jump == ReportRow::Jump::kSuspect) s += " (a divergence needs " + num(kConfirmMargin) + ")";
  if (f.detection_floor) s += ", detection floor " + num(*f.detection_floor);
  return s;
}

std::string jump_block(const std::vector<const ReportRow*>& firsts, size_t listed) {
  std::string s = "first divergence (output error above what its inputs and its op type's noise explain):\n";
  for (size_t i = 0; i < firsts.size() && i < listed; ++i) {
    const ReportRow& f = *firsts[i];
    s += "  token " + token_of(f) + ": " + op_text(f);
    if (f.error_jump) s += ", error " + num(*f.error_jump) + "x its floor";
    s += margin_text(f) + "\n";
    if (i > 0 && row_label(f).op == row_label(*firsts[0]).op) continue;  // details once per op
    s += "    " + metrics_line(f) + "\n";
    double floor = f.error_floor.value_or(0.0), noise = f.noise_floor.value_or(0.0);
    double inputs = std::sqrt(std::max(0.0, floor * floor - noise * noise));
    s += "    error level " + num(f.error_level.value_or(0.0)) + " vs floor " + num(floor) +
         ": inputs' error x its type's gain " + num(inputs) + ", noise floor " + num(noise) +
         " (learned from the token's " + row_label(f).op_type + " outputs and its spread)\n";
  }
  if (firsts.size() > listed) s += "  ... and " + std::to_string(firsts.size() - listed) + " more tokens\n";
  return s;
}

// Suspects: the first thin-margin name of each token that has no divergence before it.
std::string suspect_block(const std::vector<const ReportRow*>& suspects, size_t listed) {
  if (suspects.empty()) return "";
  std::string s = "suspects (over their threshold by less than a divergence needs: not named as a divergence):\n";
  for (size_t i = 0; i < suspects.size() && i < listed; ++i) {
    const ReportRow& f = *suspects[i];
    s += "  token " + token_of(f) + ": " + op_text(f) + margin_text(f) + "\n";
    s += "    " + metrics_line(f) + "\n";
  }
  if (suspects.size() > listed) s += "  ... and " + std::to_string(suspects.size() - listed) + " more tokens\n";
  return s;
}

// "none above X" for the tokens without a divergence: X, the token's detection floor, is the
// error level above which any output the rule judged would have been named.
std::string none_block(const std::map<std::string, double>& floors, const std::set<std::string>& named,
                       bool any_named) {
  double lo = 0, hi = 0;
  size_t n = 0;
  for (const auto& [token, floor] : floors) {
    if (named.count(token)) continue;
    lo = n ? std::min(lo, floor) : floor;
    hi = n ? std::max(hi, floor) : floor;
    ++n;
  }
  if (n == 0) {
    if (any_named) return "";
    return "first divergence: not judged (no output has an error level to weigh against its inputs: statistics "
           "only, discrete values, or tensors that do not feed each other)\n";
  }
  std::string s = any_named ? "  other tokens (" + std::to_string(n) + "): none above " + num(hi)
                            : "first divergence: none above " + num(hi);
  if (!any_named) s += n == 1 ? " (token " + floors.begin()->first + ")" : " (" + std::to_string(n) + " tokens)";
  s += ": an error of that level at any judged output would have been named";
  if (n > 1 && lo < hi) s += " (per token " + num(lo) + "-" + num(hi) + ")";
  return s + "\n";
}

// Discrete outputs whose values differ (judged by equality, docs/compare.md "Discrete outputs").
std::string discrete_block(const std::vector<ReportRow>& rows, size_t listed) {
  std::vector<const ReportRow*> v;
  for (const auto& r : rows)
    if (row_tensor(r).output && discrete_differs(r)) v.push_back(&r);
  if (v.empty()) return "";
  std::string s = "discrete outputs that differ (flips, judged by equality; a near tie in an input flips an argmax):\n";
  for (size_t i = 0; i < v.size() && i < listed; ++i) {
    s += "  token " + token_of(*v[i]) + ": " + op_text(*v[i]);
    if (v[i]->differing) s += ": " + std::to_string(*v[i]->differing) + (*v[i]->differing == 1 ? " element differs" : " elements differ");
    s += "\n";
  }
  if (v.size() > listed) s += "  ... and " + std::to_string(v.size() - listed) + " more\n";
  return s;
}

// An error reason with its file left out (the row's problem holds it apart), so that one cause
// on many files is one group.
std::string reason_key(const ReportRow& r) {
  if (!r.problem.any()) return fail_reason_cell(r);
  ReportRow keyed;
  keyed.fail_reason = r.fail_reason;
  keyed.side_names = r.side_names;
  keyed.caveat = r.caveat;
  std::string reasons = msit_reason_cell(keyed), key = row_problem_key(r.problem);
  std::string msit = reasons.empty() ? key : reasons + " " + key;
  return r.caveat.empty() ? msit : msit + " " + r.caveat;
}

std::string error_block(const std::vector<ReportRow>& rows, size_t listed) {
  std::map<std::string, std::vector<const ReportRow*>> groups;
  size_t n = 0;
  for (const auto& r : rows) {
    if (r.verdict != Verdict::kError) continue;
    groups[reason_key(r)].push_back(&r);
    ++n;
  }
  if (n == 0) return "";
  std::string s = "errors: " + std::to_string(n) + " rows could not be compared\n";
  for (const auto& [why, list] : groups) {
    s += "  " + std::to_string(list.size()) + " x " + why + "\n";
    for (size_t i = 0; i < list.size() && i < listed; ++i) {
      s += "    token " + token_of(*list[i]) + " " + op_text(*list[i]) + ": " + fail_reason_cell(*list[i]) + "\n";
    }
    if (list.size() > listed)
      s += "    ... and " + std::to_string(list.size() - listed) + " more (verdict error in the report)\n";
  }
  return s;
}

// The file to inspect for a path cell: the raw file or its summary (summary rows are named by
// their raw file); empty when neither exists (a GE statistics-mode CSV: nothing to inspect).
std::string inspectable(const std::string& file) {
  std::error_code ec;
  if (file.empty() || std::filesystem::exists(file, ec)) return file;
  if (std::filesystem::exists(summary_name_for(file), ec)) return summary_name_for(file);
  return "";
}

std::string next_block(const ReportRow* focus, const SummaryOptions& o) {
  std::string s;
  if (focus) {
    for (bool golden : {false, true}) {
      std::string file = inspectable(row_file(*focus, golden));
      if (!file.empty()) s += (s.empty() ? "next: " : "      ") + std::string("msit-compact inspect ") + file + "\n";
    }
  }
  if (!o.html_command.empty()) s += (s.empty() ? "next: " : "      ") + o.html_command + "\n";
  return s;
}

}  // namespace

const ReportRow* first_divergence(const std::vector<ReportRow>& rows) {
  for (const auto& r : rows) {
    if (r.verdict == Verdict::kFail) return &r;
  }
  return nullptr;
}

std::vector<const ReportRow*> worst_rows(const std::vector<ReportRow>& rows, size_t n) {
  std::vector<const ReportRow*> v;
  for (const auto& r : rows) {
    if (flagged(r)) v.push_back(&r);
  }
  std::stable_sort(v.begin(), v.end(), [](const ReportRow* a, const ReportRow* b) {
    double ba = badness(*a), bb = badness(*b);
    if (ba != bb) return ba > bb;
    return a->red.value_or(0.0) > b->red.value_or(0.0);
  });
  // Equal keys keep report order (stable sort): the row kept is the first in execution order.
  std::vector<const ReportRow*> out;
  for (size_t i = 0; i < v.size() && out.size() < n; ++i) {
    bool seen = std::any_of(out.begin(), out.end(), [&](const ReportRow* o) { return same_data(*o, *v[i]); });
    if (!seen) out.push_back(v[i]);
  }
  return out;
}

std::string terminal_summary(const std::vector<ReportRow>& rows, std::optional<int64_t> rank, const SummaryOptions& o) {
  std::map<std::string, size_t> modes, verdicts;  // by name: the summary lists them in name order
  size_t inconclusive = 0;
  std::vector<const ReportRow*> firsts, suspects;
  std::map<std::string, double> floors;  // token -> its detection floor
  std::set<std::string> named, suspected;
  for (const auto& r : rows) {
    std::string_view mode = metric_source_text(r.compare_mode);
    ++modes[mode.empty() ? "none" : std::string(mode)];
    ++verdicts[verdict_text(r.verdict)];
    inconclusive += r.verdict == Verdict::kInconclusive;
    if (r.jump == ReportRow::Jump::kFirst) firsts.push_back(&r), named.insert(token_of(r));
    if (r.jump == ReportRow::Jump::kSuspect && suspected.insert(token_of(r)).second) suspects.push_back(&r);
    if (r.detection_floor) {
      auto [it, fresh] = floors.try_emplace(token_of(r), *r.detection_floor);
      if (!fresh) it->second = std::max(it->second, *r.detection_floor);
    }
  }
  std::string s = rank ? "rank " + std::to_string(*rank) + ": " : "";
  s += std::to_string(rows.size()) + " rows;";
  for (const auto& [m, c] : modes) s += " " + m + " " + std::to_string(c);
  s += " |";
  for (const auto& [v, c] : verdicts) s += " " + v + " " + std::to_string(c);
  s += "\n";
  if (!firsts.empty()) s += jump_block(firsts, o.tokens_listed);
  s += none_block(floors, named, !firsts.empty());
  s += suspect_block(suspects, o.tokens_listed);
  s += discrete_block(rows, o.tokens_listed);
  const ReportRow* fail = first_divergence(rows);
  if (fail) {
    s += "threshold (msprobe): first fail in token " + token_of(*fail) + ": " + op_text(*fail) + "\n";
    if (firsts.empty() || fail != firsts.front()) s += "    " + metrics_line(*fail) + "\n";
  } else {
    s += "threshold (msprobe): no row fails\n";
  }
  auto worst = worst_rows(rows, o.worst);
  if (!worst.empty()) {
    s += "worst " + std::to_string(worst.size()) + ":\n";
    for (const ReportRow* r : worst)
      s += "  token " + token_of(*r) + " " + op_text(*r) + "  " + metrics_line(*r) + "\n";
  }
  s += error_block(rows, o.errors_listed);
  if (inconclusive > 0) {
    s += "inconclusive: " + std::to_string(inconclusive) +
         " rows judged from statistics only (min/max, or no sketch): they are not shown to pass\n";
  }
  s += next_block(!firsts.empty() ? firsts.front() : fail ? fail : suspects.empty() ? nullptr : suspects.front(), o);
  return printable_lines(s);  // op and file names come from the dump: no escape sequence reaches the terminal
}

}  // namespace msit
