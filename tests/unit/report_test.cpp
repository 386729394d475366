// Report cells as pandas writes them, the exact msit header, filters and formula guard.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <random>
#include <set>

#include "common/compare/terminal_summary.h"
#include "common/report/csv.h"
#include "common/report/html_report.h"

using msit::python_float_repr;

TEST(Report, PythonFloatRepr) {
  EXPECT_EQ(python_float_repr(0.0), "0.0");
  EXPECT_EQ(python_float_repr(-0.0), "-0.0");
  EXPECT_EQ(python_float_repr(1.0), "1.0");
  EXPECT_EQ(python_float_repr(0.1), "0.1");
  EXPECT_EQ(python_float_repr(static_cast<double>(0.1f)), "0.10000000149011612");
  EXPECT_EQ(python_float_repr(1e-05), "1e-05");
  EXPECT_EQ(python_float_repr(0.0001), "0.0001");
  EXPECT_EQ(python_float_repr(1.5e-07), "1.5e-07");
  EXPECT_EQ(python_float_repr(123456.789), "123456.789");
  EXPECT_EQ(python_float_repr(1e16), "1e+16");
  EXPECT_EQ(python_float_repr(1234567890123456.0), "1234567890123456.0");
  EXPECT_EQ(python_float_repr(-2.5e+300), "-2.5e+300");
  EXPECT_EQ(python_float_repr(1.0 / 0.0), "inf");
  EXPECT_EQ(python_float_repr(-1.0 / 0.0), "-inf");
  EXPECT_EQ(python_float_repr(0.9999999999), "0.9999999999");
  // Values printed by CPython 3.11's repr().
  EXPECT_EQ(python_float_repr(5e-324), "5e-324");
  EXPECT_EQ(python_float_repr(1.7976931348623157e308), "1.7976931348623157e+308");
  EXPECT_EQ(python_float_repr(1e100), "1e+100");
  EXPECT_EQ(python_float_repr(-1e-100), "-1e-100");
  EXPECT_EQ(python_float_repr(9999999999999998.0), "9999999999999998.0");
  EXPECT_EQ(python_float_repr(0.00012345), "0.00012345");
  EXPECT_EQ(python_float_repr(1.2345e-5), "1.2345e-05");
  EXPECT_EQ(python_float_repr(2.2250738585072014e-308), "2.2250738585072014e-308");
  EXPECT_EQ(python_float_repr(123.0), "123.0");
  EXPECT_EQ(python_float_repr(1e22), "1e+22");
}

// Random bit patterns (subnormals, huge and tiny exponents): repr reads back to the same double,
// fits the fixed-size buffer, and uses exponent notation exactly outside [1e-4, 1e16).
TEST(Report, PythonFloatReprRoundTripsRandomDoubles) {
  std::mt19937_64 rng(7);
  char buf[msit::kPythonFloatChars];
  for (int i = 0; i < 200000; ++i) {
    uint64_t bits = rng();
    double x;
    std::memcpy(&x, &bits, sizeof x);
    if (!std::isfinite(x)) continue;
    size_t n = msit::format_python_float(x, buf);
    ASSERT_LT(n, sizeof buf);
    std::string s(buf, n);
    ASSERT_EQ(s, python_float_repr(x));
    ASSERT_EQ(std::strtod(s.c_str(), nullptr), x) << s;
    double mag = std::fabs(x);
    bool sci = s.find('e') != std::string::npos;
    ASSERT_EQ(sci, mag != 0 && (mag < 1e-4 || mag >= 1e16)) << s;
    if (!sci) { ASSERT_NE(s.find('.'), std::string::npos) << s; }
  }
}

// Row cells are OptDoubles (8 bytes): nothing stays distinct from every double, NaNs included.
TEST(Report, OptDoubleKeepsNothingApartFromEveryValue) {
  using msit::OptDouble;
  OptDouble none;
  EXPECT_FALSE(none.has_value());
  EXPECT_EQ(none.value_or(7.0), 7.0);
  EXPECT_FALSE(std::optional<double>(none).has_value());
  EXPECT_THROW((void)none.value(), std::bad_optional_access);
  const uint64_t nan_patterns[] = {0x7ff8000000000000ull, 0xfff8000000000000ull, 0x7ff4'6d73'6974'0000ull,
                                   0x7ff0000000000001ull, 0xffffffffffffffffull};
  for (uint64_t bits : nan_patterns) {
    OptDouble v(std::bit_cast<double>(bits));
    EXPECT_TRUE(v.has_value()) << std::hex << bits;
    EXPECT_TRUE(std::isnan(*v));
    EXPECT_FALSE(v == none);
  }
  for (double d : {0.0, -0.0, 1.5, -1e300, HUGE_VAL, -HUGE_VAL, 5e-324}) {
    OptDouble v = d;
    ASSERT_TRUE(v.has_value());
    EXPECT_EQ(std::bit_cast<uint64_t>(*v), std::bit_cast<uint64_t>(d));
    EXPECT_EQ(std::optional<double>(v), std::optional<double>(d));
    EXPECT_TRUE(v == OptDouble(std::optional<double>(d)));
  }
  OptDouble v = 2.0;
  v = std::nullopt;
  EXPECT_TRUE(v == std::nullopt);
  v = std::optional<double>(3.0);
  EXPECT_EQ(*v, 3.0);
  v.reset();
  EXPECT_FALSE(v);
  EXPECT_EQ(sizeof(OptDouble), sizeof(double));
}

TEST(Report, QuotingAndGuard) {
  EXPECT_EQ(msit::csv_quote("[2, 3]"), "\"[2, 3]\"");
  EXPECT_EQ(msit::csv_quote("a\"b"), "\"a\"\"b\"");
  EXPECT_EQ(msit::csv_quote("plain"), "plain");
  // Cells of 32 bytes and more (paths) take another scan: each special character, anywhere.
  const std::string path(100, 'p');
  EXPECT_EQ(msit::csv_quote(path), path);
  for (char special : {',', '"', '\n', '\r'}) {
    for (size_t at : {size_t{0}, size_t{31}, size_t{32}, size_t{99}}) {
      std::string cell = path;
      cell[at] = special;
      std::string want = "\"" + cell + "\"";
      if (special == '"') want.insert(at + 1, 1, '"');
      EXPECT_EQ(msit::csv_quote(cell), want) << "character " << static_cast<int>(special) << " at " << at;
    }
  }
  EXPECT_EQ(msit::guard_text_cell("=HYPERLINK(1)"), "'=HYPERLINK(1)");
  EXPECT_EQ(msit::guard_text_cell("@x"), "'@x");
  EXPECT_EQ(msit::guard_text_cell("/abs/path"), "/abs/path");
  EXPECT_EQ(msit::float_cell(-1.5), "-1.5");  // numbers are never guarded
  EXPECT_EQ(msit::float_cell(std::nullopt), "");
  EXPECT_EQ(msit::float_cell(0.0 / 0.0), "");
}

msit::ReportRow known_row() {
  msit::ReportRow r;
  r.token_id = 0;
  r.data_id = 3;
  r.golden_data_path = "/d/fx/add_1-aten.add.Tensor.OUTPUT.0.20240125031118787351.npy";
  r.golden_dtype = msit::CellDType{msit::DType::kFloat16};
  r.golden_shape = "[2, 3]";
  r.golden_max = static_cast<double>(0.1f);
  r.golden_min = -1.5;
  r.golden_mean = 1e-05;
  r.my_data_path = "/d/ge/Add.Add_2.44.6.1706596912161941,outputs,0";
  r.my_dtype = msit::CellDType{msit::DType::kFloat32};
  r.my_shape = "[2, 3]";
  r.my_max = 1.0 / 0.0;
  r.my_min = -1.5;
  r.my_mean = 0.0 / 0.0;
  r.cosine = 0.9999999999;
  r.max_rel = 0.0;
  r.mean_rel = 1.5e-07;
  r.max_abs = 2.0;
  r.mean_abs = 0.125;
  r.kl = 0.0;
  r.red = 1e-16;
  return r;
}

TEST(Report, HeaderAndCellsByteIdentical) {
  msit::CsvOptions o;
  o.extra_columns = false;
  std::string csv = msit::report_csv({known_row()}, o);
  EXPECT_EQ(csv,
            "token_id,data_id,golden_data_path,golden_op_type,golden_dtype,golden_shape,golden_max_value,"
            "golden_min_value,golden_mean_value,my_data_path,my_op_type,my_dtype,my_shape,my_max_value,"
            "my_min_value,my_mean_value,cosine_similarity,max_relative_error,mean_relative_error,"
            "max_absolute_error,mean_absolute_error,kl_divergence,relative_euclidean_distance,cmp_fail_reason\n"
            "0,3,/d/fx/add_1-aten.add.Tensor.OUTPUT.0.20240125031118787351.npy,,torch.float16,\"[2, 3]\","
            "0.10000000149011612,-1.5,1e-05,\"/d/ge/Add.Add_2.44.6.1706596912161941,outputs,0\",,torch.float32,"
            "\"[2, 3]\",inf,-1.5,,0.9999999999,0.0,1.5e-07,2.0,0.125,0.0,1e-16,\n");
}

TEST(Report, ExtraColumnsFollowMsitColumns) {
  msit::ReportRow r = known_row();
  r.compare_mode = msit::MetricSource::kExact;
  r.verdict = msit::Verdict::kFail;
  r.note = "-note";
  std::string csv = msit::report_csv({r}, msit::CsvOptions{});
  std::string header = csv.substr(0, csv.find('\n'));
  EXPECT_TRUE(
      header.ends_with("relative_euclidean_distance,cmp_fail_reason,compare_mode,max_stat_absolute_error,"
                       "max_stat_relative_error,min_stat_absolute_error,min_stat_relative_error,"
                       "mean_stat_absolute_error,mean_stat_relative_error,l2norm_stat_absolute_error,"
                       "l2norm_stat_relative_error,nan_inf,verdict,note,error_level,error_jump,divergence,margin,"
                       "detection_floor"));
  EXPECT_TRUE(csv.ends_with(",exact,,,,,,,,,,fail,'-note,,,,,\n")) << csv;
  std::string json = msit::report_json({r}, msit::CsvOptions{});
  EXPECT_NE(json.find("\"cosine_similarity\": 0.9999999999"), std::string::npos) << json;
  EXPECT_NE(json.find("\"my_max_value\": \"inf\""), std::string::npos);
  EXPECT_NE(json.find("\"my_mean_value\": null"), std::string::npos);
}

TEST(Report, MsitFiltersIncludingSkipQuirk) {
  auto row = [](const char* g, const char* m, const char* reason, uint64_t id) {
    msit::ReportRow r;
    r.golden_dtype = *msit::cell_dtype_from_text(g, msit::CellDType::Naming::kMsitWidened);
    r.my_dtype = *msit::cell_dtype_from_text(m, msit::CellDType::Naming::kMsitWidened);
    r.fail_reason = *msit::fail_reason_from_text(reason);
    r.data_id = id;
    return r;
  };
  std::vector<msit::ReportRow> rows = {
      row("torch.int8", "torch.float16", "", 0),                              // dropped
      row("torch.int8", "torch.float16", "", 1),                              // never looked at: kept (msit quirk)
      row("torch.float16", "torch.float16", "data shape doesn't match.", 2),  // dropped
      row("torch.float16", "torch.float16", "data shape doesn't match. my_data includes NAN or inf.", 3),
  };
  rows.push_back(row("torch.float16", "torch.float16", "", 4));
  rows.back().msit_row = false;  // our diagnostic row
  auto kept = msit::apply_msit_filters(rows);
  ASSERT_EQ(kept.size(), 2u);
  EXPECT_EQ(kept[0].data_id, 1u);
  EXPECT_EQ(kept[1].data_id, 3u);
  EXPECT_NE(msit::msit_drop_reason(rows[0]).find("int8"), std::string::npos);
}

TEST(Report, FileNames) {
  EXPECT_EQ(msit::report_file_name("msit_cmp_report", std::nullopt, 0, "csv"), "msit_cmp_report_19700101000000.csv");
  EXPECT_EQ(msit::report_file_name("msit_cmp_report", 3, 86400, "csv"), "msit_cmp_report_rank3_19700102000000.csv");
}

TEST(Report, TerminalSummaryPointsAtFirstFailure) {
  msit::ReportRow ok = known_row(), bad = known_row();
  ok.verdict = msit::Verdict::kPass;
  bad.verdict = msit::Verdict::kFail;
  bad.cosine = 0.5;
  bad.my_data_path = "/d/ge/Mul.Mul_3.1.1.1706596912161999,outputs,0";
  bad.my_label = {"Mul_3", "Mul", msit::TensorRole::kOutput, 0};  // set by the pair builder
  std::vector<msit::ReportRow> rows = {ok, bad, bad};
  EXPECT_EQ(msit::first_divergence(rows), &rows[1]);
  EXPECT_EQ(msit::worst_rows(rows, 10).front()->cosine, 0.5);
  // Op name and type, not paths.
  EXPECT_NE(msit::terminal_summary(rows, 0).find("first fail in token 0: Mul_3 (Mul) output 0"), std::string::npos)
      << msit::terminal_summary(rows, 0);
}

// An op's output and the next op's input are one tensor pair reached twice (identical metrics):
// the worst list shows it once, as the producer's row, and still lists ten distinct tensors.
TEST(Report, WorstListShowsEachTensorPairOnce) {
  std::vector<msit::ReportRow> rows;
  for (int k = 0; k < 12; ++k) {
    msit::ReportRow out = known_row();
    out.verdict = msit::Verdict::kFail;
    out.cosine = 0.5 + 0.01 * k;
    out.max_abs = 1.0 + k;
    out.red = 0.3;
    out.my_data_path = "/d/ge/Op.Op_" + std::to_string(k) + ".1.1.1,outputs,0";
    msit::ReportRow in = out;  // the consumer's input: same data, same metrics
    in.my_data_path = "/d/ge/Op.Op_" + std::to_string(k + 1) + ".1.1.1,inputs,0";
    rows.push_back(out);
    rows.push_back(in);
  }
  msit::ReportRow other_token = rows[0];
  other_token.token_id = rows[0].token_id + 1;  // same numbers, another step: a different tensor
  rows.push_back(other_token);
  auto worst = msit::worst_rows(rows, 10);
  ASSERT_EQ(worst.size(), 10u);
  std::set<std::string> seen;
  for (const auto* r : worst) {
    EXPECT_NE(r->my_data_path.find(",outputs,0"), std::string::npos) << r->my_data_path;
    EXPECT_TRUE(seen.insert(r->my_data_path + "@" + std::to_string(r->token_id)).second) << r->my_data_path;
  }
  EXPECT_EQ(worst[0], &rows[0]);
  EXPECT_EQ(worst[1], &rows.back());  // equal metrics but another token: kept
  std::string text = msit::terminal_summary(rows, std::nullopt);
  size_t first = text.find("worst 10:");
  ASSERT_NE(first, std::string::npos);
  EXPECT_EQ(text.find("Op.Op_1.1.1.1,inputs,0", first), std::string::npos) << text;
}

TEST(Report, CsvBytesDoNotDependOnJobs) {
  std::vector<msit::ReportRow> rows;
  for (int k = 0; k < 9001; ++k) {
    rows.push_back(known_row());
    rows.back().data_id = static_cast<uint64_t>(k);
    rows.back().cosine = 1.0 / (k + 1);
  }
  msit::CsvOptions one, many;
  many.jobs = 3;
  std::string a = msit::report_csv(rows, one);
  EXPECT_EQ(a, msit::report_csv(rows, many));
  EXPECT_EQ(std::count(a.begin(), a.end(), '\n'), 9002);
}

TEST(Report, CsvStreamKeepsRowOrderAndStopsAtTheFirstSinkError) {
  std::vector<msit::ReportRow> rows;
  for (int k = 0; k < 20000; ++k) {
    rows.push_back(known_row());
    rows.back().data_id = static_cast<uint64_t>(k);
  }
  msit::CsvOptions o;
  o.jobs = 4;
  std::string all;
  ASSERT_TRUE(msit::write_report_csv(rows, o, [&](std::string_view part) {
                all.append(part);
                return msit::ok_status();
              }).ok());
  // data_id is the second cell: every row in order, once.
  size_t pos = all.find('\n') + 1;
  for (int k = 0; k < 20000; ++k) {
    size_t comma = all.find(',', pos);
    ASSERT_EQ(all.substr(comma + 1, all.find(',', comma + 1) - comma - 1), std::to_string(k));
    pos = all.find('\n', pos) + 1;
  }
  EXPECT_EQ(pos, all.size());

  int calls = 0;
  msit::Status st = msit::write_report_csv(rows, o, [&](std::string_view) {
    return ++calls == 3 ? msit::Status(msit::make_error("out.csv", msit::Stage::kWrite, "disk full"))
                        : msit::ok_status();
  });
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message, "disk full");
  EXPECT_EQ(calls, 3);  // nothing handed on after the failure
}

// Error rows are all accounted for, grouped by their reason with the paths taken out.
TEST(Report, TerminalSummaryGroupsErrorRows) {
  std::vector<msit::ReportRow> rows;
  for (int k = 0; k < 12; ++k) {
    msit::ReportRow r = known_row();
    r.verdict = msit::Verdict::kError;
    r.my_data_path = "/d/ge/Add.Add_" + std::to_string(k) + ".1.1.1,outputs,0";
    r.problem = msit::RowProblem::from_error(
        msit::RowProblem::Kind::kMyUnreadable,
        msit::make_error("/d/ge/Add.Add_" + std::to_string(k) + ".1.1.1", msit::Stage::kHeader, "truncated"));
    r.my_label = {"Add_" + std::to_string(k), "Add", msit::TensorRole::kOutput, 0};
    rows.push_back(r);
  }
  std::string text = msit::terminal_summary(rows, std::nullopt);
  EXPECT_NE(text.find("errors: 12 rows could not be compared"), std::string::npos) << text;
  EXPECT_NE(text.find("12 x my_data_path: <file>: header: truncated"), std::string::npos) << text;
  EXPECT_NE(text.find("Add_7 (Add) output 0"), std::string::npos) << text;
  EXPECT_NE(text.find("... and 4 more"), std::string::npos) << text;
}

// Inconclusive rows are counted by why (their own note); the compare's note on a rank's first row
// (what was paired, coverage gaps) is not a reason of that row, but the note cell still says both.
// A token none of whose rows has an error level is named as not judged.
TEST(Report, InconclusiveReasonsLeaveTheComparesNoteOut) {
  const std::string why =
      "sketches differ (golden width 64, my width 128, or different seeds): only statistics compared";
  std::vector<msit::ReportRow> rows;
  for (int k = 0; k < 5; ++k) {
    msit::ReportRow r = known_row();
    r.verdict = msit::Verdict::kInconclusive;
    r.note = k == 4 ? "padding included: no sketch" : why;
    r.token_id = k == 4 ? 1 : 0;
    rows.push_back(r);
  }
  // Every row unjudged: the first-divergence line says so, once.
  const std::string none = msit::terminal_summary(rows, 0);
  EXPECT_NE(none.find("first divergence: not judged"), std::string::npos) << none;
  EXPECT_EQ(none.find("\n  not judged:"), std::string::npos) << none;
  rows[1].error_level = 1e-3;  // token 0 judged, token 1 not: named
  rows.front().compare_note = "compare: paired: my /d/ge (GE dump) with golden /d/fx (FX dump)";
  const std::string text = msit::terminal_summary(rows, 0);
  EXPECT_NE(text.find("inconclusive: 5 rows"), std::string::npos) << text;
  EXPECT_NE(text.find("\n  4 rows: " + why + "\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\n  1 rows: padding included: no sketch\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("paired"), std::string::npos) << text;
  EXPECT_NE(text.find("\n  not judged: token 1: none of its rows"), std::string::npos) << text;
  EXPECT_EQ(msit::note_cell(rows.front()), rows.front().compare_note + "; " + why);
  EXPECT_EQ(msit::note_cell(rows.back()), "padding included: no sketch");
  msit::CsvOptions o;
  const std::string csv = msit::report_csv({rows.front()}, o);
  EXPECT_NE(csv.find(",\"compare: paired: my /d/ge (GE dump) with golden /d/fx (FX dump); sketches differ"),
            std::string::npos)
      << csv;
}

// The HTML page carries every row as data; a path cannot close the script element.
TEST(Report, HtmlReportIsSelfContainedAndEscaped) {
  msit::ReportRow r = known_row();
  r.my_data_path = "/d/</script><script>alert(1)</script>/Mul.Mul_3.1.1.1,outputs,0";
  r.note = "</script><script>alert(2)</script><!--";
  r.my_label = {"Mul_3", "Mul", msit::TensorRole::kOutput, 0};
  std::vector<msit::ReportRow> rows = {r, known_row()};
  std::string page = msit::html_report({msit::HtmlRank{std::nullopt, &rows}}, "GE vs FX: <a> & b");
  EXPECT_EQ(page.find("<script>alert"), std::string::npos);
  EXPECT_EQ(page.find("<!--"), std::string::npos);
  EXPECT_NE(page.find("\\u003c/script>\\u003cscript>alert(2)"), std::string::npos);
  EXPECT_NE(page.find("GE vs FX: &lt;a&gt; &amp; b"), std::string::npos);
  EXPECT_EQ(page.find(" src="), std::string::npos);
  EXPECT_EQ(page.find("href="), std::string::npos);
  size_t data = page.find("<script id=\"data\"");
  ASSERT_NE(data, std::string::npos);
  EXPECT_NE(page.find("\"name\":\"Mul_3\"", data), std::string::npos);
}

// What was not compared is said on the page too, before the plots, escaped; nothing when complete.
TEST(Report, HtmlReportListsCoverageGaps) {
  std::vector<msit::ReportRow> rows = {known_row()};
  const std::vector<std::string> gaps = {"rank 1 of --my-path has no golden counterpart: not compared",
                                         "token 3 of <mine> & more"};
  const std::string page = msit::html_report({msit::HtmlRank{0, &rows}}, "GE vs FX", gaps);
  const size_t at = page.find("<div id=\"coverage\">");
  ASSERT_NE(at, std::string::npos);
  EXPECT_LT(at, page.find("<div id=\"plots\">"));
  EXPECT_NE(page.find("<li>rank 1 of --my-path has no golden counterpart: not compared</li>", at), std::string::npos);
  EXPECT_NE(page.find("<li>token 3 of &lt;mine&gt; &amp; more</li>", at), std::string::npos);
  EXPECT_EQ(msit::html_report({msit::HtmlRank{0, &rows}}, "GE vs FX").find("<div id=\"coverage\">"), std::string::npos);
}
