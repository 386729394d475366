// Coverage of a compare: what was not paired, and whether the two trees look like two runs of
// one model (docs/compare.md "Coverage").
#include "common/compare/coverage.h"

#include <algorithm>

#include "common/report/op_label.h"

namespace msit {
namespace {

constexpr size_t kOpsNamed = 5;

std::string ids(const std::vector<int64_t>& v) {
  std::string out;
  for (size_t i = 0; i < v.size() && i < 16; ++i) out += (i ? ", " : "") + std::to_string(v[i]);
  if (v.size() > 16) out += ", ... (" + std::to_string(v.size()) + " in all)";
  return out;
}

std::string plural(size_t n, const char* one) { return std::string(one) + (n == 1 ? " " : "s "); }

std::string rank_prefix(const RankCoverage& r) {
  return r.rank ? "rank " + std::to_string(*r.rank) + ": " : std::string();
}

// The first few ops without golden are named, each once.
void name_op(std::vector<std::string>& named, const std::string& op) {
  if (named.size() < kOpsNamed && std::find(named.begin(), named.end(), op) == named.end()) named.push_back(op);
}

}  // namespace

std::vector<int64_t> only_in(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  std::vector<int64_t> sa = a, sb = b, out;
  std::sort(sa.begin(), sa.end());
  std::sort(sb.begin(), sb.end());
  std::set_difference(sa.begin(), sa.end(), sb.begin(), sb.end(), std::back_inserter(out));
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

void RankCoverage::count(const std::vector<ReportRow>& rows) {
  for (const ReportRow& r : rows) count_row(r);
}

void RankCoverage::count_row(const ReportRow& r) {
  const bool without_golden = r.problem.kind == RowProblem::Kind::kNoGolden;
  add(without_golden, has(r.fail_reason, FailReason::kShapeMismatch),
      !without_golden      ? std::string()
      : r.my_label.known() ? r.my_label.op
                           : std::string(row_file(r, false)));
}

void RankCoverage::add(bool without_golden, bool other_shape, const std::string& op) {
  ++my_tensors;
  if (without_golden) {
    ++no_golden;
    name_op(no_golden_ops, op);
  }
  if (other_shape) ++shape_mismatch;
}

void RankCoverage::add_counts(const RankCoverage& o) {
  my_tensors += o.my_tensors;
  no_golden += o.no_golden;
  shape_mismatch += o.shape_mismatch;
  for (const std::string& op : o.no_golden_ops) name_op(no_golden_ops, op);
}

std::string RankCoverage::no_golden_text() const {
  if (no_golden == 0) return {};
  std::string ops;
  for (const auto& op : no_golden_ops) ops += (ops.empty() ? "" : ", ") + op;
  return std::to_string(no_golden) + " of my " + std::to_string(my_tensors) + " tensors " +
         (no_golden == 1 ? "has" : "have") + " no golden counterpart (" + ops +
         (no_golden_ops.size() >= kOpsNamed ? ", ..." : "") + ")";
}

bool Coverage::gaps_in_mine() const {
  if (!my_only_ranks.empty() || !my_only_parts.empty()) return true;
  return std::any_of(ranks.begin(), ranks.end(),
                     [](const RankCoverage& r) { return !r.my_only_tokens.empty() || r.no_golden > 0; });
}

bool Coverage::unlike() const {
  size_t mine = 0, odd = 0;
  for (const RankCoverage& r : ranks) {
    mine += r.my_tensors;
    odd += r.no_golden + r.shape_mismatch;
  }
  return mine > 0 && odd * 2 > mine;
}

std::vector<std::string> Coverage::lines() const {
  std::vector<std::string> out;
  for (const std::string& part : my_only_parts)
    out.push_back(part + " of --my-path not in --golden-path: not compared");
  if (!my_only_ranks.empty())
    out.push_back(plural(my_only_ranks.size(), "rank") + ids(my_only_ranks) +
                  " of --my-path not in --golden-path: not compared");
  if (!golden_only_ranks.empty())
    out.push_back(plural(golden_only_ranks.size(), "rank") + ids(golden_only_ranks) +
                  " of --golden-path not in --my-path: not compared");
  for (const RankCoverage& r : ranks) {
    if (!r.my_only_tokens.empty())
      out.push_back(rank_prefix(r) + plural(r.my_only_tokens.size(), token_word.c_str()) + ids(r.my_only_tokens) +
                    " of --my-path not in --golden-path: not compared");
    if (!r.golden_only_tokens.empty())
      out.push_back(rank_prefix(r) + plural(r.golden_only_tokens.size(), token_word.c_str()) +
                    ids(r.golden_only_tokens) + " of --golden-path not in --my-path: not compared");
    if (r.no_golden > 0) out.push_back(rank_prefix(r) + r.no_golden_text() + ": not compared");
    if (r.shape_mismatch > 0 && unlike())
      out.push_back(rank_prefix(r) + std::to_string(r.shape_mismatch) + " of my " + std::to_string(r.my_tensors) +
                    " tensors have a golden counterpart of another shape");
  }
  return out;
}

std::string Coverage::note() const {
  std::string out;
  for (const std::string& l : lines()) out += (out.empty() ? "" : "; ") + l;
  return out;
}

}  // namespace msit
