// ATB tensor / stats .bin reader (docs/formats/atb-torch.md §2.6-§2.7): layout, dtype numbering, dispatch by
// content, summaries through the ordinary statistics path, and truncated/corrupt/hostile headers.
#include <fcntl.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "common/formats/atb_bin.h"
#include "common/formats/atb_names.h"
#include "common/formats/dump_reader.h"
#include "common/summary/summarize_internal.h"
#include "tests/tools/dumpgen/gen_atb_bin.h"

namespace msit {
namespace {

const std::string kPath = "/d/msit_dump_20260101_000000/tensors/0_42/0/3_LinearOperation/after/outtensor1.bin";

// An ND tensor .bin written by msit_dumpgen_lib; `dims` is spliced in as text, so that the malformed
// dims ("2,x", "-2") start from the well-formed file.
std::string atb_bin(int dtype, const std::string& dims, const std::string& data) {
  std::string h = dumpgen::atb_bin_header(dtype, 2, {}, data.size());
  h.insert(h.find("\ndims=") + 6, dims);
  return h + data;
}

template <class T>
std::string raw(std::initializer_list<T> v) {
  std::string s(v.size() * sizeof(T), '\0');
  std::memcpy(s.data(), std::data(v), s.size());
  return s;
}

Result<RawDumpFile> parse(const std::string& bytes, const std::string& path = kPath) {
  return parse_atb_bin_prefix(std::as_bytes(std::span<const char>(bytes)), bytes.size(), path);
}

void expect_error(const Result<RawDumpFile>& r, Stage stage, const std::string& what) {
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().stage, stage) << r.error().to_string();
  EXPECT_EQ(r.error().path, kPath);
  EXPECT_NE(r.error().message.find(what), std::string::npos) << r.error().message;
}

TEST(AtbBin, Float32Layout) {
  const std::string data = raw<float>({1, 2, 3, 4, 5, 6});
  const std::string f = atb_bin(0, "2,3", data);
  auto r = parse(f);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(r->kind, FileKind::kAtbBin);
  EXPECT_EQ(r->version, "1.0");
  ASSERT_EQ(r->tensors.size(), 1u);
  const TensorDesc& t = r->tensors[0];
  EXPECT_EQ(t.dtype, DType::kFloat32);
  EXPECT_EQ(t.role, Role::kOutput);
  EXPECT_EQ(t.index, 1u);
  EXPECT_EQ(t.shape, (std::vector<uint64_t>{2, 3}));
  EXPECT_EQ(t.original_shape, t.shape);
  EXPECT_EQ(t.ge_format, ge_format::kND);
  EXPECT_EQ(t.payload_offset, f.size() - data.size());
  EXPECT_EQ(t.payload_size, data.size());
  EXPECT_EQ(r->declared_size, f.size());
  EXPECT_FALSE(t.header_stats);
  EXPECT_TRUE(r->warnings.empty());
}

TEST(AtbBin, AclDtypeNumbering) {
  const std::pair<int, DType> cases[] = {
      {0, DType::kFloat32},     {1, DType::kFloat16},       {2, DType::kInt8},     {3, DType::kInt32},
      {4, DType::kUInt8},       {6, DType::kInt16},         {7, DType::kUInt16},   {8, DType::kUInt32},
      {9, DType::kInt64},       {10, DType::kUInt64},       {11, DType::kFloat64}, {12, DType::kBool},
      {16, DType::kComplex64},  {27, DType::kBFloat16},     {29, DType::kInt4},    {34, DType::kHiFloat8},
      {35, DType::kFloat8E5M2}, {36, DType::kFloat8E4M3FN}, {28, DType::kUnknown}, {5, DType::kUnknown},
      {99, DType::kUnknown},    {-1, DType::kUnknown}};
  for (auto [acl, want] : cases) EXPECT_EQ(dtype_from_acl(acl), want) << acl;
}

TEST(AtbBin, NamesGiveRoleAndIndex) {
  auto in = parse_atb_tensor_name("intensor12.bin");
  ASSERT_TRUE(in);
  EXPECT_EQ(in->role, Role::kInput);
  EXPECT_EQ(in->index, 12u);
  auto named = parse_atb_tensor_name("outtensor0_hidden_states.bin");
  ASSERT_TRUE(named);
  EXPECT_EQ(named->role, Role::kOutput);
  EXPECT_EQ(named->ir_name, "hidden_states");
  for (const char* bad : {"intensor.bin", "outtensor1.npy", "tensor1.bin", "intensor1_.bin", "intensor1x.bin",
                          "intensor99999999999.bin", "kernel_tilingdata.bin"}) {
    EXPECT_FALSE(parse_atb_tensor_name(bad)) << bad;
  }
  auto r = parse(atb_bin(1, "2", raw<uint16_t>({0x3c00, 0x4000})), "/x/intensor3_q.bin");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->tensors[0].role, Role::kInput);
  EXPECT_EQ(r->tensors[0].index, 3u);
}

TEST(AtbBin, DumpTreePath) {
  auto p = parse_dump_tree_path(kPath);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->tree, DumpTreePath::Tree::kAtb);
  EXPECT_EQ(p->root, "/d/msit_dump_20260101_000000");
  EXPECT_EQ(p->process_dir, "0_42");
  EXPECT_EQ(p->token, "0");
  EXPECT_EQ(p->op_dirs, std::vector<std::string>{"3_LinearOperation"});
  EXPECT_EQ(p->stage, "after");
  EXPECT_EQ(p->file_name, "outtensor1.bin");
  auto t = parse_dump_tree_path("ait_dump/torch_tensors/npu5_7624/1/root.fc/output.pth");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->tree, DumpTreePath::Tree::kTorch);
  EXPECT_EQ(t->root, "ait_dump");
  EXPECT_EQ(t->op_dirs, std::vector<std::string>{"root.fc"});
  EXPECT_FALSE(parse_dump_tree_path("/d/other/tensors/0_1/0/x.bin"));
  EXPECT_FALSE(is_atb_torch_dump_root_name("msit_dumpX"));
  EXPECT_TRUE(is_atb_torch_dump_root_name("ait_dump_20240527_101010"));
}

TEST(AtbBin, CountLineOptional) {
  auto with_data = parse("$Version=1.0\n$Object.Length=4\ndtype=0\ndims=1\n$Object.data=0,4\n$End=1\nabcd");
  ASSERT_TRUE(with_data.ok()) << with_data.error().to_string();
  EXPECT_FALSE(with_data->tensors[0].header_stats);
  EXPECT_EQ(with_data->tensors[0].payload_size, 4u);
  auto header_only = parse("$Version=1.0\ndtype=0\ndims=1\n$End=1\n");
  ASSERT_TRUE(header_only.ok()) << header_only.error().to_string();
  EXPECT_TRUE(header_only->tensors[0].header_stats);
}

TEST(AtbBin, ZeroRankAndTrailingBytes) {
  auto r = parse(atb_bin(0, "", raw<float>({7})) + "xyz");
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_TRUE(r->tensors[0].shape.empty());
  EXPECT_EQ(r->tensors[0].logical_count(), 1u);
  ASSERT_EQ(r->warnings.size(), 1u);
}

TEST(AtbBin, StatsFile) {
  std::string f =
      "$Version=1.0\n$Object.Count=0\n$Object.Length=0\nformat=2\ndtype=1\ndims=2,2\n"
      "max=4.5\nmin=-1\nmean=1.25\nl2norm=N/A\n$End=1\n";
  auto r = parse(f);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  const TensorDesc& t = r->tensors[0];
  ASSERT_TRUE(t.header_stats);
  EXPECT_EQ(t.header_stats->max, 4.5);
  EXPECT_EQ(t.header_stats->min, -1.0);
  EXPECT_EQ(t.header_stats->mean, 1.25);
  EXPECT_FALSE(t.header_stats->l2norm);
  EXPECT_EQ(t.payload_size, 0u);
  expect_error(parse("$Version=1.0\ndtype=1\ndims=2\nmax=abc\n$End=1\n"), Stage::kHeader, "max 'abc' is not a number");
}

TEST(AtbBin, Truncated) {
  const std::string f = atb_bin(0, "4", raw<float>({1, 2, 3, 4}));
  expect_error(parse(f.substr(0, f.size() - 3)), Stage::kIncomplete, "declares 16 data bytes");
  expect_error(parse(f.substr(0, 40)), Stage::kIncomplete, "no '$End=1' line yet");
  auto short_prefix = parse_atb_bin_prefix(std::as_bytes(std::span<const char>(f.data(), 40)), 1u << 20, kPath);
  expect_error(short_prefix, Stage::kHeader, "no '$End=1' line in the first 64 KiB");
}

TEST(AtbBin, Corrupt) {
  expect_error(parse("$Version=1.0\nbad line\n$End=1\n"), Stage::kHeader, "is not 'name=value'");
  expect_error(parse("$Version=1.0\na=b=c\n$End=1\n"), Stage::kHeader, "is not 'name=value'");
  expect_error(parse("$Version=1.0\ndtype=0\n$End=1\n"), Stage::kHeader, "no dims line");
  expect_error(parse("$Version=1.0\ndims=1\n$End=1\n"), Stage::kHeader, "no dtype line");
  expect_error(parse(atb_bin(0, "2,x", "12345678")), Stage::kHeader, "dims '2,x'");
  expect_error(parse(atb_bin(0, "-2", "12345678")), Stage::kHeader, "dims '-2'");
  expect_error(parse(atb_bin(0, "99999999999999999999", "")), Stage::kHeader, "dims");
  expect_error(
      parse("$Version=1.0\n$Object.Count=1\n$Object.Length=4\ndtype=0\ndims=1\n$Object.data=2,4\n$End=1\n1234"),
      Stage::kHeader, "lies outside $Object.Length=4");
  expect_error(parse("$Version=1.0\n$Object.Count=1\n$Object.Length=4\ndtype=0\ndims=1\n$End=1\n1234"), Stage::kHeader,
               "no $Object.data line");
  expect_error(parse("$Version=1.0\n$Object.Count=1\n$Object.Length=18446744073709551615\ndtype=0\ndims=1\n"
                     "$Object.data=18446744073709551615,1\n$End=1\n"),
               Stage::kHeader, "lies outside");
  std::string many = "$Version=1.0\ndtype=0\ndims=";
  for (int i = 0; i < 40; ++i) many += "1,";
  expect_error(parse(many + "1\n$End=1\n"), Stage::kHeader, "more than 32 dims");
}

class AtbBinFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::path(::testing::TempDir()) / ("atb_bin_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& bytes) {
    std::string p = (dir_ / name).string();
    std::ofstream(p, std::ios::binary) << bytes;
    return p;
  }
  std::filesystem::path dir_;
};

TEST_F(AtbBinFile, DispatchByContentAndSummarise) {
  // The name says nothing: the reader is chosen from the `$Version=` magic.
  std::string p = write("weird_name", atb_bin(1, "1,3", raw<uint16_t>({0x3c00, 0xc000, 0x4200})));
  auto o = open_raw(p);
  ASSERT_TRUE(o.ok()) << o.error().to_string();
  EXPECT_EQ(o->header.kind, FileKind::kAtbBin);
  auto s = summarize_open_file(o->fd.get(), o->header, StatsOptions{});
  ASSERT_TRUE(s.ok()) << s.error().to_string();
  EXPECT_EQ(s->source_kind, "atb_bin");
  ASSERT_EQ(s->tensors.size(), 1u);
  const TensorSummary& t = s->tensors[0];
  EXPECT_EQ(t.dtype, "float16");
  EXPECT_EQ(t.count, 3u);
  EXPECT_EQ(t.stats.max, 3.0);
  EXPECT_EQ(t.stats.min, -2.0);
  EXPECT_DOUBLE_EQ(*t.stats.mean, 2.0 / 3.0);
  ASSERT_TRUE(t.stats.values);
  EXPECT_EQ(t.stats.values->size(), 3u);
  EXPECT_EQ(t.xxh3_64.size(), 16u);
}

TEST_F(AtbBinFile, StatsFileSummary) {
  std::string p = write("outtensor0.bin",
                        "$Version=1.0\n$Object.Count=0\n$Object.Length=0\nformat=2\ndtype=0\n"
                        "dims=3\nmax=3\nmin=-4\nmean=0.5\nl2norm=5\n$End=1\n");
  auto o = open_raw(p);
  ASSERT_TRUE(o.ok()) << o.error().to_string();
  auto s = summarize_open_file(o->fd.get(), o->header, StatsOptions{});
  ASSERT_TRUE(s.ok()) << s.error().to_string();
  const TensorSummary& t = s->tensors.at(0);
  EXPECT_TRUE(t.stats_available);
  EXPECT_EQ(t.count, 3u);
  EXPECT_EQ(t.stats.max, 3.0);
  EXPECT_EQ(t.stats.min, -4.0);
  EXPECT_EQ(t.stats.mean, 0.5);
  EXPECT_EQ(t.stats.l2norm, 5.0);
  EXPECT_EQ(t.stats.abs_max, 4.0);
  EXPECT_FALSE(t.stats.sketch);
  EXPECT_FALSE(t.stats.values);
  EXPECT_TRUE(t.xxh3_64.empty());
  EXPECT_NE(t.note.find("max, min, mean, l2norm only"), std::string::npos);
}

TEST_F(AtbBinFile, ShortPayloadIsAPayloadError) {
  // Header claims [4] float32 but the object holds 8 bytes: caught before any element is read.
  std::string p = write("outtensor0.bin", atb_bin(0, "4", raw<float>({1, 2})));
  auto o = open_raw(p);
  ASSERT_TRUE(o.ok()) << o.error().to_string();
  auto s = summarize_open_file(o->fd.get(), o->header, StatsOptions{});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().stage, Stage::kPayload);
  EXPECT_NE(s.error().message.find("needs 16 bytes"), std::string::npos) << s.error().message;
}

}  // namespace
}  // namespace msit
