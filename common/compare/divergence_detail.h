// Between the two passes of the first-divergence rule over one token (divergence.cpp finds
// each output's inputs' error, divergence_floor.cpp learns the floors and marks the jumps).
#pragma once

#include <cstddef>
#include <functional>
#include <queue>
#include <vector>

#include "common/compare/jump_row.h"
#include "common/report/report_row.h"

namespace msit::divergence_detail {

// One output row as the rule sees it.
struct Out {
  size_t row;
  double level;
  // The error its op's inputs carry (at least the rounding floor): `own`, their levels combined,
  // is what the learned statistics compare outputs with (gain, noise, spread); `reached`, each
  // input taken at the larger of its level and what reached the op that made it, is what this
  // output is judged against (an error diluted one op earlier is still there).
  double own, reached;
  double floor;       // the rounding floor of the row's dtypes
  bool copy;          // output error bit-identical to its input's: a copy (reshape, view)
  bool blocked;       // a discrete input of its op differs: not judged
  uint64_t elements;  // the pair's element count (0: not known)
  double excess() const { return level * level - own * own; }
};

// The outputs judged from statistics (divergence_stats.cpp, kStatsMovedFactor), given in
// execution order after each is judged: the first whose statistics moved, its level over
// kStatsMovedFactor times the median level of the statistics outputs given up to it.
template <class Row>
class StatsUpstream {
 public:
  void add(const Row& r, double level);
  const Row* moved() const { return moved_; }

 private:
  double median() const;
  std::priority_queue<double> low_;                                        // the lower half
  std::priority_queue<double, std::vector<double>, std::greater<>> high_;  // the upper half
  const Row* moved_ = nullptr;
};

// Pass 2 over the outputs of one token, in execution order: the type gains, noise floors,
// margins and detection floors, and the marks (first, jump, suspect).
// Row: ReportRow or JumpRow (both instantiated in divergence_floor.cpp).
template <class Row>
void judge_token(std::vector<Row>& rows, const std::vector<Out>& outs);

}  // namespace msit::divergence_detail
