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

std::string jump_block(const std::vector<const ReportRow*>& firsts, size_t count, size_t listed) {
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
    for (const auto& line : f.recompute) s += "    recomputed: " + line + "\n";
  }
  if (count > listed) s += "  ... and " + std::to_string(count - listed) + " more tokens\n";
  return s;
}

// Suspects: the first thin-margin name of each token that has no divergence before it.
std::string suspect_block(const std::vector<ReportRow>& suspects, size_t count, size_t listed) {
  if (count == 0) return "";
  std::string s = "suspects (over their threshold by less than a divergence needs: not named as a divergence):\n";
  for (const ReportRow& f : suspects) {
    s += "  token " + token_of(f) + ": " + op_text(f) + margin_text(f) + "\n";
    s += "    " + metrics_line(f) + "\n";
  }
  if (count > listed) s += "  ... and " + std::to_string(count - listed) + " more tokens\n";
  return s;
}

// "none above X" for the tokens without a divergence: X, the token's detection floor, is the
// error level above which any output the rule judged would have been named.
std::string none_block(const std::map<std::string, SummaryBuilder::TokenFloor>& floors, bool any_named) {
  double lo = 0, hi = 0;
  size_t n = 0;
  std::string only;
  for (const auto& [token, t] : floors) {
    if (t.named || !t.floor) continue;
    lo = n ? std::min(lo, *t.floor) : *t.floor;
    hi = n ? std::max(hi, *t.floor) : *t.floor;
    only = token;
    ++n;
  }
  if (n == 0) {
    if (any_named) return "";
    return "first divergence: not judged (no output has an error level to weigh against its inputs: statistics "
           "only, discrete values, or tensors that do not feed each other)\n";
  }
  std::string s = any_named ? "  other tokens (" + std::to_string(n) + "): none above " + num(hi)
                            : "first divergence: none above " + num(hi);
  if (!any_named) s += n == 1 ? " (token " + only + ")" : " (" + std::to_string(n) + " tokens)";
  s += ": an error of that level at any judged output would have been named";
  if (n > 1 && lo < hi) s += " (per token " + num(lo) + "-" + num(hi) + ")";
  return s + "\n";
}

// Discrete outputs whose values differ (judged by equality, docs/compare.md "Discrete outputs").
std::string discrete_block(const std::vector<ReportRow>& listed_rows, size_t count, size_t listed) {
  if (count == 0) return "";
  std::string s = "discrete outputs that differ (flips, judged by equality; a near tie in an input flips an argmax):\n";
  for (const ReportRow& r : listed_rows) {
    s += "  token " + token_of(r) + ": " + op_text(r);
    if (r.differing)
      s += ": " + std::to_string(*r.differing) + (*r.differing == 1 ? " element differs" : " elements differ");
    s += "\n";
  }
  if (count > listed) s += "  ... and " + std::to_string(count - listed) + " more\n";
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

std::string error_block(const std::map<std::string, SummaryBuilder::ErrorGroup>& groups, size_t n, size_t listed) {
  if (n == 0) return "";
  std::string s = "errors: " + std::to_string(n) + " rows could not be compared\n";
  for (const auto& [why, g] : groups) {
    s += "  " + std::to_string(g.count) + " x " + why + "\n";
    for (const ReportRow& r : g.first) {
      s += "    token " + token_of(r) + " " + op_text(r) + ": " + fail_reason_cell(r) + "\n";
    }
    if (g.count > listed)
      s += "    ... and " + std::to_string(g.count - listed) + " more (verdict error in the report)\n";
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

std::string margin_text(const ReportRow& f) {
  std::string s;
  if (f.margin) s += ", margin " + num(*f.margin);
  if (f.margin && f.jump == ReportRow::Jump::kSuspect && *f.margin < kConfirmMargin)
    s += " (a divergence needs " + num(kConfirmMargin) + ")";
  if (f.detection_floor) s += ", detection floor " + num(*f.detection_floor);
  return s;
}

void WorstRows::add(const ReportRow& r) {
  if (!flagged(r)) return;
  const uint64_t seq = seq_++;
  const double b = badness(r), red = r.red.value_or(0.0);
  // Report order breaks ties (the stable sort of worst_rows): a later row goes after equal keys.
  auto before = [&](const Kept& k) {
    double kb = badness(k.row);
    if (kb != b) return kb > b;
    double kr = k.row.red.value_or(0.0);
    if (kr != red) return kr > red;
    return k.seq < seq;
  };
  auto at = std::find_if_not(kept_.begin(), kept_.end(), before);
  if (static_cast<size_t>(at - kept_.begin()) >= kSpare * n_) return;
  if (std::any_of(kept_.begin(), at, [&](const Kept& k) { return same_data(k.row, r); })) return;
  kept_.insert(at, Kept{r, seq, &r});
  // A row the new one stands for (same data, lower in the order) goes. Same data has the same key
  // unless a row without a cosine differs in verdict: the spare rows cover the places such a
  // removal frees.
  for (auto it = kept_.begin(); it != kept_.end(); ++it) {
    auto dup = std::find_if(it + 1, kept_.end(), [&](const Kept& k) { return same_data(it->row, k.row); });
    if (dup != kept_.end()) kept_.erase(dup);
  }
  if (kept_.size() > kSpare * n_) kept_.resize(kSpare * n_);
}

std::vector<const ReportRow*> WorstRows::rows() const {
  std::vector<const ReportRow*> v;
  for (size_t i = 0; i < kept_.size() && i < n_; ++i) v.push_back(&kept_[i].row);
  return v;
}

std::vector<const ReportRow*> WorstRows::origins() const {
  std::vector<const ReportRow*> v;
  for (size_t i = 0; i < kept_.size() && i < n_; ++i) v.push_back(kept_[i].origin);
  return v;
}

const ReportRow* first_divergence(const std::vector<ReportRow>& rows) {
  for (const auto& r : rows) {
    if (r.verdict == Verdict::kFail) return &r;
  }
  return nullptr;
}

std::vector<const ReportRow*> worst_rows(const std::vector<ReportRow>& rows, size_t n) {
  WorstRows w(n);
  for (const auto& r : rows) w.add(r);
  return w.origins();
}

SummaryBuilder::SummaryBuilder(const SummaryOptions& o) : o_(o), worst_(o.worst) {}

void SummaryBuilder::add(const std::vector<ReportRow>& rows) {
  for (const auto& r : rows) {
    std::string_view mode = metric_source_text(r.compare_mode);
    ++modes_[mode.empty() ? "none" : std::string(mode)];
    ++verdicts_[verdict_text(r.verdict)];
    inconclusive_ += r.verdict == Verdict::kInconclusive;
    auto& [token_rows, judged] = token_rows_[{r.token_id, r.token_text}];
    ++token_rows;
    judged += r.error_level.has_value();
    // Why rows were inconclusive, from their own note (never the compare's, compare_note); a row
    // with no note is statistics only by design (--stats, summaries without sketches): the
    // headline says that.
    if (r.verdict == Verdict::kInconclusive && !r.note.empty()) {
      constexpr size_t kReasons = 3;
      auto it = inconclusive_why_.find(r.note);
      if (it != inconclusive_why_.end()) ++it->second;
      else if (inconclusive_why_.size() < kReasons) inconclusive_why_.emplace(r.note, 1);
      else ++inconclusive_other_;
    }
    if (r.jump == ReportRow::Jump::kFirst) {
      if (firsts_.size() < std::max<size_t>(o_.tokens_listed, 1)) firsts_.push_back(r);
      if (firsts_count_++ == 0) first_jump_seq_ = rows_;
    }
    add_rule_marks(r);
    if (!fail_ && r.verdict == Verdict::kFail) {
      fail_ = r;
      fail_seq_ = rows_;
    }
    worst_.add(r);
    if (r.verdict == Verdict::kError) {
      ErrorGroup& g = errors_[reason_key(r)];
      if (g.first.size() < o_.errors_listed) g.first.push_back(r);
      ++g.count;
      ++error_rows_;
    }
    ++rows_;
  }
}

void SummaryBuilder::add_rule_marks(const ReportRow& r) {
  // Per token: its detection floor and whether it has a first divergence (a token's count of
  // entries, not its rows, is what this keeps); the first suspect of a token, the discrete
  // outputs that differ (the first tokens_listed of each kept).
  const std::string token = token_of(r);
  if (r.jump == ReportRow::Jump::kFirst || r.detection_floor) {
    TokenFloor& t = floors_[token];
    t.named = t.named || r.jump == ReportRow::Jump::kFirst;
    if (r.detection_floor) t.floor = std::max(t.floor.value_or(0.0), *r.detection_floor);
  }
  if (r.jump == ReportRow::Jump::kSuspect && suspect_tokens_.insert(token).second) {
    if (suspects_.size() < o_.tokens_listed) suspects_.push_back(r);
    ++suspects_count_;
  }
  if (row_tensor(r).output && discrete_differs(r)) {
    if (discrete_.size() < o_.tokens_listed) discrete_.push_back(r);
    ++discrete_count_;
  }
}

std::string SummaryBuilder::text(std::optional<int64_t> rank) const {
  std::string s = rank ? "rank " + std::to_string(*rank) + ": " : "";
  s += std::to_string(rows_) + " rows;";
  for (const auto& [m, c] : modes_) s += " " + m + " " + std::to_string(c);
  s += " |";
  for (const auto& [v, c] : verdicts_) s += " " + v + " " + std::to_string(c);
  s += "\n";
  std::vector<const ReportRow*> firsts;
  for (const auto& f : firsts_) firsts.push_back(&f);
  if (firsts_count_ > 0) s += jump_block(firsts, firsts_count_, o_.tokens_listed);
  s += none_block(floors_, firsts_count_ > 0);
  s += suspect_block(suspects_, suspects_count_, o_.tokens_listed);
  s += discrete_block(discrete_, discrete_count_, o_.tokens_listed);
  s += unjudged_line();
  if (fail_) {
    s += "threshold (msprobe): first fail in token " + token_of(*fail_) + ": " + op_text(*fail_) + "\n";
    if (firsts_count_ == 0 || fail_seq_ != first_jump_seq_) s += "    " + metrics_line(*fail_) + "\n";
  } else {
    s += "threshold (msprobe): no row fails\n";
  }
  auto worst = worst_.rows();
  if (!worst.empty()) {
    s += "worst " + std::to_string(worst.size()) + ":\n";
    for (const ReportRow* r : worst)
      s += "  token " + token_of(*r) + " " + op_text(*r) + "  " + metrics_line(*r) + "\n";
  }
  s += error_block(errors_, error_rows_, o_.errors_listed);
  if (inconclusive_ > 0) {
    s += "inconclusive: " + std::to_string(inconclusive_) +
         " rows judged from statistics only (min/max, or no sketch): they are not shown to pass\n";
    for (const auto& [why, n] : inconclusive_why_) s += "  " + std::to_string(n) + " rows: " + why + "\n";
    if (inconclusive_other_ > 0) s += "  " + std::to_string(inconclusive_other_) + " rows for other reasons\n";
  }
  const ReportRow* focus = firsts_count_ > 0 ? firsts.front() : fail_ ? &*fail_ : nullptr;
  s += next_block(focus ? focus : suspects_.empty() ? nullptr : &suspects_.front(), o_);
  return printable_lines(s);  // op and file names come from the dump: no escape sequence reaches the terminal
}

std::string SummaryBuilder::unjudged_line() const {
  std::string tokens;
  size_t n = 0;
  for (const auto& [key, count] : token_rows_) {
    if (count.second > 0) continue;
    if (n++ < o_.tokens_listed)
      tokens += (tokens.empty() ? "" : ", ") + (key.second.empty() ? std::to_string(key.first) : key.second);
  }
  if (n == 0) return {};
  if (n == token_rows_.size()) return {};  // the first-divergence line already says "not judged"
  if (n > o_.tokens_listed) tokens += " and " + std::to_string(n - o_.tokens_listed) + " more";
  return "  not judged: token" + std::string(n == 1 ? " " : "s ") + tokens +
         ": none of its rows has a cosine or RED (unreadable, or statistics only), so no first divergence can be "
         "named there\n";
}

std::string terminal_summary(const std::vector<ReportRow>& rows, std::optional<int64_t> rank, const SummaryOptions& o) {
  SummaryBuilder b(o);
  b.add(rows);
  return b.text(rank);
}

}  // namespace msit
