// The compare_mode cell is typed (common/report/row_cells.h MetricSource): each value prints its
// own text, the texts are the ones the reports always had, and kNone prints an empty cell.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "common/report/row_cells.h"

TEST(MetricSource, EachValueHasItsOwnText) {
  using msit::MetricSource;
  EXPECT_EQ(msit::metric_source_text(MetricSource::kNone), "");
  EXPECT_EQ(msit::metric_source_text(MetricSource::kExact), "exact");
  EXPECT_EQ(msit::metric_source_text(MetricSource::kHash), "hash");
  EXPECT_EQ(msit::metric_source_text(MetricSource::kSketch), "sketch");
  EXPECT_EQ(msit::metric_source_text(MetricSource::kStats), "stats");
  std::set<std::string> texts;
  for (auto m :
       {MetricSource::kNone, MetricSource::kExact, MetricSource::kHash, MetricSource::kSketch, MetricSource::kStats})
    texts.insert(std::string(msit::metric_source_text(m)));
  EXPECT_EQ(texts.size(), 5u);
}
