// What a compare could not pair (docs/compare.md "Coverage"): ranks, tokens and tensors of one
// side without a counterpart on the other. Part of the verdict: what of my run was not
// compared could hold the divergence (exit 4), and two trees that mostly do not pair are not
// two runs of one model (exit 3).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/report/report_row.h"

namespace msit {

struct RankCoverage {
  std::optional<int64_t> rank;
  std::vector<int64_t> my_only_tokens, golden_only_tokens;
  size_t my_tensors = 0;                   // rows about a tensor of mine (every row but those of golden-only data)
  size_t no_golden = 0;                    // of them: rows whose golden partner is missing (RowProblem::kNoGolden)
  size_t shape_mismatch = 0;               // of them: paired rows of different shapes
  std::vector<std::string> no_golden_ops;  // the first few ops without a golden partner, by name
  // Counts the rows of one rank's report (after evaluation).
  void count(const std::vector<ReportRow>& rows);
  // Counts one row: the rule of count(), for a caller that counts a token at a time (the live
  // comparer, docs/live-divergence.md "Coverage").
  void count_row(const ReportRow& r);
  // Counts one tensor of mine, `op` naming it: the flows whose rows are not ReportRows (msProbe)
  // count through here.
  void add(bool without_golden, bool other_shape, const std::string& op);
  // Adds the tensor counts of `o` (another report of the same rank: an msProbe step).
  void add_counts(const RankCoverage& o);
  // The tensors without golden partner in a few words, "" when there are none: "3 of my 40
  // tensors have no golden counterpart (A, B, C)" (the first ops named, "..." when there are more).
  std::string no_golden_text() const;
};

struct Coverage {
  std::vector<int64_t> my_only_ranks, golden_only_ranks;
  std::vector<RankCoverage> ranks;
  // Parts of my dump the golden has no counterpart for as a whole ("the graph half D/graph (jit
  // cells)" of an msProbe split against one run's tree).
  std::vector<std::string> my_only_parts;
  // What a token is called in the lines: msProbe's are steps.
  std::string token_word = "token";
  // What else to check when the trees look unlike, after --golden-path (msProbe: its options
  // that pair APIs named differently).
  std::string unlike_hint;

  // Something of my run was not compared: a rank or token of mine without golden, or tensors
  // of mine without their golden partner. It could hold the divergence.
  bool gaps_in_mine() const;
  // Most of my tensors found no partner of the same shape: not two runs of one model.
  bool unlike() const;
  // One line per gap, for the terminal and the live log ("rank 1 of --my-path has no golden
  // counterpart: not compared").
  std::vector<std::string> lines() const;
  // The same in one line, for the reports' note ("" when nothing is missing).
  std::string note() const;
};

// The sorted values of `a` not in `b`.
std::vector<int64_t> only_in(const std::vector<int64_t>& a, const std::vector<int64_t>& b);

}  // namespace msit
