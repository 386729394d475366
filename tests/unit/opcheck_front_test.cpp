// opcheck's ATB and torch front ends (op directories written from the formats, not by the
// library) and compare --recompute's RecomputeSink: the injected op disagrees, the op before it
// agrees, ops outside the set or without their parameters are not recomputed and say why.
#include <gtest/gtest.h>

#include <cmath>

#include "common/compare/recompute.h"
#include "common/opcheck/opcheck.h"
#include "tests/tools/dumpgen/gen_atb_bin.h"
#include "tests/tools/dumpgen/gen_pth.h"
#include "tests/unit/compare_fixtures.h"
#include "tests/unit/opcheck_fixtures.h"

namespace {

namespace fs = std::filesystem;
using compare_test::raw_f32;
using compare_test::TempDir;
using compare_test::write_file;
using namespace msit::opcheck;

void atb_tensor(const fs::path& p, const std::vector<uint64_t>& dims, const std::vector<float>& v) {
  write_file(p, dumpgen::atb_bin_header(0 /* ACL_FLOAT */, 2 /* ND */, dims, v.size() * 4) + raw_f32(v));
}

void pth_tensor(const fs::path& dir, const std::string& stem, const std::vector<uint64_t>& shape,
                const std::vector<float>& v) {
  write_file(dir / (stem + ".pth"), dumpgen::pth_bytes(stem, dumpgen::pth_pickle("FloatStorage", shape), raw_f32(v)));
}

// An ATB Linear op directory of opcheck_test::linear_4x6_to_5 (weight transposed: transposeB).
fs::path atb_linear(const fs::path& root, const std::string& name, int corrupt = -1,
                    const std::string& param = R"({"transposeA":false,"transposeB":true,"hasBias":true})") {
  const fs::path d = root / name;
  const auto [x, w, b, y] = opcheck_test::linear_4x6_to_5(corrupt);
  atb_tensor(d / "before/intensor0.bin", {4, 6}, x);
  atb_tensor(d / "before/intensor1.bin", {5, 6}, w);
  atb_tensor(d / "before/intensor2.bin", {5}, b);
  atb_tensor(d / "after/outtensor0.bin", {4, 5}, y);
  if (!param.empty()) write_file(d / "op_param.json", param);
  return d;
}

// A torch hook API directory `root.mlp.{func}` of silu over 3 x 7 values (float32 kernel).
fs::path torch_silu(const fs::path& root, const std::string& func, int corrupt = -1) {
  const fs::path d = root / ("root.mlp." + func);
  auto x = compare_test::random_values(21, 9);
  std::vector<float> y(x.size());
  for (size_t i = 0; i < x.size(); ++i) y[i] = x[i] / (1.0f + std::exp(-x[i]));
  if (corrupt >= 0) y[static_cast<size_t>(corrupt)] += 0.01f;
  pth_tensor(d, "input_0", {3, 7}, x);
  pth_tensor(d, "output", {3, 7}, y);
  return d;
}

TEST(OpcheckAtb, LinearAgreesAndOneWrongElementDisagrees) {
  TempDir t;
  const fs::path good = atb_linear(t.path, "3_LinearOperation");
  EXPECT_EQ(dump_kind_of(good.string()), DumpKind::kAtbOpDir);
  const OpCheckResult r = check_dump_path(good.string(), nullptr, OpcheckOptions{});
  ASSERT_EQ(r.verdict, OpVerdict::kAgrees) << r.detail;
  ASSERT_EQ(r.outputs.size(), 1u);
  EXPECT_EQ(r.outputs[0].count, 20u);
  EXPECT_EQ(r.op_type, "LinearOperation");
  const OpCheckResult bad = check_dump_path(atb_linear(t.path, "4_LinearOperation", 13).string(), nullptr, {});
  ASSERT_EQ(bad.verdict, OpVerdict::kDisagrees) << bad.detail;
  EXPECT_EQ(bad.outputs[0].beyond_bound, 1u);
  EXPECT_EQ(bad.outputs[0].worst_index, 13u);
}

TEST(OpcheckAtb, MissingParametersAndUnknownOpsAreNotRecomputed) {
  TempDir t;
  const OpCheckResult no_json = check_dump_path(atb_linear(t.path, "1_LinearOperation", -1, "").string(), nullptr, {});
  EXPECT_EQ(no_json.verdict, OpVerdict::kNotRecomputed);
  EXPECT_EQ(no_json.reason, SkipReason::kMissingAttribute);
  EXPECT_NE(no_json.detail.find("op_param.json"), std::string::npos) << no_json.detail;

  const auto no_tb = check_dump_path(
      atb_linear(t.path, "2_LinearOperation", -1, R"({"transposeA":false,"hasBias":true})").string(), nullptr, {});
  EXPECT_EQ(no_tb.reason, SkipReason::kMissingAttribute);
  EXPECT_NE(no_tb.detail.find("transposeB"), std::string::npos) << no_tb.detail;

  const auto quant =
      check_dump_path(atb_linear(t.path, "3_LinearOperation", -1,
                                 R"({"transposeA":false,"transposeB":true,"hasBias":true,"quantMode":1})")
                          .string(),
                      nullptr, {});
  EXPECT_EQ(quant.reason, SkipReason::kUnknownOp);
  EXPECT_NE(quant.detail.find("quantMode"), std::string::npos) << quant.detail;

  const auto elewise =
      check_dump_path(atb_linear(t.path, "4_ElewiseOperation", -1, R"({"elewiseType":99})").string(), nullptr, {});
  EXPECT_EQ(elewise.reason, SkipReason::kUnknownOp);
  EXPECT_NE(elewise.detail.find("elewiseType 99"), std::string::npos) << elewise.detail;

  const auto attention = check_dump_path(atb_linear(t.path, "5_SelfAttentionOperation").string(), nullptr, {});
  EXPECT_EQ(attention.reason, SkipReason::kUnknownOp);
  EXPECT_NE(attention.detail.find("SelfAttentionOperation"), std::string::npos) << attention.detail;

  const auto bad_json = check_dump_path(atb_linear(t.path, "6_LinearOperation", -1, "{nope").string(), nullptr, {});
  EXPECT_EQ(bad_json.reason, SkipReason::kMissingAttribute);
}

TEST(OpcheckTorch, SiluAgreesWrongOutputDisagreesAndArgumentsNotDumpedAreNamed) {
  TempDir t;
  const fs::path silu = torch_silu(t.path, "silu");
  EXPECT_EQ(dump_kind_of(silu.string()), DumpKind::kTorchApiDir);
  const OpCheckResult r = check_dump_path(silu.string(), nullptr, {});
  ASSERT_EQ(r.verdict, OpVerdict::kAgrees) << r.detail;
  EXPECT_EQ(r.outputs[0].count, 21u);

  TempDir t2;
  const OpCheckResult bad = check_dump_path(torch_silu(t2.path, "silu", 5).string(), nullptr, {});
  ASSERT_EQ(bad.verdict, OpVerdict::kDisagrees) << bad.detail;
  EXPECT_EQ(bad.outputs[0].worst_index, 5u);

  const OpCheckResult softmax = check_dump_path(torch_silu(t.path, "softmax").string(), nullptr, {});
  EXPECT_EQ(softmax.reason, SkipReason::kMissingAttribute);
  EXPECT_NE(softmax.detail.find("dim"), std::string::npos) << softmax.detail;

  // add with one tensor input: the scalar operand is not in the dump.
  const OpCheckResult add = check_dump_path(torch_silu(t.path, "add").string(), nullptr, {});
  EXPECT_EQ(add.reason, SkipReason::kMissingInput);
  EXPECT_NE(add.detail.find("scalar"), std::string::npos) << add.detail;

  const fs::path conv = torch_silu(t.path, "conv2d");
  EXPECT_EQ(dump_kind_of(conv.string()), DumpKind::kNone);
  const OpCheckResult unknown = check_dump_path(conv.string(), nullptr, {});
  EXPECT_EQ(unknown.reason, SkipReason::kUnknownOp);
  EXPECT_NE(unknown.detail.find("recomputed set"), std::string::npos) << unknown.detail;
}

// A RowSink that keeps what it is handed.
struct Capture : msit::RowSink {
  std::vector<msit::ReportRow> got;
  msit::Status begin_rank(const msit::RankInfo&) override { return msit::ok_status(); }
  msit::Status rows(std::vector<msit::ReportRow>& rows) override {
    got.insert(got.end(), rows.begin(), rows.end());
    return msit::ok_status();
  }
  msit::Status end_rank(const msit::RankInfo&) override { return msit::ok_status(); }
};

msit::ReportRow row(int64_t token, const fs::path& my, const std::string& golden, bool first = false) {
  msit::ReportRow r;
  r.token_id = token;
  r.my_data_path = my.string();
  r.golden_data_path = golden;
  if (first) r.jump = msit::ReportRow::Jump::kFirst;
  return r;
}

TEST(RecomputeSink, FirstDivergenceDisagreesOpsBeforeItAcrossBatchesAgree) {
  TempDir t;
  const fs::path before = atb_linear(t.path, "1_LinearOperation") / "after/outtensor0.bin";
  const fs::path other = atb_linear(t.path, "2_LinearOperation") / "after/outtensor0.bin";
  const fs::path guilty = atb_linear(t.path, "3_LinearOperation", 7) / "after/outtensor0.bin";
  const fs::path no_param = atb_linear(t.path, "4_LinearOperation", -1, "") / "after/outtensor0.bin";
  Capture cap;
  msit::RecomputeOptions o;
  o.ops_before = 3;
  o.max_tokens = 1;
  msit::RecomputeSink sink(cap, o);
  ASSERT_TRUE(sink.begin_rank(msit::RankInfo{}).ok());
  // Batch 1: two ops of token 0 (one without its parameters); batch 2: token 1's row between
  // them and the first divergence, whose golden is an .npy (no inputs), then token 1's first
  // divergence (over max_tokens: not recomputed).
  std::vector<msit::ReportRow> b1{row(0, before, ""), row(0, no_param, "")};
  ASSERT_TRUE(sink.rows(b1).ok());
  std::vector<msit::ReportRow> b2{row(1, other, ""), row(0, guilty, (t.path / "x.npy").string(), true),
                                  row(1, guilty, "", true)};
  ASSERT_TRUE(sink.rows(b2).ok());
  ASSERT_EQ(cap.got.size(), 5u);
  const auto& lines = cap.got[3].recompute;
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0].rfind("first divergence: my 3_LinearOperation (LinearOperation): the kernel disagrees", 0), 0u)
      << lines[0];
  EXPECT_NE(lines[0].find("output 0: 1 of 20 beyond the bound"), std::string::npos) << lines[0];
  EXPECT_EQ(lines[1].rfind("op before it: my 4_LinearOperation (LinearOperation): not recomputed", 0), 0u) << lines[1];
  EXPECT_NE(lines[1].find("op_param.json"), std::string::npos) << lines[1];
  EXPECT_EQ(lines[2].rfind("op before it: my 1_LinearOperation (LinearOperation): the kernel agrees", 0), 0u)
      << lines[2];
  EXPECT_TRUE(cap.got[4].recompute.empty());  // the second token: over max_tokens

  // A new rank forgets the window; a golden cell of the same op is recomputed once.
  ASSERT_TRUE(sink.begin_rank(msit::RankInfo{}).ok());
  std::vector<msit::ReportRow> b3{row(0, guilty, guilty.string(), true)};
  ASSERT_TRUE(sink.rows(b3).ok());
  ASSERT_EQ(cap.got.back().recompute.size(), 1u);
  EXPECT_EQ(msit::recompute_path_of(guilty.string()), (t.path / "3_LinearOperation").string());
  EXPECT_EQ(msit::recompute_path_of((t.path / "x.npy").string()), "");
}

}  // namespace
