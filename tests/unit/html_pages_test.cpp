// The streamed HTML report (common/report/html_pages.h): one page per token however the rows are
// batched, links from the overview that reach them, bounded aggregates, escaped text.
#include <gtest/gtest.h>

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/report/html_pages.h"
#include "common/report/op_label.h"

namespace fs = std::filesystem;

namespace {

struct Dir {
  fs::path path;
  Dir() {
    std::string tmpl = (fs::temp_directory_path() / "msit-html-XXXXXX").string();
    path = mkdtemp(tmpl.data());
  }
  ~Dir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

msit::ReportRow row(int64_t token, int k, double red) {
  msit::ReportRow r;
  r.token_id = token;
  r.my_data_path = "/d/ge/Add.Add_" + std::to_string(k) + ".1.1.1,outputs,0";
  r.golden_data_path = "/d/fx/add_" + std::to_string(k) + "-aten.add.Tensor.OUTPUT.0.1.npy";
  r.my_label = {"Add_" + std::to_string(k), k % 2 ? "Add" : "Mul", msit::TensorRole::kOutput, 0};
  r.red = red;
  r.cosine = 1 - red;
  r.verdict = red > 0.5 ? msit::Verdict::kFail : msit::Verdict::kPass;
  return r;
}

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST(HtmlPages, OnePagePerTokenLinkedFromTheOverview) {
  Dir d;
  const fs::path page = d.path / "out" / "report.html";
  EXPECT_EQ(msit::HtmlPages::tokens_dir_of(page.string()), (d.path / "out" / "report.tokens").string());
  auto pages = msit::HtmlPages::create(page.string());
  ASSERT_TRUE(pages.ok()) << pages.error().to_string();
  pages->begin_rank(3);
  // Token 0 spans two batches; token 1 starts in the second; 150 rows with RED in all.
  std::vector<msit::ReportRow> a, b;
  for (int k = 0; k < 60; ++k) a.push_back(row(0, k, k / 1000.0));
  for (int k = 60; k < 100; ++k) b.push_back(row(0, k, k / 1000.0));
  for (int k = 0; k < 50; ++k) b.push_back(row(1, k, k == 7 ? 0.9 : k / 2000.0));
  b.back().jump = msit::ReportRow::Jump::kFirst;
  b.back().note = "</script><script>alert(1)</script><!--";
  ASSERT_TRUE(pages->rows(a).ok());
  ASSERT_TRUE(pages->rows(b).ok());
  ASSERT_TRUE(pages->end_rank().ok());
  ASSERT_TRUE(pages->finish("GE vs FX: <a> & b", {"token 9 of <mine>: not compared"}).ok());
  EXPECT_EQ(pages->pages(), 2u);

  const std::string overview = read(page);
  EXPECT_EQ(overview.find("<script>alert"), std::string::npos);
  EXPECT_EQ(overview.find("<!--"), std::string::npos);
  EXPECT_NE(overview.find("GE vs FX: &lt;a&gt; &amp; b"), std::string::npos);
  EXPECT_NE(overview.find("<li>token 9 of &lt;mine&gt;: not compared</li>"), std::string::npos);
  EXPECT_EQ(overview.find(" src="), std::string::npos);
  EXPECT_EQ(overview.find("id=\"failed\""), std::string::npos);
  for (const char* t : {"rank3_token0.html", "rank3_token1.html"}) {
    EXPECT_TRUE(fs::is_regular_file(d.path / "out" / "report.tokens" / t)) << t;
    EXPECT_NE(overview.find(std::string("\"href\":\"report.tokens/") + t + "\""), std::string::npos) << t;
  }
  // The overview keeps the worst 100 rows of 150, not the rows: the worst one first.
  const size_t worst = overview.find("<script id=\"worst-data\"");
  ASSERT_NE(worst, std::string::npos);
  EXPECT_EQ(count(overview.substr(worst), "\"token\":"), msit::HtmlPages::kWorstRows);
  EXPECT_EQ(overview.find("\"red\":", worst), overview.find("\"red\":0.9", worst));
  EXPECT_NE(overview.find("\"rows\":75,\"type\":\"Mul\""), std::string::npos);  // keys in order
  // Each token's page holds its own rows (all 100 of token 0, across the batches) and links back.
  const std::string t0 = read(d.path / "out" / "report.tokens" / "rank3_token0.html");
  const std::string t1 = read(d.path / "out" / "report.tokens" / "rank3_token1.html");
  EXPECT_EQ(count(t0, "\"token\":0"), 100u);
  EXPECT_EQ(count(t1, "\"token\":1"), 50u);
  EXPECT_EQ(count(t1, "\"token\":0"), 0u);
  EXPECT_NE(t0.find("<a id=\"overview\" href=\"../report.html\">"), std::string::npos);
  EXPECT_EQ(t1.find("<script>alert"), std::string::npos);
  EXPECT_NE(t1.find("\"divergence\":\"first\""), std::string::npos);
}

// A token met again later in the rank (not in one run) gets a page of its own, not replaced.
TEST(HtmlPages, ATokenMetAgainGetsASecondPage) {
  Dir d;
  auto pages = msit::HtmlPages::create((d.path / "r").string());
  ASSERT_TRUE(pages.ok());
  pages->begin_rank(std::nullopt);
  std::vector<msit::ReportRow> rows = {row(4, 1, 0.1), row(5, 1, 0.1), row(4, 2, 0.2)};
  ASSERT_TRUE(pages->rows(rows).ok());
  ASSERT_TRUE(pages->end_rank().ok());
  ASSERT_TRUE(pages->finish("t", {}).ok());
  EXPECT_EQ(pages->pages(), 3u);
  for (const char* t : {"token4.html", "token5.html", "token4_2.html"})
    EXPECT_TRUE(fs::is_regular_file(d.path / "r.tokens" / t)) << t;
}

// A compare that fails after token pages were published (cli/compare.cpp write_failed_html): the
// overview still comes, over the pages written (the open token's included), headed by the failure,
// escaped.
TEST(HtmlPages, AFailedCompareHeadsTheOverviewWithTheFailure) {
  Dir d;
  auto pages = msit::HtmlPages::create((d.path / "r.html").string());
  ASSERT_TRUE(pages.ok());
  pages->begin_rank(0);
  std::vector<msit::ReportRow> rows = {row(0, 1, 0.1), row(0, 2, 0.2), row(1, 1, 0.3)};
  ASSERT_TRUE(pages->rows(rows).ok());  // token 1 still open: the rank never ended
  ASSERT_TRUE(pages->finish("compare: a vs b (failed)", {}, "x.npy: bad header <b>&</b>").ok());
  const std::string overview = read(d.path / "r.html");
  const size_t failed = overview.find(
      "<div id=\"failed\"><b>The compare failed</b>: x.npy: bad header "
      "&lt;b&gt;&amp;&lt;/b&gt;. No CSV or JSON report was written");
  ASSERT_NE(failed, std::string::npos);
  EXPECT_NE(overview.find("the 2 token(s) compared before the failure", failed), std::string::npos);
  EXPECT_LT(failed, overview.find("<script id=\"tokens-data\""));
  for (const char* t : {"rank0_token0.html", "rank0_token1.html"}) {
    EXPECT_TRUE(fs::is_regular_file(d.path / "r.tokens" / t)) << t;
    EXPECT_NE(overview.find(std::string("\"href\":\"r.tokens/") + t + "\""), std::string::npos) << t;
  }
}
