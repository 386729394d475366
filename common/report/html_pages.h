// `compare --html FILE` at any size (docs/compare.md "HTML report"): an overview page FILE (the
// first divergences, per-token and per-op-type aggregates, the worst rows) and one page per
// rank/token in the directory beside it, each written as its rows arrive: memory and the
// overview's size do not grow with the number of rows.
#pragma once

#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "common/base/result.h"
#include "common/io/output_file.h"
#include "common/report/report_row.h"

namespace msit {

class HtmlPages {
 public:
  // The rows with the largest RED the overview lists.
  static constexpr size_t kWorstRows = 100;

  // page: the overview's path; the token pages go to tokens_dir_of(page). Nothing is created yet.
  static Result<HtmlPages> create(const std::string& page);
  // "report.html" -> "report.tokens": the directory of the token pages, beside the overview.
  static std::string tokens_dir_of(const std::string& page);

  HtmlPages(HtmlPages&&) noexcept = default;
  HtmlPages& operator=(HtmlPages&&) = delete;  // as OutputFile
  ~HtmlPages() = default;

  void begin_rank(std::optional<int64_t> rank);
  // The next rows of the rank in report order; a token's page is published when the next token
  // (or the rank's end) comes.
  Status rows(const std::vector<ReportRow>& rows);
  Status end_rank();
  // The overview, published last. title: what was compared; gaps: Coverage::lines(); failure:
  // why the compare stopped, when it failed after token pages were published (the overview
  // then says so above everything and covers the tokens written before it).
  Status finish(const std::string& title, const std::vector<std::string>& gaps, const std::string& failure = {});

  const std::string& tokens_dir() const { return dir_; }
  uint64_t pages() const { return pages_; }

 private:
  struct FileCloser {
    void operator()(std::FILE* f) const { (void)std::fclose(f); }
  };
  struct TypeTotals {
    uint64_t rows = 0, fails = 0, with_red = 0;
    double red_sum = 0, red_max = -1, cos_min = 2;
  };
  struct Token {  // the open token page and its aggregates
    int64_t token = 0;
    std::optional<OutputFile> page;
    std::string href;
    uint64_t rows = 0, fails = 0;
    double red_max = -1, cos_min = 2, floor = 0;
    std::string first, suspect;  // the rows' JSON
  };
  HtmlPages(std::string page, std::string dir, std::FILE* spool)
      : page_(std::move(page)), dir_(std::move(dir)), spool_(spool) {}
  Status open_token(int64_t token);
  Status close_token();
  void add_worst(const ReportRow& r, size_t index);

  std::string page_, dir_;
  std::unique_ptr<std::FILE, FileCloser> spool_;  // the overview's token entries, in order
  std::optional<int64_t> rank_;
  size_t index_ = 0;  // the next row's position in its rank's report
  std::optional<Token> open_;
  std::set<std::string> names_;  // page names used (a token met again gets a second page)
  std::map<std::string, TypeTotals> types_;
  std::vector<std::pair<double, std::string>> worst_;  // a min-heap on RED of row JSON
  uint64_t pages_ = 0, rows_ = 0, tokens_ = 0;
  bool dir_made_ = false;
};

}  // namespace msit
