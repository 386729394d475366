// opcheck's msProbe front end on a rank folder written here from docs/formats/msprobe.md (dump.json
// text, torch.save .pt files): a linear with its bias as a keyword agrees and with one element
// wrong disagrees; keyword arguments are read (a scalar operand, normalized_shape, torch's
// defaults); what dump.json does not say makes the op not recomputed, with the reason.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "common/opcheck/opcheck.h"
#include "tests/tools/dumpgen/gen_npy.h"
#include "tests/tools/dumpgen/gen_pth.h"
#include "tests/unit/compare_fixtures.h"
#include "tests/unit/opcheck_fixtures.h"

namespace {

namespace fs = std::filesystem;
using compare_test::raw_f32;
using compare_test::TempDir;
using compare_test::write_file;
using namespace msit::opcheck;

// Writes the tensor file `name` and returns its dump.json record.
std::string tensor(const fs::path& rank, const std::string& name, const std::vector<uint64_t>& shape,
                   const std::vector<float>& v, bool with_data_name = true) {
  const std::string stem = name.substr(0, name.size() - 3);
  write_file(rank / "dump_tensor_data" / name,
             dumpgen::pth_bytes(stem, dumpgen::pth_pickle("FloatStorage", shape), raw_f32(v)));
  std::string dims;
  for (uint64_t d : shape) dims += (dims.empty() ? "" : ",") + std::to_string(d);
  return R"({"type":"torch.Tensor","dtype":"torch.float32","shape":[)" + dims +
         R"(],"Max":0,"Min":0,"Mean":0,"Norm":0,"requires_grad":false)" +
         (with_data_name ? R"(,"data_name":")" + name + "\"" : std::string()) + "}";
}

std::string entry(const std::string& name, const std::string& args, const std::string& kwargs, const std::string& out) {
  return "\"" + name + R"(":{"input_args":[)" + args + R"(],"input_kwargs":{)" + kwargs + R"(},"output":[)" + out +
         "]}";
}

struct Rank {
  TempDir t;
  fs::path dir = t.path / "step0" / "rank0";
  std::vector<std::string> entries;
  void write() const {
    std::string data;
    for (const auto& e : entries) data += (data.empty() ? "" : ",") + e;
    write_file(dir / "dump.json",
               R"({"task":"tensor","level":"L1","framework":"pytorch","dump_data_dir":null,"data":{)" + data + "}}");
  }
  OpCheckResult check(const std::string& e) const {
    return check_front_end(msprobe_front_end({dir.string(), e}), e, OpcheckOptions{});
  }
};

// Functional.linear of opcheck_test::linear_4x6_to_5, its bias passed as a keyword.
void add_linear(Rank& r, const std::string& name, int corrupt) {
  const auto [x, w, b, y] = opcheck_test::linear_4x6_to_5(corrupt);
  r.entries.push_back(entry(
      name, tensor(r.dir, name + ".input.0.pt", {4, 6}, x) + "," + tensor(r.dir, name + ".input.1.pt", {5, 6}, w),
      R"("bias":)" + tensor(r.dir, name + ".kwargs.bias.pt", {5}, b), tensor(r.dir, name + ".output.0.pt", {4, 5}, y)));
}

TEST(OpcheckMsprobe, LinearWithKeywordBiasAgreesAndOneWrongElementDisagrees) {
  Rank r;
  add_linear(r, "Functional.linear.0.forward", -1);
  add_linear(r, "Functional.linear.1.forward", 7);
  r.write();
  const OpCheckResult ok = r.check("Functional.linear.0.forward");
  ASSERT_EQ(ok.verdict, OpVerdict::kAgrees) << ok.detail;
  EXPECT_EQ(ok.op_type, "linear");
  EXPECT_EQ(ok.outputs[0].count, 20u);
  // A tensor file of the entry names it: the one dispatch finds dump.json above it.
  const std::string out = (r.dir / "dump_tensor_data" / "Functional.linear.1.forward.output.0.pt").string();
  EXPECT_EQ(dump_kind_of(out), DumpKind::kMsprobeTensor);
  const OpCheckResult bad = check_dump_path(out, nullptr, {});
  ASSERT_EQ(bad.verdict, OpVerdict::kDisagrees) << bad.detail;
  EXPECT_EQ(bad.outputs[0].worst_index, 7u);
  EXPECT_EQ(bad.outputs[0].beyond_bound, 1u);
}

TEST(OpcheckMsprobe, KeywordArgumentsAndTorchDefaultsAreRead) {
  Rank r;
  auto x = compare_test::random_values(12, 6);
  std::vector<float> half(12), ln(12);
  for (size_t i = 0; i < 12; ++i) half[i] = x[i] * 0.5f;
  for (size_t row = 0; row < 2; ++row) {  // layer_norm over the last 6, no weight, torch's eps 1e-5
    float m = 0, v = 0;
    for (size_t k = 0; k < 6; ++k) m += x[row * 6 + k] / 6;
    for (size_t k = 0; k < 6; ++k) v += (x[row * 6 + k] - m) * (x[row * 6 + k] - m) / 6;
    for (size_t k = 0; k < 6; ++k) ln[row * 6 + k] = (x[row * 6 + k] - m) / std::sqrt(v + 1e-5f);
  }
  const std::string mul = "Tensor.mul.0.forward", norm = "Functional.layer_norm.0.forward";
  r.entries.push_back(entry(mul, tensor(r.dir, mul + ".input.0.pt", {2, 6}, x) + R"(,{"type":"float","value":0.5})", "",
                            tensor(r.dir, mul + ".output.0.pt", {2, 6}, half)));
  r.entries.push_back(entry(norm, tensor(r.dir, norm + ".input.0.pt", {2, 6}, x) + R"(,[{"type":"int","value":6}])", "",
                            tensor(r.dir, norm + ".output.0.pt", {2, 6}, ln)));
  r.write();
  const OpCheckResult m = r.check(mul);
  EXPECT_EQ(m.verdict, OpVerdict::kAgrees) << m.detail;
  EXPECT_EQ(m.kind, OpKind::kMuls);
  const OpCheckResult n = r.check(norm);
  EXPECT_EQ(n.verdict, OpVerdict::kAgrees) << n.detail;
}

TEST(OpcheckMsprobe, WhatDumpJsonDoesNotSayIsNotRecomputedWithTheReason) {
  Rank r;
  auto x = compare_test::random_values(6, 2);
  auto one = [&](const std::string& name, const std::string& more_args, const std::string& kwargs, bool data = true) {
    r.entries.push_back(entry(name, tensor(r.dir, name + ".input.0.pt", {6}, x, data) + more_args, kwargs,
                              tensor(r.dir, name + ".output.0.pt", {6}, x)));
  };
  one("Functional.softmax.0.forward", "", "");
  one("Functional.gelu.0.forward", "", R"("approximate":{"type":"str","value":"erf"})");
  one("Torch.add.0.forward", "," + tensor(r.dir, "y.pt", {6}, x), R"("alpha":{"type":"int","value":2})");
  one("Functional.rms_norm.0.forward", R"(,{"type":"torch.Size","value":[6]})", "");
  one("Functional.conv2d.0.forward", "", "");
  one("Functional.silu.1.forward", "", "", false);
  one("Functional.silu.0.backward", "", "");
  r.write();
  struct Case {
    std::string entry;
    SkipReason reason;
    std::string says;
  };
  for (const Case& c : {Case{"Functional.softmax.0.forward", SkipReason::kMissingAttribute, "dim"},
                        Case{"Functional.gelu.0.forward", SkipReason::kMissingAttribute, "approximate"},
                        Case{"Torch.add.0.forward", SkipReason::kMissingAttribute, "alpha"},
                        Case{"Functional.rms_norm.0.forward", SkipReason::kMissingInput, "weight"},
                        Case{"Functional.conv2d.0.forward", SkipReason::kUnknownOp, "recomputed set"},
                        Case{"Functional.silu.1.forward", SkipReason::kUnreadable, "data_name"},
                        Case{"Functional.silu.0.backward", SkipReason::kUnknownOp, "forward"},
                        Case{"Functional.silu.9.forward", SkipReason::kMissingInput, "no entry"}}) {
    const OpCheckResult res = r.check(c.entry);
    EXPECT_EQ(res.verdict, OpVerdict::kNotRecomputed) << c.entry;
    EXPECT_EQ(res.reason, c.reason) << c.entry << ": " << res.detail;
    EXPECT_NE(res.detail.find(c.says), std::string::npos) << c.entry << ": " << res.detail;
  }
}

// A MindSpore tensor record and its .npy file (float32 bytes; `dtype` as the record says it:
// "BFloat16" for a bf16 tensor MindSpore saved as fp32).
std::string ms_tensor(const fs::path& rank, const std::string& name, const std::vector<uint64_t>& shape,
                      const std::vector<float>& v, const std::string& dtype = "Float32") {
  write_file(rank / "dump_tensor_data" / name, dumpgen::npy_header("<f4", shape) + raw_f32(v));
  std::string dims;
  for (uint64_t d : shape) dims += (dims.empty() ? "" : ",") + std::to_string(d);
  return R"({"type":"mindspore.Tensor","dtype":")" + dtype + R"(","shape":[)" + dims +
         R"(],"Max":0,"Min":0,"Mean":0,"Norm":0,"data_name":")" + name + "\"}";
}

// bf16 rounding (nearest even) of a float, as a float.
float to_bf16(float f) {
  uint32_t u = 0;
  std::memcpy(&u, &f, 4);
  u = (u + 0x7fffu + ((u >> 16) & 1u)) & 0xffff0000u;
  std::memcpy(&f, &u, 4);
  return f;
}

// MindSpore's API names (docs/opcheck.md "msProbe dumps"): mindspore.ops' own keywords (cat's
// axis, softmax's default axis) are read, not torch's; a bf16 output saved as fp32 is checked at
// bf16; a primitive's attributes and ops.gelu's version-dependent default are not guessed.
TEST(OpcheckMsprobe, MindSporeApisAreReadWithTheirOwnSignatures) {
  Rank r;
  auto a = compare_test::random_values(6, 7), b = compare_test::random_values(6, 8);
  std::vector<float> sum(6), cat1(12), sm(6), silu(6);
  for (size_t i = 0; i < 6; ++i) sum[i] = a[i] + b[i];
  for (size_t row = 0; row < 2; ++row)  // [2, 3] ++ [2, 3] along axis 1
    for (size_t k = 0; k < 6; ++k) cat1[row * 6 + k] = k < 3 ? a[row * 3 + k] : b[row * 3 + k - 3];
  for (size_t row = 0; row < 2; ++row) {  // softmax over the last axis (ops.softmax's default)
    double z = 0;
    for (size_t k = 0; k < 3; ++k) z += std::exp(static_cast<double>(a[row * 3 + k]));
    for (size_t k = 0; k < 3; ++k)
      sm[row * 3 + k] = static_cast<float>(std::exp(static_cast<double>(a[row * 3 + k])) / z);
  }
  for (size_t i = 0; i < 6; ++i)
    silu[i] = to_bf16(static_cast<float>(a[i] / (1 + std::exp(-static_cast<double>(a[i])))));
  auto in = [&](const std::string& e, int k, const std::vector<uint64_t>& shape, const std::vector<float>& v) {
    return ms_tensor(r.dir, e + ".input." + std::to_string(k) + ".npy", shape, v);
  };
  auto out = [&](const std::string& e, const std::vector<uint64_t>& shape, const std::vector<float>& v,
                 const std::string& dtype = "Float32") {
    return ms_tensor(r.dir, e + ".output.0.npy", shape, v, dtype);
  };
  const std::string add = "Mint.add.0.forward", cat = "Functional.cat.0.forward", soft = "Functional.softmax.0.forward",
                    act = "MintFunctional.silu.0.forward", prim = "Primitive.math.MatMul.0.forward",
                    gelu = "Functional.gelu.0.forward", rms = "Mint.rms_norm.0.forward";
  r.entries.push_back(entry(add, in(add, 0, {6}, a) + "," + in(add, 1, {6}, b), "", out(add, {6}, sum)));
  r.entries.push_back(entry(cat, "[" + in(cat, 0, {2, 3}, a) + "," + in(cat, 1, {2, 3}, b) + "]",
                            R"("axis":{"type":"int","value":1})", out(cat, {2, 6}, cat1)));
  r.entries.push_back(entry(soft, in(soft, 0, {2, 3}, a), "", out(soft, {2, 3}, sm)));
  r.entries.push_back(entry(act, in(act, 0, {6}, a), "", out(act, {6}, silu, "BFloat16")));
  r.entries.push_back(entry(prim, in(prim, 0, {2, 3}, a) + "," + in(prim, 1, {3, 2}, b), "", out(prim, {2, 2}, a)));
  r.entries.push_back(entry(gelu, in(gelu, 0, {6}, a), "", out(gelu, {6}, a)));
  r.entries.push_back(entry(rms, in(rms, 0, {6}, a), "", out(rms, {6}, a)));
  r.write();
  for (const std::string& e : {add, cat, soft, act}) {
    const OpCheckResult res = r.check(e);
    EXPECT_EQ(res.verdict, OpVerdict::kAgrees) << e << ": " << res.detail;
  }
  EXPECT_EQ(r.check(act).outputs.at(0).dtype, msit::DType::kBFloat16);
  struct Case {
    std::string entry;
    SkipReason reason;
    std::string says;
  };
  for (const Case& c : {Case{prim, SkipReason::kMissingAttribute, "attributes set at its construction"},
                        Case{gelu, SkipReason::kMissingAttribute, "approximate"},
                        Case{rms, SkipReason::kUnknownOp, "MindSpore API 'Mint.rms_norm'"}}) {
    const OpCheckResult res = r.check(c.entry);
    EXPECT_EQ(res.verdict, OpVerdict::kNotRecomputed) << c.entry;
    EXPECT_EQ(res.reason, c.reason) << c.entry << ": " << res.detail;
    EXPECT_NE(res.detail.find(c.says), std::string::npos) << c.entry << ": " << res.detail;
  }
}

}  // namespace
