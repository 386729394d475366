// The single-page HTML report (every row as one JSON array in the page, drawn by the inline
// script) and the page parts the per-token pages share with it (html_parts.h).
#include "common/report/html_report.h"

#include <cmath>

#include "common/io/path_name.h"
#include "common/report/html_parts.h"
#include "common/report/op_label.h"
#include "common/report/report_columns.h"

namespace msit {
namespace html {
namespace {

nlohmann::json number(const std::optional<double>& v) {
  if (!v || !std::isfinite(*v)) return nullptr;
  return *v;
}

}  // namespace

nlohmann::json row_json(const ReportRow& r, std::optional<int64_t> rank, size_t index) {
  const TensorLabel& l = row_label(r);
  // ATB vs torch: the golden side names another op (the torch module).
  bool both = r.my_label.known() && r.golden_label.known() && r.golden_label.op != r.my_label.op;
  nlohmann::json j = {{"rank", rank ? nlohmann::json(*rank) : nlohmann::json(nullptr)},
                      {"token", r.token_id},
                      {"i", index},
                      {"name", l.known() ? l.op : base_name(row_file(r, false))},
                      {"type", l.op_type},
                      {"tensor", tensor_text(l)},
                      {"vs", both ? label_text(r.golden_label) : std::string()},
                      {"my", base_name(r.my_data_path)},
                      {"golden", base_name(r.golden_data_path)}};
  if (!r.recompute.empty()) j["recompute"] = r.recompute;  // compare --recompute: opcheck's verdicts
  // The report columns the page shows (kReportColumns' html keys): text as is (the page
  // escapes it), numbers that are not finite as null.
  for_each_report_column(r, [&](auto col, const auto& v) {
    constexpr ReportColumn c = kReportColumns[col];
    if constexpr (!c.html_key.empty()) {
      if constexpr (c.kind == CellKind::kReal) j[std::string(c.html_key)] = number(v);
      else if constexpr (c.kind == CellKind::kText || c.kind == CellKind::kWord)
        j[std::string(c.html_key)] = std::string(v);
      else static_assert(col() != col(), "a cell kind the HTML page cannot show");
    }
  });
  return j;
}

std::string script_safe(const nlohmann::json& j) {
  const std::string s = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '<') out += "\\u003c";
    else out.push_back(s[i]);
  }
  return out;
}

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '"': out += "&quot;"; break;
      default: out.push_back(c);
    }
  }
  return out;
}

std::string page_head(const std::string& title, const char* style, const std::string& above) {
  return "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>msit-compact compare: " +
         escape(title) + "</title>\n<style>" + style + "</style></head>\n<body>\n" + above + "<h1>" + escape(title) +
         "</h1>\n";
}

// The page shows what was compared; what was not (a rank or token without counterpart) is part
// of the verdict and is said before it (issue 40 case 2).
std::string coverage_div(const std::vector<std::string>& gaps) {
  if (gaps.empty()) return {};
  std::string out = "<div id=\"coverage\"><b>Not compared</b> (what is missing from one side):<ul>";
  for (const std::string& g : gaps) out += "<li>" + escape(g) + "</li>";
  return out + "</ul></div>\n";
}

std::string rows_page_body_open() {
  return "<div id=\"controls\"></div><div id=\"summary\"></div><div id=\"plots\"></div>"
         "<div id=\"detail\">Hover or click a point for its details.</div><div id=\"tip\"></div>"
         "<div id=\"table\"></div>\n"
         "<script>window.onerror=function(m){document.body.setAttribute('data-js-error',String(m));};</script>\n"
         "<script id=\"data\" type=\"application/json\">";
}

std::string overview_body_open() {
  return "<div id=\"summary\"></div><div id=\"first\"></div><div id=\"tokens\"></div><div id=\"types\"></div>"
         "<div id=\"worst\"></div>\n"
         "<script>window.onerror=function(m){document.body.setAttribute('data-js-error',String(m));};</script>\n";
}

std::string rows_page_close() {
  return std::string("</script>\n<script>") + kHtmlScript + "</script>\n</body></html>\n";
}

}  // namespace html

std::string html_report(const std::vector<HtmlRank>& ranks, const std::string& title,
                        const std::vector<std::string>& gaps) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& hr : ranks) {
    if (!hr.rows) continue;
    for (size_t i = 0; i < hr.rows->size(); ++i) rows.push_back(html::row_json((*hr.rows)[i], hr.rank, i));
  }
  return html::page_head(title, kHtmlStyle) + html::coverage_div(gaps) + html::rows_page_body_open() +
         html::script_safe(rows) + html::rows_page_close();
}

}  // namespace msit
