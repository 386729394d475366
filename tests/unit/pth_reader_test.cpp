// torch .pth reader: real files written once by torch.save (tests/data/pth/make_pth.py, Debian
// python3-torch 1.13) read back exactly, views in logical order, and hostile ZIPs and pickles.
#include <cstring>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "common/formats/dump_reader.h"
#include "common/formats/npz_internal.h"
#include "common/formats/pth_pickle.h"
#include "common/formats/pth_reader.h"
#include "common/layout/logical_stream.h"
#include "common/summary/summarize_internal.h"
#include "tests/tools/dumpgen/gen_pth.h"

namespace msit {
namespace {
// clang-format off: the pickle streams below are byte strings split after hex escapes ("\x00""0"),
// which clang-format would spread one piece per line.

const std::string kDir = std::string(MSIT_TESTDATA_DIR) + "/pth/";

std::string slurp(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Every logical element of the file's tensor, as T, through the ordinary layout readers.
template <class T>
std::vector<T> values_of(const std::string& name, RawDumpFile* header = nullptr) {
  auto o = open_raw(kDir + name);
  EXPECT_TRUE(o.ok()) << o.error().to_string();
  if (!o.ok()) return {};
  const TensorDesc& t = o->header.tensors.at(0);
  EXPECT_EQ(dtype_info(t.dtype).bits / 8, sizeof(T));
  auto plan = plan_layout(t, o->header.path);
  EXPECT_TRUE(plan.ok()) << plan.error().to_string();
  auto reader = LogicalReader::open(o->fd.get(), o->header.path, t, *plan);
  EXPECT_TRUE(reader.ok());
  std::vector<T> out(plan->element_count + 1);
  size_t got = 0;
  while (true) {
    auto n = (*reader)->read(reinterpret_cast<std::byte*>(out.data() + got), out.size() - got);
    EXPECT_TRUE(n.ok()) << n.error().to_string();
    if (!n.ok() || *n == 0) break;
    got += *n;
  }
  out.resize(got);
  if (header) *header = o->header;
  return out;
}

TEST(PthReal, Float32) {
  RawDumpFile h;
  EXPECT_EQ(values_of<float>("f32.pth", &h), (std::vector<float>{1.5f, -2.0f, 3.25f, 0.0f, 1e-3f, -7.0f}));
  EXPECT_EQ(h.kind, FileKind::kPth);
  EXPECT_EQ(h.tensors[0].dtype, DType::kFloat32);
  EXPECT_EQ(h.tensors[0].shape, (std::vector<uint64_t>{2, 3}));
  EXPECT_TRUE(h.tensors[0].strides.empty());
  EXPECT_EQ(h.tensors[0].payload_offset % 64, 0u);  // torch aligns storage members to 64 bytes
}

TEST(PthReal, Float16AndBFloat16) {
  EXPECT_EQ(values_of<uint16_t>("f16.pth"), (std::vector<uint16_t>{0x3c00, 0xb800, 0x7bff, 0x0001}));
  RawDumpFile h;
  EXPECT_EQ(values_of<uint16_t>("bf16.pth", &h), (std::vector<uint16_t>{0x3f80, 0x4000, 0xc040, 0x3f00}));
  EXPECT_EQ(h.tensors[0].dtype, DType::kBFloat16);
}

TEST(PthReal, Int64BoolAndScalar) {
  EXPECT_EQ(values_of<int64_t>("i64.pth"), (std::vector<int64_t>{-(int64_t{1} << 40), 0, 7, int64_t{1} << 62}));
  EXPECT_EQ(values_of<uint8_t>("bool.pth"), (std::vector<uint8_t>{1, 0, 1}));
  RawDumpFile h;
  EXPECT_EQ(values_of<double>("scalar.pth", &h), std::vector<double>{3.5});
  EXPECT_TRUE(h.tensors[0].shape.empty());
}

TEST(PthReal, TransposeInLogicalOrder) {
  RawDumpFile h;
  EXPECT_EQ(values_of<float>("transpose.pth", &h), (std::vector<float>{0, 3, 1, 4, 2, 5}));
  EXPECT_EQ(h.tensors[0].shape, (std::vector<uint64_t>{3, 2}));
  EXPECT_EQ(h.tensors[0].strides, (std::vector<uint64_t>{1, 3}));
}

TEST(PthReal, SliceWithStorageOffset) {
  RawDumpFile h;
  EXPECT_EQ(values_of<int32_t>("slice.pth", &h), (std::vector<int32_t>{5, 6, 9, 10}));
  const TensorDesc& t = h.tensors[0];
  EXPECT_EQ(t.strides, (std::vector<uint64_t>{4, 1}));
  EXPECT_EQ(t.payload_size, 6u * 4);  // elements 5..10 of the 16-element storage
}

TEST(PthReal, SummaryThroughTheStatisticsPath) {
  auto o = open_raw(kDir + "transpose.pth");
  ASSERT_TRUE(o.ok()) << o.error().to_string();
  auto s = summarize_open_file(o->fd.get(), o->header, StatsOptions{});
  ASSERT_TRUE(s.ok()) << s.error().to_string();
  EXPECT_EQ(s->source_kind, "pth");
  const TensorSummary& t = s->tensors.at(0);
  EXPECT_EQ(t.count, 6u);
  EXPECT_EQ(t.stats.max, 5.0);
  EXPECT_EQ(t.stats.mean, 2.5);
  ASSERT_TRUE(t.stats.values);
  EXPECT_EQ(*t.stats.values, (std::vector<double>{0, 3, 1, 4, 2, 5}));
}

TEST(PthNames, RoleAndIndexFromHookNames) {
  const std::string f32 = slurp(kDir + "f32.pth");
  auto bytes = std::as_bytes(std::span<const char>(f32));
  auto in = parse_pth_bytes(bytes, "/t/0/root.fc/input_2.pth");
  ASSERT_TRUE(in.ok()) << in.error().to_string();
  EXPECT_EQ(in->tensors[0].role, Role::kInput);
  EXPECT_EQ(in->tensors[0].index, 2u);
  auto out = parse_pth_bytes(bytes, "/t/0/root/output_1_0.pth");
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->tensors[0].role, Role::kOutput);
  EXPECT_EQ(out->tensors[0].index, 1u);
  EXPECT_EQ(out->tensors[0].sub_index, 0u);
}

// A .pth as torch.save lays it out (msit_dumpgen_lib's writer), members under x/, around `pkl`.
std::string with_pickle(const std::string& pkl, const std::string& storage = std::string(24, '\0')) {
  return dumpgen::pth_bytes("x", pkl, storage);
}

Result<RawDumpFile> parse(const std::string& bytes) {
  return parse_pth_bytes(std::as_bytes(std::span<const char>(bytes)), "/h/output.pth");
}

void expect_error(const Result<RawDumpFile>& r, Stage stage, const std::string& what) {
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().stage, stage) << r.error().to_string();
  EXPECT_EQ(r.error().path, "/h/output.pth");
  EXPECT_NE(r.error().message.find(what), std::string::npos) << r.error().message;
}

// The pickle of transpose.pth with a few bytes replaced.
std::string real_pickle() {
  return std::string(
      "\x80\x02"
      "ctorch._utils\n_rebuild_tensor_v2\nq\x00((X\x07\x00\x00\x00storageq\x01"
      "ctorch\n"
      "FloatStorage\nq\x02X\x01\x00\x00\x00"
      "0q\x03X\x03\x00\x00\x00"
      "cpuq\x04K\x06tq\x05QK\x00K\x03K\x02"
      "\x86q\x06K\x01K\x03\x86q\x07\x89"
      "ccollections\nOrderedDict\nq\x08)Rq\ttq\nRq\x0b.",
      154);
}

TEST(PthHostile, ValidHandMadeArchive) {
  auto r = parse(with_pickle(real_pickle()));
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(r->tensors[0].strides, (std::vector<uint64_t>{1, 3}));
}

TEST(PthHostile, TruncatedAndCorruptZip) {
  const std::string z = with_pickle(real_pickle());
  expect_error(parse(z.substr(0, z.size() - 10)), Stage::kIncomplete, "no end-of-central-directory");
  expect_error(parse(z.substr(0, 10)), Stage::kIncomplete, "");
  std::string bad_crc = z;
  bad_crc[bad_crc.find("_rebuild") + 1] ^= 1;
  expect_error(parse(bad_crc), Stage::kHeader, "CRC-32");
  expect_error(parse(npz_internal::write_stored_zip({{"data.pkl", real_pickle()}})), Stage::kHeader,
               "unsupported .pth content: member 'data.pkl' is not under a top directory");
  expect_error(parse(npz_internal::write_stored_zip({{"x/version", "3\n"}})), Stage::kHeader, "no x/data.pkl member");
}

TEST(PthHostile, StorageProblems) {
  expect_error(parse(with_pickle(real_pickle(), std::string(20, '\0'))), Stage::kPayload,
               "storage member holds 20 bytes");
  std::string p = real_pickle();
  p.replace(p.find("FloatStorage"), 12, "QuuxxStorage");
  expect_error(parse(with_pickle(p)), Stage::kHeader, "unsupported .pth content: storage class torch.QuuxxStorage");
  std::string far = real_pickle();
  far[far.find("QK\x00", 0, 3) + 2] = 5;  // storage offset 5: the view now reaches element 10 of 6
  expect_error(parse(with_pickle(far)), Stage::kHeader, "view reaches past its storage");
  std::string key = real_pickle();
  key[key.find("X\x01\x00\x00\x00"
               "0",
               0, 6) +
      5] = '7';
  expect_error(parse(with_pickle(key)), Stage::kHeader, "storage member x/data/7 is missing");
}

TEST(PthHostile, PickleOutsideTheSubset) {
  auto pk = [](const std::string& s) {
    return parse_pth_pickle(std::as_bytes(std::span<const char>(s)), "/h/output.pth");
  };
  auto err = [&](const std::string& s, const std::string& what) {
    auto r = pk(s);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find(what), std::string::npos) << r.error().message;
  };
  err("\x80\x02}q\x00.", "unsupported .pth content: a list or dict");
  err("\x80\x02K\x01.", "the pickled object is a int, not one tensor");
  err(std::string("\x80\x02"
                  "cos\nsystem\nX\x02\x00\x00\x00ls\x85R.",
                  24),
      "unsupported .pth content: call of os.system");
  err("\x80\x02K\x01", "no STOP opcode");
  err("\x80\x02X\xff\xff\xff\x7f", "string runs past the end");
  err("\x80\x02h\x05.", "memo key 5 was never stored");
  err("\x80\x02t.", "no MARK");
  err("\x80\x02R.", "stack underflow");
  err("\x80\x02\x8a\x09"
      "123456789.",
      "wider than 64 bits");
  err("\x80\x02G.", "pickle opcode 0x47");
  std::string deep = "\x80\x02K\x00";
  for (int i = 0; i < 40; ++i) deep += '\x85';
  err(deep + ".", "nested deeper than 32");
  err("\x80\x02N" + std::string(100000, 'Q') + ".", "nested deeper than 32");
  std::string wide = "\x80\x02(";
  for (int i = 0; i < 5000; ++i) wide += "K\x01";
  err(wide + "t.", "stack deeper than 4096");
  std::string memo = "\x80\x02K\x01";
  for (int i = 0; i < 5000; ++i) memo += "r" + std::string(reinterpret_cast<const char*>(&i), 4);
  err(memo + ".", "more than 4096 memo entries");
  std::string neg = real_pickle();
  neg.replace(neg.find("K\x03K\x02\x86", 0, 5), 2, "J\xff\xff\xff\xff", 5);  // size -1
  auto r = pk(neg);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("not non-negative integers"), std::string::npos) << r.error().message;
}

TEST(PthHostile, ParameterAndLong1) {
  std::string p = real_pickle();
  // Wrap as nn.Parameter: _rebuild_parameter(tensor, requires_grad, hooks).
  p.pop_back();  // STOP
  p = "\x80\x02"
      "ctorch._utils\n_rebuild_parameter\n" +
      p.substr(2) + "\x88)\x87R.";
  p.replace(p.find("K\x06t", 0, 3), 2, "\x8a\x01\x06", 3);  // numel as LONG1
  auto r = parse_pth_pickle(std::as_bytes(std::span<const char>(p)), "x");
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(r->storage_numel, 6u);
  EXPECT_EQ(r->size, (std::vector<uint64_t>{3, 2}));
}

}  // namespace
}  // namespace msit

#include "common/layout/layout_map.h"

namespace msit {
namespace {

// Strided views against a naive index loop, with windows of a few elements so that every
// cache refill and carry path runs.
TEST(StridedReader, MatchesNaiveGatherWithTinyWindows) {
  std::vector<int32_t> storage(200);
  for (size_t i = 0; i < storage.size(); ++i) storage[i] = static_cast<int32_t>(i * 7 - 50);
  auto bytes = std::as_bytes(std::span<const int32_t>(storage));
  struct Case {
    std::vector<uint64_t> shape, strides;
    uint64_t offset;
  };
  const Case cases[] = {
      {{3, 4}, {1, 3}, 0},  {{2, 3, 4}, {40, 1, 8}, 5},        {{4, 5}, {0, 2}, 1},        {{5, 1, 3}, {30, 99, 1}, 10},
      {{7}, {13}, 3},       {{2, 2, 2, 2}, {50, 1, 20, 3}, 0}, {{2, 3, 4}, {12, 1, 3}, 0}, {{5, 6}, {1, 5}, 2},
      {{9, 3}, {1, 40}, 1}, {{4, 2, 3}, {1, 12, 4}, 0},        {{3, 2, 2}, {1, 3, 0}, 2},  {{1, 4, 3}, {7, 1, 4}, 0}};
  for (const Case& c : cases) {
    TensorDesc t;
    t.dtype = DType::kInt32;
    t.shape = c.shape;
    t.original_shape = c.shape;
    t.strides = c.strides;
    t.payload_offset = c.offset * 4;
    uint64_t last = 0;
    for (size_t d = 0; d < c.shape.size(); ++d) last += (c.shape[d] - 1) * c.strides[d];
    t.payload_size = (last + 1) * 4;
    std::vector<int32_t> want;
    std::vector<uint64_t> idx(c.shape.size(), 0);
    for (uint64_t n = 0; n < t.stored_count(); ++n) {
      uint64_t p = c.offset;
      for (size_t d = 0; d < idx.size(); ++d) p += idx[d] * c.strides[d];
      want.push_back(storage[p]);
      for (size_t d = idx.size(); d-- > 0;) {
        if (++idx[d] < c.shape[d]) break;
        idx[d] = 0;
      }
    }
    for (size_t window : {8u, 12u, 20u, 48u, 64u, 100u, 1u << 20}) {
      layout::LayoutOptions o;
      o.window_bytes = window;
      auto src = std::make_shared<MemorySource>(bytes, "mem");
      auto r = layout::open_reader_with(src, "mem", t, o);
      ASSERT_TRUE(r.ok()) << r.error().to_string();
      std::vector<int32_t> got(want.size() + 1);
      size_t n = 0;
      while (true) {
        auto k = (*r)->read(reinterpret_cast<std::byte*>(got.data() + n), std::min<size_t>(3, got.size() - n));
        ASSERT_TRUE(k.ok());
        if (*k == 0) break;
        n += *k;
      }
      got.resize(n);
      EXPECT_EQ(got, want) << "window " << window;
    }
  }
}

TEST(StridedReader, ViewPastPayloadIsAnError) {
  TensorDesc t;
  t.dtype = DType::kFloat32;
  t.shape = t.original_shape = {3, 2};
  t.strides = {1, 3};
  t.payload_size = 20;  // needs 24
  auto plan = plan_layout(t, "/v.pth");
  ASSERT_FALSE(plan.ok());
  EXPECT_NE(plan.error().message.find("reaches past its 20-byte payload"), std::string::npos) << plan.error().message;
  t.strides = {UINT64_MAX / 2, 3};
  EXPECT_FALSE(plan_layout(t, "/v.pth").ok());
}

// clang-format on
}  // namespace
}  // namespace msit
