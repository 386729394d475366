// msProbe's compare rules (common/compare_msprobe): rows, cells and verdicts checked against
// what msProbe 26.x's own compare wrote for the same pairs (docs/formats/msprobe-compare.md).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "common/compare_msprobe/match.h"
#include "common/compare_msprobe/report.h"
#include "common/compare_msprobe/row.h"
#include "common/compare_msprobe/tensor_metrics.h"

namespace msit {
namespace {

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

MsprobeItem tensor(std::string entry, std::string rest, std::string dtype, std::string shape,
                   std::array<MsCell, 4> stats, std::optional<bool> grad = true, std::string md5 = "") {
  MsprobeItem it;
  it.name = entry + rest;
  it.entry = std::move(entry);
  it.state = rest.find(".output.") == 0 ? MsState::kOutput : MsState::kInput;
  it.dtype = std::move(dtype);
  it.shape = std::move(shape);
  it.stats = std::move(stats);
  it.requires_grad = grad;
  it.md5 = std::move(md5);
  it.data_name = "-1";
  return it;
}

std::array<MsCell, 4> s4(double a, double b, double c, double d) {
  return {MsCell::of(a), MsCell::of(b), MsCell::of(c), MsCell::of(d)};
}
std::array<MsCell, 4> same4(MsCell c) { return {c, c, c, c}; }

// Builds the table as the flow does: match, cells, checkers.
std::vector<MsRow> table(const std::vector<MsprobeItem>& npu, const std::vector<MsprobeItem>& bench, MsMode mode) {
  std::vector<MsRow> rows;
  for (const MsPair& p : ms_match(npu, bench, {})) {
    MsRow r;
    r.npu = p.npu;
    r.bench = p.bench;
    if (mode == MsMode::kSummary) r.summary = ms_summary_cells(npu[p.npu], p.bench ? &bench[*p.bench] : nullptr);
    rows.push_back(std::move(r));
  }
  ms_apply_checkers(rows, npu, bench, mode);
  return rows;
}

std::string csv_of(const std::vector<MsprobeItem>& npu, const std::vector<MsprobeItem>& bench,
                   const std::vector<MsRow>& rows, MsMode mode) {
  std::string out;
  MsTable t{mode, MsGeneration::k26, &npu, &bench, &rows, {}};
  EXPECT_TRUE(write_ms_csv(t, [&](std::string_view s) {
                out += s;
                return ok_status();
              }).ok());
  return out;
}

// The statistics pair of tests/msprobe_ref/gen_cases.py, and msProbe 26.x's CSV for it.
TEST(MsprobeCompare, StatisticsRowsAreMsprobes) {
  const std::string lin = "Functional.linear.0.forward", add = "Torch.add.0.forward", orr = "Tensor.__or__.0.forward";
  const std::string gelu = "Functional.gelu.0.forward", relu = "Functional.relu.0.forward";
  const std::string empty = "Torch.empty.0.forward";
  auto scalar = [](std::string entry, std::string rest, std::string dtype, MsCell v) {
    return tensor(std::move(entry), std::move(rest), std::move(dtype), "[]", same4(v), std::nullopt);
  };
  auto boolean = [](std::string e, std::string r, bool grad) {
    return tensor(e, r, "torch.bool", "[4]", {MsCell::of_text("True"), MsCell::of_text("False"), {}, {}}, grad);
  };
  std::vector<MsprobeItem> npu = {
      tensor(lin, ".input.0", "torch.float32", "[2, 3]", s4(1, -1, 0.1, 10)),
      tensor(lin, ".output.0", "torch.float32", "[2]", s4(2, -2, 0.5, 20)),
      tensor(add, ".input.0", "torch.float32", "[4]", s4(kNan, -1, 0.2, 3)),
      scalar(add, ".input.1", "<class 'int'>", MsCell::of(3, true)),
      tensor(add, ".output.0", "torch.float32", "[4]", s4(5, 1, 2, 8)),
      boolean(orr, ".input.0", false),
      tensor(gelu, ".input.0", "torch.float32", "[2]", s4(1, 0, 0.5, 1)),
      tensor(relu, ".input.0", "torch.float16", "[2]", s4(1, 0, 0.5, 1)),
      tensor("Functional.relu.1.backward", ".input.0", "torch.float32", "[2]", s4(1, 0, 0.5, 1)),
      scalar(empty, ".input.device", "<class 'str'>", MsCell::of_text("npu:0")),
      tensor(empty, ".output.0", "torch.float32", "[2, 2]", s4(kInf, 0, 0, 0)),
  };
  std::vector<MsprobeItem> bench = {
      tensor(lin, ".input.0", "torch.float32", "[2, 3]", s4(1, -1, 0.1, 10)),
      tensor(lin, ".output.0", "torch.float32", "[2]", s4(2, -2, 0.5, 35)),
      tensor(add, ".input.0", "torch.float32", "[4]", s4(1, -1, 0.2, 3)),
      scalar(add, ".input.1", "<class 'int'>", MsCell::of(4, true)),
      tensor(add, ".output.0", "torch.float32", "[4]", s4(5, 1, 2.5, 0)),
      boolean(orr, ".input.0", true),
      tensor(relu, ".input.0", "torch.float32", "[2]", s4(1, 0, 0.5, 1)),
      tensor("Functional.relu.0.backward", ".input.0", "torch.float32", "[2]", s4(1, 0, 0.5, 1)),
      scalar(empty, ".input.device", "<class 'str'>", MsCell::of_text("npu:0")),
      tensor(empty, ".output.0", "torch.float32", "[2, 2]", s4(1, 0, 0, 0)),
  };
  auto rows = table(npu, bench, MsMode::kSummary);
  std::string csv = csv_of(npu, bench, rows, MsMode::kSummary);
  // msProbe's own lines for these rows (its header and cells, byte for byte).
  const char* expected[] = {
      "NPU Name,Bench Name,NPU Dtype,Bench Dtype,NPU Tensor Shape,Bench Tensor Shape,NPU Requires_grad,Bench "
      "Requires_grad,Max diff,Min diff,Mean diff,L2norm diff,MaxRelativeErr,MinRelativeErr,MeanRelativeErr,"
      "NormRelativeErr,NPU max,NPU min,NPU mean,NPU l2norm,Bench max,Bench min,Bench mean,Bench l2norm,Requires_grad "
      "Consistent,Result,Err_message\n",
      "Functional.linear.0.forward.input.0,Functional.linear.0.forward.input.0,torch.float32,torch.float32,\"[2, "
      "3]\",\"[2, 3]\",True,True,0,0,0,0,0,0,0,0,1.0,-1.0,0.1,10.0,1.0,-1.0,0.1,10.0,True,pass,[]\n",
      "Functional.linear.0.forward.output.0,Functional.linear.0.forward.output.0,torch.float32,torch.float32,[2],[2],"
      "True,True,0,0,0,-15.0,0,0,0,42.857142857142854%,2.0,-2.0,0.5,20.0,2.0,-2.0,0.5,35.0,True,warning,\"["
      "\"\"warning: The norm relative error of output is 10 times that of input.\"\"]\"\n",
      "Torch.add.0.forward.input.0,Torch.add.0.forward.input.0,torch.float32,torch.float32,[4],[4],True,True,Nan,0,0,"
      "0,Nan,0,0,0,Nan,-1.0,0.2,3.0,1.0,-1.0,0.2,3.0,True,error,\"[\"\"error: There is nan/inf/-inf in the maximum or "
      "minimum value of NPU.\"\"]\"\n",
      "Torch.add.0.forward.input.1,Torch.add.0.forward.input.1,<class 'int'>,<class "
      "'int'>,[],[],N/A,N/A,-1.0,-1.0,-1.0,"
      "-1.0,25.0%,25.0%,25.0%,25.0%,3,3,3,3,4,4,4,4,True,error,\"[\"\"error: The scalar parameters of NPU and Bench "
      "are inconsistent.\"\"]\"\n",
      "Torch.add.0.forward.output.0,Torch.add.0.forward.output.0,torch.float32,torch.float32,[4],[4],True,True,0,0,-0."
      "5,8.0,0,0,20.0%,inf,5.0,1.0,2.0,8.0,5.0,1.0,2.5,0.0,True,pass,[]\n",
      "Tensor.__or__.0.forward.input.0,Tensor.__or__.0.forward.input.0,torch.bool,torch.bool,[4],[4],False,True,0,0,0,"
      "0,0,0,0,0,True,False,None,None,True,False,None,None,False,error,\"[\"\"error: The Required_Grad of NPU and "
      "Bench "
      "are inconsistent\"\"]\"\n",
      "Functional.gelu.0.forward.input.0,N/A,torch.float32,N/A,[2],N/A,True,N/A,N/A,N/A,N/A,N/A,N/A,N/A,N/A,N/A,1.0,0."
      "0,0.5,1.0,N/A,N/A,N/A,N/A,False,pass,[]\n",
      "Functional.relu.0.forward.input.0,Functional.relu.0.forward.input.0,torch.float16,torch.float32,[2],[2],True,"
      "True,0,0,0,0,0,0,0,0,1.0,0.0,0.5,1.0,1.0,0.0,0.5,1.0,True,error,\"[\"\"error: The dtype of NPU and Bench are "
      "inconsistent.\"\"]\"\n",
      "Functional.relu.1.backward.input.0,Functional.relu.0.backward.input.0,torch.float32,torch.float32,[2],[2],True,"
      "True,0,0,0,0,0,0,0,0,1.0,0.0,0.5,1.0,1.0,0.0,0.5,1.0,True,pass,[]\n",
      "Torch.empty.0.forward.input.device,Torch.empty.0.forward.input.device,<class 'str'>,<class 'str'>,[],[],N/A,N/"
      "A,0,0,0,0,0,0,0,0,npu:0,npu:0,npu:0,npu:0,npu:0,npu:0,npu:0,npu:0,True,pass,[]\n",
      "Torch.empty.0.forward.output.0,Torch.empty.0.forward.output.0,torch.float32,torch.float32,\"[2, 2]\",\"[2, "
      "2]\",True,True,inf,0,0,0,inf,0,0,0, inf,0.0,0.0,0.0,1.0,0.0,0.0,0.0,True,pass,[]\n",
  };
  std::string want;
  for (const char* line : expected) want += line;
  EXPECT_EQ(csv, want);
}

TEST(MsprobeCompare, Md5RowsAreMsprobes) {
  const std::string lin = "Functional.linear.0.forward", gelu = "Functional.gelu.0.forward";
  auto t = [](std::string e, std::string r, std::string crc) {
    return tensor(std::move(e), std::move(r), "torch.float32", "[2]", s4(1, 0, 0.5, 1), true, std::move(crc));
  };
  auto scalar = [](std::string e, int v) {
    auto it = tensor(std::move(e), ".input.1", "<class 'int'>", "[]", same4(MsCell::of(v, true)), std::nullopt);
    it.md5 = ms_crc32_hex(std::to_string(v));
    return it;
  };
  std::vector<MsprobeItem> npu = {t(lin, ".input.0", "0badf00d"), scalar(lin, 3), t(lin, ".output.0", "12345678"),
                                  t(gelu, ".input.0", "aaaaaaaa")};
  std::vector<MsprobeItem> bench = {t(lin, ".input.0", "0badf00d"), scalar(lin, 4), t(lin, ".output.0", "87654321")};
  auto rows = table(npu, bench, MsMode::kMd5);
  std::string csv = csv_of(npu, bench, rows, MsMode::kMd5);
  EXPECT_NE(csv.find(",<class 'int'>,<class 'int'>,[],[],N/A,N/A,6dd28e9b,f3b61b38,True,error,\"[\"\"error: The "
                     "CRC-32 value of NPU differs from that of the bench.\"\"]\"\n"),
            std::string::npos)
      << csv;
  EXPECT_NE(csv.find("Functional.gelu.0.forward.input.0,N/A,torch.float32,N/A,[2],N/A,True,N/A,aaaaaaaa,N/A,False,"
                     "warning,\"[\"\"warning: The parameter of NPU does not match the bench.\"\"]\"\n"),
            std::string::npos)
      << csv;
  EXPECT_NE(csv.find(",0badf00d,0badf00d,True,pass,[]\n"), std::string::npos) << csv;
}

// Runs the metrics as the flow does: one pair, values in two chunks.
std::array<MsCell, 6> metrics(const std::vector<double>& n, const std::vector<double>& b, DType t,
                              std::string* message = nullptr) {
  MsTensorMetrics m({n.size()}, {b.size()}, t, t);
  size_t half = n.size() / 2;
  m.add(n.data(), b.data(), half);
  m.add(n.data() + half, b.data() + half, n.size() - half);
  std::string msg;
  auto out = m.finish(msg);
  if (message) *message = msg;
  return out;
}

void expect_cells(const std::array<MsCell, 6>& got, const std::array<const char*, 6>& want) {
  for (size_t i = 0; i < 6; ++i) EXPECT_EQ(got[i].shown(), want[i]) << "metric " << i;
}

// Expected cells: msProbe 26.x's compare_ops_apply on the same arrays.
TEST(MsprobeCompare, TensorMetricsAreMsprobes) {
  std::vector<double> n = {1.0, 2.0, 3.0, 0.0, -1.5, 1e-4}, b = {1.0005, 2.01, 2.9, 0.0, -1.5, 0.0};
  auto f32 = [](std::vector<double> v) {
    for (auto& x : v) x = static_cast<float>(x);
    return v;
  };
  expect_cells(metrics(f32(n), f32(b), DType::kFloat32), {"0.999831435562", "0.10049995372908974", "0.099999904633",
                                                          "838.860778808594", "0.5", "0.666666666667"});
  expect_cells(metrics(f32(n), f32(b), DType::kFloat64),
               {"0.999831435562", "0.10049995372908974", "0.099999904633", "450359951360.0", "0.5", "0.666666666667"});
  expect_cells(metrics({1, 2, 3, 0}, {1, 2, 4, 0}, DType::kInt64),
               {"0.991460133984", "1.0", "1.0", "0.25", "0.75", "0.75"});
  expect_cells(metrics(f32({1.0, kInf, kNan, 2.0}), f32({1.001, -kInf, kNan, 2.0}), DType::kFloat32),
               {"1.0", "0.001000046730041504", "0.00100004673", "0.000999047654", "1.0", "1.0"});
  expect_cells(metrics(f32({1.0, 0.5}), f32({1.0, 0.50001}), DType::kFloat32),
               {"1.0", "1.0013580322265625e-05", "1.001358e-05", "2.002676e-05", "1.0", "1.0"});
  std::string msg;
  expect_cells(metrics({1.0, kInf}, {1.0, 2.0}, DType::kFloat32, &msg), {"N/A", "N/A", "N/A", "N/A", "N/A", "N/A"});
  EXPECT_EQ(msg, "The position of inf or nan in NPU and bench Tensor do not match.");
  expect_cells(metrics({0, 0, 0}, {1, 1, 1}, DType::kFloat32, &msg),
               {"Nan", "1.7320508075688772", "1.0", "1.0", "0.0", "0.0"});
}

TEST(MsprobeCompare, OneElementAndShapes) {
  MsTensorMetrics one({1}, {1}, DType::kFloat32, DType::kFloat32);
  double n = 2.5, b = 2.0;
  one.add(&n, &b, 1);
  std::string msg;
  expect_cells(one.finish(msg), {"unsupported", "unsupported", "0.5", "0.25", "unsupported", "unsupported"});
  MsTensorMetrics shapes({4, 4}, {2, 8}, DType::kFloat32, DType::kFloat32);
  EXPECT_FALSE(shapes.wants_values());
  expect_cells(shapes.finish(msg), {"shape unmatched", "shape unmatched", "shape unmatched", "shape unmatched",
                                    "shape unmatched", "shape unmatched"});
  EXPECT_TRUE(MsTensorMetrics({1, 5}, {5}, DType::kFloat32, DType::kFloat32).wants_values());
}

TEST(MsprobeCompare, EntryNamesAndFuzzyKeys) {
  auto p = ms_entry_parts("Functional.linear.0.backward");
  EXPECT_EQ(p.op, "Functional.linear");
  EXPECT_EQ(p.call_dir, "0.backward");
  EXPECT_EQ(p.direction, MsDirection::kBackward);
  p = ms_entry_parts("Module.conv2.Conv2d.forward.3");
  EXPECT_EQ(p.op, "Module.conv2.Conv2d");
  EXPECT_EQ(p.call_dir, "forward.3");
  EXPECT_EQ(ms_entry_parts("Module.conv2.Conv2d.parameters_grad").direction, MsDirection::kParametersGrad);
  EXPECT_FALSE(ms_entry_compared("something.else"));
  EXPECT_EQ(ms_fuzzy_key("Functional.linear.3.forward.input.0"), "Functional.linear.forward.input.0");
  EXPECT_EQ(ms_fuzzy_key("Module.conv2.Conv2d.forward.0.input.0"), "Module.conv2.forward.0.input.0");
  EXPECT_TRUE(ms_dtypes_match("torch.float16", "torch.bfloat16", false));
  EXPECT_FALSE(ms_dtypes_match("torch.float16", "Float16", false));
  EXPECT_TRUE(ms_dtypes_match("Int64", "torch.int64", true));
}

TEST(MsprobeCompare, FuzzyMatchSkipsCounters) {
  auto t = [](std::string e) { return tensor(e, ".output.0", "torch.float32", "[2]", s4(1, 0, 0.5, 1)); };
  std::vector<MsprobeItem> npu = {t("Torch.add.5.forward"), t("Torch.mul.2.forward"), t("Torch.sub.0.forward")};
  std::vector<MsprobeItem> bench = {t("Torch.mul.0.forward"), t("Torch.sub.9.forward")};
  MsMatchOptions o;
  o.fuzzy = true;
  auto pairs = ms_match(npu, bench, o);
  ASSERT_EQ(pairs.size(), 3u);
  EXPECT_FALSE(pairs[0].bench);
  EXPECT_EQ(pairs[1].bench, std::optional<size_t>(0));
  EXPECT_EQ(pairs[2].bench, std::optional<size_t>(1));
  o.fuzzy = false;
  o.data_mapping["Torch.add.5.forward.output.0"] = "Torch.sub.9.forward.output.0";
  pairs = ms_match(npu, bench, o);
  EXPECT_EQ(pairs[0].bench, std::optional<size_t>(1));
  // -dm with -fm: msProbe takes the data mapping and pairs exactly (the mapping is not dropped,
  // counters are not ignored): mul.2 has no mul.2 on the bench side.
  o.fuzzy = true;
  pairs = ms_match(npu, bench, o);
  ASSERT_EQ(pairs.size(), 3u);
  EXPECT_EQ(pairs[0].bench, std::optional<size_t>(1));
  EXPECT_FALSE(pairs[1].bench);
  EXPECT_FALSE(pairs[2].bench);
}

// 8.x (-i compare.json) pairs rows by name and shape: a row of the same name and another shape
// is unmatched (8.3.3's merge on the key and the shape, and its -fm check of both); 26.x pairs by
// name alone. -dm still pairs by name in 8.x. 8.x renumbers no backward counter.
TEST(MsprobeCompare, Msprobe8PairsByNameAndShape) {
  auto t = [](std::string e, std::string shape) {
    return tensor(std::move(e), ".output.0", "torch.float32", std::move(shape), s4(1, 0, 0.5, 1));
  };
  std::vector<MsprobeItem> npu = {t("Torch.add.0.forward", "[2, 3]"), t("Torch.mul.0.forward", "[4]")};
  std::vector<MsprobeItem> bench = {t("Torch.add.0.forward", "[3, 2]"), t("Torch.mul.0.forward", "[4]")};
  MsMatchOptions o;
  auto pairs = ms_match(npu, bench, o);  // 26.x
  ASSERT_EQ(pairs.size(), 2u);
  EXPECT_EQ(pairs[0].bench, std::optional<size_t>(0));
  EXPECT_EQ(pairs[1].bench, std::optional<size_t>(1));
  o.msprobe8 = true;
  pairs = ms_match(npu, bench, o);
  ASSERT_EQ(pairs.size(), 2u);
  EXPECT_FALSE(pairs[0].bench);
  EXPECT_EQ(pairs[1].bench, std::optional<size_t>(1));
  o.fuzzy = true;  // 8.x's -fm: the same name without counters, and the same shape
  npu[1] = t("Torch.mul.7.forward", "[4]");
  pairs = ms_match(npu, bench, o);
  ASSERT_EQ(pairs.size(), 2u);
  EXPECT_FALSE(pairs[0].bench);
  EXPECT_EQ(pairs[1].bench, std::optional<size_t>(1));
  o.fuzzy = false;  // -dm: by name alone
  o.data_mapping["Torch.add.0.forward.output.0"] = "Torch.add.0.forward.output.0";
  pairs = ms_match(npu, bench, o);
  EXPECT_EQ(pairs[0].bench, std::optional<size_t>(0));
  // Backward counters: 26.x renumbers them by order (a recomputed forward shifts none), 8.x not.
  o = {};
  std::vector<MsprobeItem> nb = {t("Torch.add.3.backward", "[2]")};
  std::vector<MsprobeItem> bb = {t("Torch.add.0.backward", "[2]")};
  EXPECT_EQ(ms_match(nb, bb, o)[0].bench, std::optional<size_t>(0));
  o.msprobe8 = true;
  EXPECT_FALSE(ms_match(nb, bb, o)[0].bench);
}

TEST(MsprobeCompare, PercentTexts) {
  EXPECT_DOUBLE_EQ(ms_percent_value("12.5%"), 0.125);
  EXPECT_DOUBLE_EQ(ms_percent_value("0"), 0.0);
  EXPECT_DOUBLE_EQ(ms_percent_value("N/A"), 0.0);
  EXPECT_TRUE(std::isinf(ms_percent_value("inf")));
}

// 8.x's statistics cells (-i compare.json), from 8.3.3's CalcStatsDiff as read: a zero bench has
// no relative error, equal values are 0.0 / 0.0%, what is no number is N/A, a NaN difference Nan.
TEST(MsprobeCompare, StatisticsCells8x) {
  const MsprobeItem n = tensor("A.0.forward", ".output.0", "torch.float32", "[2]", s4(2.0, 0.5, kNan, 3.0));
  const MsprobeItem b = tensor("A.0.forward", ".output.0", "torch.float32", "[2]", s4(1.0, 0.0, 1.0, 3.0));
  const std::array<std::string, 8> want{"1.0", "0.5", "Nan", "0.0", "100.0%", "N/A", "Nan", "0.0%"};
  EXPECT_EQ(ms_summary_cells8(n, &b), want);
  // 26.x on the same pair: inf for the zero bench, "0" for equal values.
  EXPECT_EQ(ms_summary_cells(n, &b)[5], "inf");
  EXPECT_EQ(ms_summary_cells(n, &b)[7], "0");

  const MsprobeItem n2 = tensor("B.0.forward", ".output.0", "torch.bool", "[2]",
                                {MsCell::none(), MsCell::of_text("True"), MsCell::of(kInf), MsCell::of(1.0)});
  const MsprobeItem b2 = tensor("B.0.forward", ".output.0", "torch.bool", "[2]",
                                {MsCell::of(1.0), MsCell::of_text("False"), MsCell::of(1.0), MsCell::of(kInf)});
  const std::array<std::string, 8> want2{"N/A", "N/A", "inf", "-inf", "N/A", "N/A", "inf%", "nan%"};
  EXPECT_EQ(ms_summary_cells8(n2, &b2), want2);
  const std::array<std::string, 8> none{"N/A", "N/A", "N/A", "N/A", "N/A", "N/A", "N/A", "N/A"};
  EXPECT_EQ(ms_summary_cells8(n, nullptr), none);
}

}  // namespace
}  // namespace msit
