// msProbe 8.x's verdicts for `-i compare.json` (docs/formats/msprobe-compare.md §7): Accuracy
// Reached or Not from Cosine and MaxAbsErr, the statistics Warning, md5 pass / Different, and
// the 8.x columns of each mode.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "common/compare_msprobe/report.h"
#include "common/compare_msprobe/row.h"

namespace msit {
namespace {

TEST(MsprobeVerdict8, AccuracyReachedOrNot) {
  auto n = [](double v) { return MsCell::of(v); };
  auto t = [](const char* s) { return MsCell::of_text(s); };
  EXPECT_EQ(ms_accuracy_reached(n(0.9999), n(0.0001)), "Yes");
  EXPECT_EQ(ms_accuracy_reached(n(0.98), n(0.002)), "No");    // cos < 0.99 and MaxAbsErr > 0.001
  EXPECT_EQ(ms_accuracy_reached(n(0.98), n(0.0005)), "Yes");  // cos < 0.99 alone is not enough
  EXPECT_EQ(ms_accuracy_reached(n(0.89), n(0.0)), "No");      // cos < 0.9
  EXPECT_EQ(ms_accuracy_reached(n(1.0), n(1.5)), "No");       // MaxAbsErr > 1
  EXPECT_EQ(ms_accuracy_reached(t("shape unmatched"), t("shape unmatched")), "Unmatched");
  EXPECT_EQ(ms_accuracy_reached(t("N/A"), n(0.0)), "No");
  EXPECT_EQ(ms_accuracy_reached(t("unsupported"), n(0.5)), "None");  // no number to judge
  EXPECT_EQ(ms_accuracy_reached(MsCell::none(), n(0.5)), "None");
  EXPECT_EQ(ms_accuracy_reached(t("Nan"), n(0.5)), "Yes");  // NaN compares false, as in Python
  EXPECT_EQ(ms_accuracy_reached(t("Nan"), t(" inf")), "No");
}

MsprobeItem item(const std::string& name, double max, const std::string& md5 = "") {
  MsprobeItem it;
  it.name = name;
  it.entry = name.substr(0, name.find(".forward") + 8);
  it.stats = {MsCell::of(max), MsCell::of(0.0), MsCell::of(0.5), MsCell::of(1.0)};
  it.md5 = md5;
  it.data_name = "-1";
  return it;
}

TEST(MsprobeVerdict8, StatisticsWarningAndMd5) {
  std::vector<MsprobeItem> npu = {item("A.a.0.forward.input.0", 1.0, "aa"), item("A.a.0.forward.output.0", 4.0, "bb"),
                                  item("A.a.0.forward.output.1", 1.0, "cc")};
  std::vector<MsprobeItem> bench = {item("A.a.0.forward.input.0", 1.2, "aa"),
                                    item("A.a.0.forward.output.0", 1.0, "bx")};
  std::vector<MsRow> rows(3);
  rows[0].npu = 0, rows[0].bench = 0;
  rows[1].npu = 1, rows[1].bench = 1;
  rows[2].npu = 2;
  ms_apply_legacy_verdict(rows, npu, bench, MsMode::kSummary);
  EXPECT_EQ(rows[0].legacy_result, "");  // |1 - 1.2| / 1.2 < 0.5
  EXPECT_EQ(rows[0].metric_message, "");
  EXPECT_EQ(rows[1].legacy_result, "Warning");  // |4 - 1| / 4 > 0.5
  EXPECT_EQ(rows[1].metric_message, "Need double check api accuracy. ");
  EXPECT_EQ(rows[1].result, MsResult::kWarning);
  EXPECT_EQ(rows[2].legacy_result, "N/A");
  EXPECT_EQ(rows[2].metric_message, "No bench data matched.");
  ms_apply_legacy_verdict(rows, npu, bench, MsMode::kMd5);
  EXPECT_EQ(rows[0].legacy_result, "pass");
  EXPECT_EQ(rows[1].legacy_result, "Different");
  EXPECT_EQ(rows[1].result, MsResult::kError);
  EXPECT_EQ(rows[2].legacy_result, "N/A");
}

TEST(MsprobeVerdict8, ColumnsOfEachMode) {
  auto tail = [](MsMode m, MsGeneration g, size_t k) {
    auto h = ms_header(m, g);
    return std::vector<std::string>(h.end() - static_cast<long>(k), h.end());
  };
  EXPECT_EQ(
      tail(MsMode::kTensor, MsGeneration::k8, 4),
      (std::vector<std::string>{"Requires_grad Consistent", "Accuracy Reached or Not", "Err_message", "Data_name"}));
  EXPECT_EQ(tail(MsMode::kMd5, MsGeneration::k8, 4),
            (std::vector<std::string>{"NPU MD5", "BENCH MD5", "Requires_grad Consistent", "Result"}));
  EXPECT_EQ(tail(MsMode::kSummary, MsGeneration::k8, 2), (std::vector<std::string>{"Result", "Err_message"}));
  EXPECT_EQ(tail(MsMode::kMd5, MsGeneration::k26, 2), (std::vector<std::string>{"Result", "Err_message"}));
}

}  // namespace
}  // namespace msit
