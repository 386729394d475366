// The first-divergence rule on rows judged from statistics alone (kStatsMovedFactor in
// divergence.h): which output upstream of a name had statistics that moved.
#include "common/compare/divergence.h"
#include "common/compare/divergence_detail.h"

namespace msit::divergence_detail {

template <class Row>
double StatsUpstream<Row>::median() const {
  if (low_.size() > high_.size()) return low_.top();
  return 0.5 * (low_.top() + high_.top());
}

template <class Row>
void StatsUpstream<Row>::add(const Row& r, double level) {
  if (r.compare_mode != MetricSource::kStats) return;
  // A running median in two heaps: msProbe flows hold up to millions of rows.
  if (low_.empty() || level <= low_.top()) low_.push(level);
  else high_.push(level);
  if (low_.size() > high_.size() + 1) high_.push(low_.top()), low_.pop();
  if (high_.size() > low_.size()) low_.push(high_.top()), high_.pop();
  if (!moved_ && level > kStatsMovedFactor * median()) moved_ = &r;
}

template class StatsUpstream<ReportRow>;
template class StatsUpstream<JumpRow>;

}  // namespace msit::divergence_detail
