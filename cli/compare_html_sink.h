// `compare --html` of the torchair flows: the rows go to the streamed HTML pages (token pages
// written as they come, common/report/html_pages.h) and then on to the other reports' sink.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/compare/row_sink.h"
#include "common/report/html_pages.h"

namespace msit::cli {

class HtmlTeeSink : public RowSink {
 public:
  HtmlTeeSink(HtmlPages& pages, RowSink& next) : pages_(pages), next_(next) {}
  Status begin_compare(const std::string& report_prefix) override { return next_.begin_compare(report_prefix); }
  Status begin_rank(const RankInfo& rank) override {
    pages_.begin_rank(rank.rank);
    return next_.begin_rank(rank);
  }
  // The pages read the rows before the next sink, which may move from them.
  Status rows(std::vector<ReportRow>& rows) override {
    if (Status st = pages_.rows(rows); !st.ok()) return fail(st);
    return next_.rows(rows);
  }
  Status end_rank(const RankInfo& rank) override {
    if (Status st = pages_.end_rank(); !st.ok()) return fail(st);
    return next_.end_rank(rank);
  }
  // The error of the pages themselves (a file), which the compare then returned.
  const std::optional<Error>& failed() const { return failed_; }

 private:
  Status fail(Status st) {
    if (!failed_) failed_ = st.error();
    return st;
  }
  HtmlPages& pages_;
  RowSink& next_;
  std::optional<Error> failed_;
};

}  // namespace msit::cli
