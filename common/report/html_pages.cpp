// The streamed HTML report: each token's rows go straight into its own page, the overview keeps
// bounded aggregates (per op type, the worst rows) and spools one entry per token to a temp file.
#include "common/report/html_pages.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>

#include "common/io/path_name.h"
#include "common/report/html_parts.h"
#include "common/report/html_report.h"
#include "common/report/op_label.h"

namespace msit {
namespace {

bool finite(const OptDouble& v) { return v.has_value() && std::isfinite(*v); }

Status spool_error(const std::string& page) {
  return make_error(page, Stage::kWrite,
                    std::string("cannot write the HTML overview's temp file: ") + std::strerror(errno) +
                        "; check the space in the temp directory ($TMPDIR)");
}

bool worst_less(const std::pair<double, std::string>& a, const std::pair<double, std::string>& b) {
  return a.first > b.first;  // std heap functions keep the largest first: ours keeps the smallest RED first
}

nlohmann::json number(double v, double none) { return v == none ? nlohmann::json(nullptr) : nlohmann::json(v); }

}  // namespace

std::string HtmlPages::tokens_dir_of(const std::string& page) {
  std::filesystem::path p(page);
  std::string stem = p.extension() == ".html" || p.extension() == ".htm" ? p.stem().string() : p.filename().string();
  return (p.parent_path() / (stem + ".tokens")).string();
}

Result<HtmlPages> HtmlPages::create(const std::string& page) {
  std::FILE* spool = std::tmpfile();
  if (!spool) return spool_error(page).error();
  return HtmlPages(page, tokens_dir_of(page), spool);
}

void HtmlPages::begin_rank(std::optional<int64_t> rank) {
  rank_ = rank;
  index_ = 0;
}

Status HtmlPages::open_token(int64_t token) {
  if (!dir_made_) {
    if (auto dir = open_output_dir(dir_); !dir.ok()) return dir.error();
    dir_made_ = true;
  }
  std::string name = (rank_ ? "rank" + std::to_string(*rank_) + "_" : std::string()) + "token" + std::to_string(token);
  for (int part = 2; names_.count(name + ".html"); ++part) name += "_" + std::to_string(part);
  name += ".html";
  names_.insert(name);
  Token t;
  t.token = token;
  t.href = base_name(dir_) + "/" + name;
  MSIT_ASSIGN_OR_RETURN(OutputFile out, OutputFile::create((std::filesystem::path(dir_) / name).string()));
  t.page.emplace(std::move(out));
  std::string title =
      (rank_ ? "rank " + std::to_string(*rank_) + " " : std::string()) + "token " + std::to_string(token);
  std::string back =
      "<p><a id=\"overview\" href=\"../" + html::escape(base_name(page_)) + "\">overview of every token</a></p>\n";
  MSIT_TRY(t.page->write(html::page_head(title, kHtmlStyle, back) + html::rows_page_body_open() + "["));
  open_.emplace(std::move(t));
  return ok_status();
}

Status HtmlPages::close_token() {
  if (!open_) return ok_status();
  Token& t = *open_;
  MSIT_TRY(t.page->write("]" + html::rows_page_close()));
  MSIT_TRY(t.page->commit());
  ++pages_;
  nlohmann::json e = {{"rank", rank_ ? nlohmann::json(*rank_) : nlohmann::json(nullptr)},
                      {"token", t.token},
                      {"href", t.href},
                      {"rows", t.rows},
                      {"fails", t.fails},
                      {"red_max", number(t.red_max, -1)},
                      {"cos_min", number(t.cos_min, 2)},
                      {"floor", t.floor > 0 ? nlohmann::json(t.floor) : nlohmann::json(nullptr)}};
  std::string entry = (tokens_++ ? ",\n" : "") + html::script_safe(e);
  // The rows' JSON is already script-safe text: spliced in as is.
  entry.pop_back();
  entry += ",\"first\":" + (t.first.empty() ? std::string("null") : t.first) +
           ",\"suspect\":" + (t.suspect.empty() ? std::string("null") : t.suspect) + "}";
  if (std::fwrite(entry.data(), 1, entry.size(), spool_.get()) != entry.size()) return spool_error(page_);
  open_.reset();
  return ok_status();
}

void HtmlPages::add_worst(const ReportRow& r, size_t index) {
  const double red = *r.red;
  if (worst_.size() == kWorstRows && red <= worst_.front().first) return;
  nlohmann::json j = html::row_json(r, rank_, index);
  j["href"] = open_->href;
  if (worst_.size() == kWorstRows) {
    std::pop_heap(worst_.begin(), worst_.end(), worst_less);
    worst_.pop_back();
  }
  worst_.emplace_back(red, html::script_safe(j));
  std::push_heap(worst_.begin(), worst_.end(), worst_less);
}

Status HtmlPages::rows(const std::vector<ReportRow>& rows) {
  std::string buf;
  for (const ReportRow& r : rows) {
    if (!open_ || open_->token != r.token_id) {
      if (open_) MSIT_TRY(open_->page->write(buf));
      buf.clear();
      MSIT_TRY(close_token());
      MSIT_TRY(open_token(r.token_id));
    }
    Token& t = *open_;
    const size_t index = index_++;
    nlohmann::json j = html::row_json(r, rank_, index);
    std::string text = html::script_safe(j);
    if (t.rows++) buf += ',';
    buf += text;
    ++rows_;
    const bool fail = r.verdict == Verdict::kFail;
    t.fails += fail;
    TypeTotals& ty = types_[row_label(r).op_type];
    ++ty.rows;
    ty.fails += fail;
    if (finite(r.red)) {
      t.red_max = std::max(t.red_max, *r.red);
      ty.red_max = std::max(ty.red_max, *r.red);
      ty.red_sum += *r.red;
      ++ty.with_red;
      add_worst(r, index);
    }
    if (finite(r.cosine)) {
      t.cos_min = std::min(t.cos_min, *r.cosine);
      ty.cos_min = std::min(ty.cos_min, *r.cosine);
    }
    if (finite(r.detection_floor)) t.floor = std::max(t.floor, *r.detection_floor);
    if (r.jump == ReportRow::Jump::kFirst && t.first.empty()) t.first = text;
    if (r.jump == ReportRow::Jump::kSuspect && t.suspect.empty()) t.suspect = text;
    if (buf.size() >= (1u << 20)) {
      MSIT_TRY(t.page->write(buf));
      buf.clear();
    }
  }
  if (open_ && !buf.empty()) MSIT_TRY(open_->page->write(buf));
  return ok_status();
}

Status HtmlPages::end_rank() { return close_token(); }

Status HtmlPages::finish(const std::string& title, const std::vector<std::string>& gaps, const std::string& failure) {
  MSIT_TRY(close_token());
  MSIT_ASSIGN_OR_RETURN(OutputFile out, OutputFile::create(page_));
  const std::string failed =
      failure.empty() ? std::string()
                      : "<div id=\"failed\"><b>The compare failed</b>: " + html::escape(failure) +
                            ". No CSV or JSON report was written; this overview and its token pages hold the " +
                            std::to_string(tokens_) + " token(s) compared before the failure.</div>\n";
  MSIT_TRY(out.write(html::page_head(title, kHtmlStyle) + failed + html::coverage_div(gaps) +
                     html::overview_body_open() + "<script id=\"tokens-data\" type=\"application/json\">["));
  if (std::fflush(spool_.get()) != 0 || std::fseek(spool_.get(), 0, SEEK_SET) != 0) return spool_error(page_);
  std::string chunk(1 << 20, '\0');
  for (size_t n; (n = std::fread(chunk.data(), 1, chunk.size(), spool_.get())) > 0;) {
    MSIT_TRY(out.write(std::string_view(chunk.data(), n)));
  }
  if (std::ferror(spool_.get())) return spool_error(page_);
  nlohmann::json types = nlohmann::json::array();
  for (const auto& [type, s] : types_) {
    types.push_back({{"type", type},
                     {"rows", s.rows},
                     {"fails", s.fails},
                     {"red_max", number(s.red_max, -1)},
                     {"red_mean", s.with_red ? nlohmann::json(s.red_sum / static_cast<double>(s.with_red)) : nullptr},
                     {"cos_min", number(s.cos_min, 2)}});
  }
  std::sort(worst_.begin(), worst_.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::string worst = "[";
  for (size_t i = 0; i < worst_.size(); ++i) worst += (i ? "," : "") + worst_[i].second;
  nlohmann::json totals = {{"rows", rows_}, {"tokens", tokens_}, {"worst_limit", kWorstRows}};
  MSIT_TRY(out.write("]</script>\n<script id=\"types-data\" type=\"application/json\">" + html::script_safe(types) +
                     "</script>\n<script id=\"worst-data\" type=\"application/json\">" + worst +
                     "]</script>\n<script id=\"totals-data\" type=\"application/json\">" + html::script_safe(totals) +
                     "</script>\n<script>" + kHtmlOverviewScript + "</script>\n</body></html>\n"));
  return out.commit();
}

}  // namespace msit
