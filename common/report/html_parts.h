// The pieces both HTML reports build their pages from (html_report.cpp): a row as the page's
// JSON object, text made safe for HTML and for an inline <script>, and a page's head and tail.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/report/report_row.h"

namespace msit::html {

// The row as the pages' scripts read it; index: its position in its rank's report.
nlohmann::json row_json(const ReportRow& r, std::optional<int64_t> rank, size_t index);
// JSON text for inside <script>: "</" would end the element and "<!--" would open a comment.
std::string script_safe(const nlohmann::json& j);
std::string escape(const std::string& s);
// Everything before the page's own body: doctype, title, style, the <h1>; `above` is HTML put
// right under the heading (a link back to the overview).
std::string page_head(const std::string& title, const char* style, const std::string& above = {});
// The list of what was not compared (Coverage::lines()), empty when there is nothing to list.
std::string coverage_div(const std::vector<std::string>& gaps);
// The one-rank/token page's containers and its error hook, then the opening of its data element.
std::string rows_page_body_open();
// The overview's containers (html_pages.h) and its error hook; its data elements follow.
std::string overview_body_open();
// After the data: the script and the end of the page.
std::string rows_page_close();

}  // namespace msit::html
