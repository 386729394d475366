// The report's column table (common/report/report_columns.h): every row of kReportColumns is a
// column of every writer, in table order, with the row's own value in its cell: the CSV header
// and cells, the JSON twin, the column lists the xlsx and legacy writers take, and the HTML page.
#include "common/report/report_columns.h"

#include <gtest/gtest.h>

#include <set>

#include <nlohmann/json.hpp>

#include "common/report/csv.h"
#include "common/report/html_report.h"

namespace {

using msit::CellKind;
using msit::kReportColumnCount;
using msit::kReportColumns;

// A row whose every cell differs from the others and is not empty.
msit::ReportRow distinct_row() {
  msit::ReportRow r;
  r.token_id = 7;
  r.data_id = 11;
  r.golden_data_path = "/g/a.npy";
  r.golden_op_type = "MatMul";
  r.golden_dtype = {msit::DType::kFloat16, {}};
  r.golden_shape = "[6]";  // no comma: the test splits lines at commas
  r.my_data_path = "/m/a.bin";
  r.my_op_type = "MatMulV2";
  r.my_dtype = {msit::DType::kFloat32, {}};
  r.my_shape = "[8]";
  double x = 1.0;
  for (msit::OptDouble* d : {&r.golden_max, &r.golden_min, &r.golden_mean, &r.my_max, &r.my_min, &r.my_mean, &r.cosine,
                             &r.max_rel, &r.mean_rel, &r.max_abs, &r.mean_abs, &r.kl, &r.red, &r.error_level,
                             &r.error_jump, &r.margin, &r.detection_floor})
    *d = x++;
  for (size_t i = 0; i < 4; ++i) {
    r.stat_abs[i] = x++;
    r.stat_rel[i] = x++;
  }
  r.fail_reason = msit::FailReason::kMyNanInf;
  r.compare_mode = msit::MetricSource::kStats;
  r.nan_inf = "my: 1 nan";
  r.verdict = msit::Verdict::kFail;
  r.note = "a note";
  r.jump = msit::ReportRow::Jump::kFirst;
  return r;
}

std::vector<std::string> table_names(bool extra) {
  std::vector<std::string> out;
  for (size_t i = 0; i < msit::report_column_count(extra); ++i) out.emplace_back(kReportColumns[i].name);
  return out;
}

std::vector<std::string> split_line(const std::string& line) {
  std::vector<std::string> out(1);
  for (char c : line) {
    if (c == ',') out.emplace_back();
    else out.back().push_back(c);
  }
  return out;
}

TEST(ReportColumns, MsitsPartIsMsitsHeader) {
  // docs/formats/report.md §2, byte for byte.
  EXPECT_EQ(msit::report_column_count(false), 24u);
  std::string header;
  for (const auto& n : table_names(false)) header += (header.empty() ? "" : ",") + n;
  EXPECT_EQ(header,
            "token_id,data_id,golden_data_path,golden_op_type,golden_dtype,golden_shape,golden_max_value,"
            "golden_min_value,golden_mean_value,my_data_path,my_op_type,my_dtype,my_shape,my_max_value,my_min_value,"
            "my_mean_value,cosine_similarity,max_relative_error,mean_relative_error,max_absolute_error,"
            "mean_absolute_error,kl_divergence,relative_euclidean_distance,cmp_fail_reason");
}

TEST(ReportColumns, ColumnListsAreTheTable) {
  std::vector<std::string> lists;
  for (auto n : msit::msit_columns()) lists.emplace_back(n);
  EXPECT_EQ(lists, table_names(false));
  for (auto n : msit::extra_columns()) lists.emplace_back(n);
  EXPECT_EQ(lists, table_names(true));
}

TEST(ReportColumns, EveryColumnIsACsvColumnWithItsCell) {
  const msit::ReportRow r = distinct_row();
  for (bool extra : {false, true}) {
    msit::CsvOptions o;
    o.extra_columns = extra;
    std::string csv = msit::report_csv({r}, o);
    size_t nl = csv.find('\n');
    ASSERT_NE(nl, std::string::npos);
    EXPECT_EQ(split_line(csv.substr(0, nl)), table_names(extra));
    std::vector<std::string> cells = msit::row_cells(r, extra);
    ASSERT_EQ(cells.size(), msit::report_column_count(extra));
    EXPECT_EQ(split_line(csv.substr(nl + 1, csv.size() - nl - 2)), cells);
  }
  // Each cell is its own column's value: spot one of each kind, and every real column apart.
  std::vector<std::string> cells = msit::row_cells(r, true);
  auto at = [&](std::string_view name) { return cells[msit::report_column_index(name)]; };
  EXPECT_EQ(at("token_id"), "7");
  EXPECT_EQ(at("data_id"), "11");
  EXPECT_EQ(at("my_dtype"), "torch.float32");
  EXPECT_EQ(at("cmp_fail_reason"), "my_data includes NAN or inf.");
  EXPECT_EQ(at("verdict"), msit::verdict_name(msit::Verdict::kFail));
  EXPECT_EQ(at("divergence"), "first");
  EXPECT_EQ(at("max_stat_absolute_error"), msit::python_float_repr(*r.stat_abs[0]));
  EXPECT_EQ(at("l2norm_stat_relative_error"), msit::python_float_repr(*r.stat_rel[3]));
  std::set<std::string> reals;
  for (size_t i = 0; i < kReportColumnCount; ++i) {
    EXPECT_FALSE(cells[i].empty()) << kReportColumns[i].name;
    if (kReportColumns[i].kind == CellKind::kReal) {
      EXPECT_TRUE(reals.insert(cells[i]).second) << kReportColumns[i].name;
    }
  }
}

TEST(ReportColumns, EveryColumnIsAJsonKeyTypedByItsKind) {
  const msit::ReportRow r = distinct_row();
  auto j = nlohmann::ordered_json::parse(msit::report_json({r}, msit::CsvOptions{}));
  ASSERT_EQ(j.size(), 1u);
  std::vector<std::string> keys;
  for (auto it = j[0].begin(); it != j[0].end(); ++it) {
    keys.push_back(it.key());
    const msit::ReportColumn& c = kReportColumns[msit::report_column_index(it.key())];
    if (c.kind == CellKind::kReal) {
      EXPECT_TRUE(it.value().is_number_float()) << it.key();
    } else if (c.kind == CellKind::kId || c.kind == CellKind::kToken) {
      EXPECT_TRUE(it.value().is_number_integer()) << it.key();
    } else {
      EXPECT_TRUE(it.value().is_string()) << it.key();
    }
    EXPECT_EQ(msit::is_float_column(it.key()), c.kind == CellKind::kReal);
  }
  EXPECT_EQ(keys, table_names(true));
}

// The streamed JSON report (a rank's elements written as they come) is the array nlohmann dumps
// at once, byte for byte; no rows is "[]".
TEST(ReportColumns, JsonElementsJoinIntoTheWholeArraysDump) {
  msit::ReportRow odd = distinct_row();
  odd.my_data_path = "quote\" back\\slash\nnewline \xff bad utf-8";
  const std::vector<msit::ReportRow> rows = {distinct_row(), msit::ReportRow{}, odd};
  const std::string text = msit::report_json(rows, msit::CsvOptions{});
  EXPECT_EQ(text,
            nlohmann::ordered_json::parse(text).dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  EXPECT_EQ(msit::report_json({}, msit::CsvOptions{}), "[]\n");
  std::string streamed = "[\n";
  for (size_t i = 0; i < rows.size(); ++i) streamed += (i ? ",\n" : "") + msit::report_json_element(rows[i], {});
  EXPECT_EQ(streamed + "\n]\n", text);
}

TEST(ReportColumns, EveryHtmlKeyIsInThePage) {
  std::vector<msit::ReportRow> rows = {distinct_row()};
  std::string page = msit::html_report({msit::HtmlRank{std::nullopt, &rows}}, "t");
  const std::string open = "<script id=\"data\" type=\"application/json\">";
  size_t a = page.find(open);
  ASSERT_NE(a, std::string::npos);
  a += open.size();
  size_t b = page.find("</script>", a);
  auto data = nlohmann::json::parse(page.substr(a, b - a));
  ASSERT_EQ(data.size(), 1u);
  const std::vector<std::string> cells = msit::row_cells(rows[0], true);
  size_t shown = 0;
  for (size_t i = 0; i < kReportColumnCount; ++i) {
    const msit::ReportColumn& c = kReportColumns[i];
    if (c.html_key.empty()) continue;
    ++shown;
    const std::string key(c.html_key);
    ASSERT_TRUE(data[0].contains(key)) << key;
    if (c.kind == CellKind::kReal) {
      EXPECT_EQ(msit::python_float_repr(data[0][key].get<double>()), cells[i]) << key;
    } else {
      EXPECT_EQ(data[0][key].get<std::string>(), cells[i]) << key;
    }
  }
  EXPECT_GT(shown, 10u);
}

}  // namespace
