// .npy header reader: versions, header dict quirks, every numeric descr, byte order, and
// rejection of object/string arrays, bad shapes and short files (docs/formats/fx-npy.md §4).
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>

#include <gtest/gtest.h>

#include "common/formats/dump_reader.h"
#include "tests/tools/dumpgen/gen_npy.h"

namespace msit {
namespace {

const std::string kPath = "/fx/mm-aten.mm.default.INPUT.1.2.20240101000000000000.npy";

std::string npy(int version, std::string dict, size_t data_bytes, size_t extra = 0) {
  size_t len_bytes = version == 1 ? 2 : 4;
  dict += '\n';
  std::string out = std::string("\x93NUMPY", 6) + static_cast<char>(version) + '\0';
  for (size_t i = 0; i < len_bytes; ++i) out.push_back(static_cast<char>((dict.size() >> (8 * i)) & 0xFF));
  return out + dict + std::string(data_bytes + extra, '\x01');
}

// A v1 file with numpy's header (msit_dumpgen_lib: sorted keys, padded to 64 bytes) for `descr` and the
// shape text, then `data_bytes` + `extra` bytes. npy() above crafts the other versions and dicts.
std::string npy_v1(const std::string& descr, const std::string& shape_text, size_t data_bytes, size_t extra = 0) {
  return dumpgen::npy_header_raw(descr, shape_text) + std::string(data_bytes + extra, '\x01');
}

Result<RawDumpFile> parse(const std::string& bytes) {
  return parse_npy_prefix(std::as_bytes(std::span<const char>(bytes)), bytes.size(), kPath);
}

void expect_error(const Result<RawDumpFile>& r, Stage stage, const std::string& what) {
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().stage, stage) << r.error().to_string();
  EXPECT_EQ(r.error().path, kPath);
  EXPECT_NE(r.error().message.find(what), std::string::npos) << r.error().message;
}

TEST(NpyReader, Versions1To3) {
  for (int v : {1, 2, 3}) {
    SCOPED_TRACE(v);
    std::string f = npy(v, "{'descr': '<f2', 'fortran_order': False, 'shape': (2, 3), }", 12);
    auto r = parse(f);
    ASSERT_TRUE(r.ok()) << r.error().to_string();
    EXPECT_EQ(r->kind, FileKind::kNpy);
    ASSERT_EQ(r->tensors.size(), 1u);
    const TensorDesc& t = r->tensors[0];
    EXPECT_EQ(t.dtype, DType::kFloat16);
    EXPECT_EQ(t.shape, (std::vector<uint64_t>{2, 3}));
    EXPECT_EQ(t.original_shape, t.shape);
    EXPECT_EQ(t.payload_offset, f.size() - 12);
    EXPECT_EQ(t.payload_size, 12u);
    EXPECT_EQ(r->declared_size, f.size());
    EXPECT_FALSE(t.byte_swapped);
    EXPECT_FALSE(t.fortran_order);
    // Role and index come from the FX file name.
    EXPECT_EQ(t.role, Role::kInput);
    EXPECT_EQ(t.index, 1u);
    EXPECT_EQ(t.sub_index, 2u);
    EXPECT_TRUE(r->warnings.empty());
  }
}

TEST(NpyReader, DictInAnyOrderWithOddSpacing) {
  auto r = parse(npy(1, "{ \"shape\" : (4L,) ,'fortran_order':True,  'descr':'<i8' ,}   ", 32));
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(r->tensors[0].dtype, DType::kInt64);
  EXPECT_EQ(r->tensors[0].shape, std::vector<uint64_t>{4});
  EXPECT_TRUE(r->tensors[0].fortran_order);
}

TEST(NpyReader, EveryNumericDescr) {
  struct Case {
    const char* descr;
    DType dtype;
    uint32_t size;
    bool swapped;
  };
  const Case cases[] = {
      {"|b1", DType::kBool, 1, false},      {"|i1", DType::kInt8, 1, false},         {"|u1", DType::kUInt8, 1, false},
      {"<i2", DType::kInt16, 2, false},     {"<u2", DType::kUInt16, 2, false},       {"<i4", DType::kInt32, 4, false},
      {"<u4", DType::kUInt32, 4, false},    {"<i8", DType::kInt64, 8, false},        {"<u8", DType::kUInt64, 8, false},
      {"<f2", DType::kFloat16, 2, false},   {"<f4", DType::kFloat32, 4, false},      {"<f8", DType::kFloat64, 8, false},
      {"<c8", DType::kComplex64, 8, false}, {"<c16", DType::kComplex128, 16, false}, {">f4", DType::kFloat32, 4, true},
      {">i2", DType::kInt16, 2, true},      {">c8", DType::kComplex64, 8, true},     {">i1", DType::kInt8, 1, false},
      {"=f8", DType::kFloat64, 8, false},   {"|u1", DType::kUInt8, 1, false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.descr);
    auto r = parse(npy_v1(c.descr, "(3,)", 3 * c.size));
    ASSERT_TRUE(r.ok()) << r.error().to_string();
    EXPECT_EQ(r->tensors[0].dtype, c.dtype);
    EXPECT_EQ(r->tensors[0].payload_size, 3u * c.size);
    EXPECT_EQ(r->tensors[0].byte_swapped, c.swapped);
  }
}

TEST(NpyReader, ScalarAndEmptyShapes) {
  auto s = parse(npy_v1("<f8", "()", 8));
  ASSERT_TRUE(s.ok()) << s.error().to_string();
  EXPECT_TRUE(s->tensors[0].shape.empty());
  EXPECT_EQ(s->tensors[0].logical_count(), 1u);
  EXPECT_EQ(s->tensors[0].payload_size, 8u);
  auto e = parse(npy_v1("<f8", "(0, 5)", 0));
  ASSERT_TRUE(e.ok()) << e.error().to_string();
  EXPECT_EQ(e->tensors[0].payload_size, 0u);
}

TEST(NpyReader, ObjectAndStringArraysAreUnsupportedNotCrashes) {
  for (const char* d : {"|O", "<U7", "|S3", "|V2", "<M8[ns]", "<f16", "xyz", ""}) {
    SCOPED_TRACE(d);
    auto r = parse(npy_v1(d, "()", 8));
    expect_error(r, Stage::kHeader, "unsupported dtype");
  }
  auto o = parse(npy_v1("|O", "()", 8));
  expect_error(o, Stage::kHeader, "object/string arrays cannot be summarised");
  auto structured = parse(npy(1, "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }", 4));
  expect_error(structured, Stage::kHeader, "unsupported dtype");
}

TEST(NpyReader, BadMagicVersionAndDict) {
  expect_error(parse("\x93NUMPX\x01\x00\x10\x00{}"), Stage::kHeader, "bad magic");
  expect_error(parse(npy(4, "{'descr': '<f4', 'fortran_order': False, 'shape': (), }", 4)), Stage::kHeader,
               "unsupported format version");
  const char* bad[] = {
      "{'descr': '<f4', 'fortran_order': False}",                     // no shape
      "{'descr': '<f4', 'fortran_order': 0, 'shape': (), }",          // not a bool
      "{'descr': '<f4', 'fortran_order': False, 'shape': 3, }",       // not a tuple
      "{'descr': '<f4', 'fortran_order': False, 'shape': ('a',), }",  // non-integer dim
      "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), ",     // unterminated
      "{'descr: '<f4'}",                                              // broken string
      "['descr', '<f4']",                                             // not a dict
      "{'descr': '<f4', 'fortran_order': False, 'shape': (((((((((((1,),),),),),),),),),),), }",
  };
  for (const char* d : bad) {
    SCOPED_TRACE(d);
    expect_error(parse(npy(1, d, 64)), Stage::kHeader, "npy header");
  }
}

TEST(NpyReader, NegativeAndOverflowingShapes) {
  expect_error(parse(npy_v1("<f4", "(-1,)", 4)), Stage::kHeader, "negative");
  expect_error(parse(npy_v1("<f4", "(99999999999999999999999,)", 4)), Stage::kHeader, "overflows");
  expect_error(parse(npy_v1("<f4", "(4294967296, 4294967296)", 4)), Stage::kHeader, "overflows");
  expect_error(parse(npy_v1("<f8", "(4611686018427387904,)", 4)), Stage::kHeader, "overflows");
}

TEST(NpyReader, ShortDataIsIncompleteAndLongDataWarns) {
  auto shortr = parse(npy_v1("<f4", "(4,)", 10));
  expect_error(shortr, Stage::kIncomplete, "still being written");
  EXPECT_TRUE(is_incomplete_error(shortr.error()));
  auto longr = parse(npy_v1("<f4", "(4,)", 16, 5));
  ASSERT_TRUE(longr.ok());
  ASSERT_EQ(longr->warnings.size(), 1u);
  EXPECT_EQ(longr->tensors[0].payload_size, 16u);
  std::string f = npy_v1("<f4", "(4,)", 16);
  auto cut = parse(f.substr(0, 20));
  expect_error(cut, Stage::kIncomplete, "inside the");
  auto pre = parse(f.substr(0, 9));
  expect_error(pre, Stage::kIncomplete, "preamble");
}

TEST(NpyReader, ReadsFromFileAndDispatchesOnMagic) {
  std::string path =
      (std::filesystem::temp_directory_path() /
       ("add-aten.add.Tensor.OUTPUT.0.20240101000000000000_rank_0_pid_" + std::to_string(::getpid()) + ".npy"))
          .string();
  std::string f = npy(2, "{'descr': '>f4', 'fortran_order': False, 'shape': (2, 2), }", 16);
  FILE* out = std::fopen(path.c_str(), "wb");
  std::fwrite(f.data(), 1, f.size(), out);
  std::fclose(out);
  int fd = ::open(path.c_str(), O_RDONLY);
  auto id = identity_of(fd, path).value();
  auto r = read_dump_header(fd, path, id);
  ::close(fd);
  std::remove(path.c_str());
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(r->kind, FileKind::kNpy);
  EXPECT_EQ(r->identity.ino, id.ino);
  EXPECT_TRUE(r->tensors[0].byte_swapped);
  EXPECT_EQ(r->tensors[0].role, Role::kOutput);
  EXPECT_EQ(r->tensors[0].payload_offset, f.size() - 16);
}

}  // namespace
}  // namespace msit
