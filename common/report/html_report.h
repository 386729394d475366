// One self-contained HTML page (inline CSS/JS, no network) with cosine and RED along execution
// order per rank/token, the first divergence and failures marked, details on hover/click, an
// op-type filter and a sortable table: the ATB/torch flows' --html, and each token's page of the
// streamed report (html_pages.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/report/report_row.h"

namespace msit {

struct HtmlRank {
  std::optional<int64_t> rank;
  const std::vector<ReportRow>* rows = nullptr;
};

// title: what was compared (mode, paths), shown at the top of the page. gaps: what was not
// compared (Coverage::lines(), docs/compare.md "Coverage"), listed under it when there are any.
std::string html_report(const std::vector<HtmlRank>& ranks, const std::string& title,
                        const std::vector<std::string>& gaps = {});

// The page's script and style (html_assets.cpp), kept apart from the data code.
extern const char* const kHtmlStyle;
extern const char* const kHtmlScript;
// The overview page's script (html_overview_assets.cpp, html_pages.h).
extern const char* const kHtmlOverviewScript;

}  // namespace msit
