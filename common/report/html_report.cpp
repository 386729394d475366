// The HTML report: the rows as one JSON array in the page, drawn by the inline script.
#include "common/report/html_report.h"

#include <cmath>

#include <nlohmann/json.hpp>

#include "common/report/op_label.h"
#include "common/report/report_columns.h"

namespace msit {
namespace {

nlohmann::json number(const std::optional<double>& v) {
  if (!v || !std::isfinite(*v)) return nullptr;
  return *v;
}

std::string base_name(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

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

// JSON inside <script>: "</" would end the element and "<!--" would open a comment.
std::string script_safe(std::string s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '<') out += "\\u003c";
    else out.push_back(s[i]);
  }
  return out;
}

std::string html_escape(const std::string& s) {
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

}  // namespace

std::string html_report(const std::vector<HtmlRank>& ranks, const std::string& title) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& hr : ranks) {
    if (!hr.rows) continue;
    for (size_t i = 0; i < hr.rows->size(); ++i) rows.push_back(row_json((*hr.rows)[i], hr.rank, i));
  }
  std::string page =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>msit-compact compare: " +
      html_escape(title) + "</title>\n<style>" + kHtmlStyle + "</style></head>\n<body>\n<h1>" + html_escape(title) +
      "</h1>\n";
  page +=
      "<div id=\"controls\"></div><div id=\"summary\"></div><div id=\"plots\"></div>"
      "<div id=\"detail\">Hover or click a point for its details.</div><div id=\"tip\"></div>"
      "<div id=\"table\"></div>\n";
  page += "<script>window.onerror=function(m){document.body.setAttribute('data-js-error',String(m));};</script>\n";
  page += "<script id=\"data\" type=\"application/json\">" +
          script_safe(rows.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)) + "</script>\n<script>" +
          kHtmlScript + "</script>\n</body></html>\n";
  return page;
}

}  // namespace msit
