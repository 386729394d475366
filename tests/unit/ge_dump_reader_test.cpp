// GE dump header reader: big-dump layout, schema variants, legacy whole-file protobuf, and
// every way a file can be short, long or corrupt (docs/formats/ge-dump.md §2-§7).
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "common/formats/dump_reader.h"
#include "common/formats/tensor_desc.h"
#include "dump_data.pb.h"
#include "tests/tools/dumpgen/gen_pb.h"

namespace msit {
namespace {

const std::string kPath = "/dumps/Add.Add_2.44.6.1706596912161941";

std::string hex(std::string_view h) {
  std::string out;
  for (size_t i = 0; i + 1 < h.size();) {
    if (h[i] == ' ') {
      ++i;
      continue;
    }
    out.push_back(static_cast<char>(std::stoi(std::string(h.substr(i, 2)), nullptr, 16)));
    i += 2;
  }
  return out;
}

// A raw length prefix, for the headers that lie about their length.
std::string le64(uint64_t v) {
  std::string s;
  for (int i = 0; i < 8; ++i) s.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
  return s;
}

// The big-dump framing of msit_dumpgen_lib around a header encoded here (libprotobuf or hex).
std::string big_dump(const std::string& header, const std::string& payloads) {
  return dumpgen::ge_big_dump(header, payloads);
}

std::string big_dump(const dumpdata::DumpData& d, const std::string& payloads) {
  return big_dump(d.SerializeAsString(), payloads);
}

Result<RawDumpFile> parse(const std::string& bytes, uint64_t file_size = UINT64_MAX) {
  if (file_size == UINT64_MAX) file_size = bytes.size();
  return parse_ge_dump_prefix(std::as_bytes(std::span<const char>(bytes)), file_size, kPath);
}

void add_input(dumpdata::DumpData& d, int dtype, std::vector<uint64_t> dims, uint64_t size) {
  auto* in = d.add_input();
  in->set_data_type(dtype);
  in->set_format(2);
  for (auto x : dims) in->mutable_shape()->add_dim(x);
  in->set_size(size);
}

void expect_error(const Result<RawDumpFile>& r, Stage stage, const std::string& what) {
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().stage, stage) << r.error().to_string();
  EXPECT_EQ(r.error().path, kPath);
  EXPECT_NE(r.error().message.find(what), std::string::npos) << r.error().message;
}

TEST(GeDumpReader, SpecTestVectorOfOpInput) {
  dumpdata::OpInput in;
  in.set_data_type(2);
  in.set_format(2);
  in.mutable_shape()->add_dim(2);
  in.mutable_shape()->add_dim(3);
  *in.mutable_original_shape() = in.shape();
  in.set_size(12);
  EXPECT_EQ(in.SerializeAsString(), hex("08 02 10 02 1a 04 0a 02 02 03 28 0c 32 04 0a 02 02 03"));
}

TEST(GeDumpReader, HandEncodedHeaderFromSpec) {
  // version "2.0", one input (the spec vector), op_name "Add_2".
  std::string header =
      hex("0a 03 32 2e 30 22 12 08 02 10 02 1a 04 0a 02 02 03 28 0c 32 04 0a 02 02 03") + hex("32 05") + "Add_2";
  std::string payload(12, '\x7f');
  auto r = parse(big_dump(header, payload));
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(r->version, "2.0");
  EXPECT_EQ(r->dump_op_name, "Add_2");
  EXPECT_FALSE(r->legacy_whole_protobuf);
  ASSERT_EQ(r->tensors.size(), 1u);
  const TensorDesc& t = r->tensors[0];
  EXPECT_EQ(t.role, Role::kInput);
  EXPECT_EQ(t.dtype, DType::kFloat16);
  EXPECT_EQ(t.ge_dtype, 2);
  EXPECT_EQ(ge_format_name(t.ge_format), "ND");
  EXPECT_EQ(t.shape, (std::vector<uint64_t>{2, 3}));
  EXPECT_EQ(t.original_shape, (std::vector<uint64_t>{2, 3}));
  EXPECT_EQ(t.payload_offset, 8 + header.size());
  EXPECT_EQ(t.payload_size, 12u);
  EXPECT_EQ(r->declared_size, 8 + header.size() + 12);
  EXPECT_TRUE(r->warnings.empty());
}

TEST(GeDumpReader, PayloadOrderIsInputsOutputsBuffersWorkspaces) {
  dumpdata::DumpData d;
  d.set_version("2.0");
  auto* out = d.add_output();  // serialised before the inputs, stored after them
  out->set_data_type(1);
  out->mutable_shape()->add_dim(4);
  out->set_size(16);
  add_input(d, 2, {3}, 6);
  add_input(d, 7, {2}, 8);
  d.add_buffer()->set_size(5);
  d.add_space()->set_size(7);
  std::string header = d.SerializeAsString();
  auto r = parse(big_dump(header, std::string(6 + 8 + 16 + 5 + 7, '\0')));
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  ASSERT_EQ(r->tensors.size(), 5u);
  uint64_t base = 8 + header.size();
  struct Want {
    Role role;
    uint32_t index;
    uint64_t off, size;
    DType dtype;
  };
  Want want[] = {{Role::kInput, 0, base, 6, DType::kFloat16},
                 {Role::kInput, 1, base + 6, 8, DType::kInt32},
                 {Role::kOutput, 0, base + 14, 16, DType::kFloat32},
                 {Role::kBuffer, 0, base + 30, 5, DType::kUInt8},
                 {Role::kWorkspace, 0, base + 35, 7, DType::kUInt8}};
  for (size_t i = 0; i < 5; ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(r->tensors[i].role, want[i].role);
    EXPECT_EQ(r->tensors[i].index, want[i].index);
    EXPECT_EQ(r->tensors[i].payload_offset, want[i].off);
    EXPECT_EQ(r->tensors[i].payload_size, want[i].size);
    EXPECT_EQ(r->tensors[i].dtype, want[i].dtype);
  }
  EXPECT_EQ(r->tensors[4].shape, std::vector<uint64_t>{7});
}

TEST(GeDumpReader, UnpackedDimsAndUnknownFields) {
  // OpInput: dtype float, shape with unpacked dims 2, 3, unknown varint/fixed32/fixed64/LEN
  // fields inside and outside, size 24.
  std::string input =
      hex("08 01 1a 04 08 02 08 03 78 05 85 01 01 02 03 04 89 01 01 02 03 04 05 06 07 08 "
          "92 01 02 aa bb 28 18");
  std::string header =
      hex("0a 03 32 2e 30 f8 01 07") + hex("22") + static_cast<char>(input.size()) + input + hex("a2 06 03 61 62 63");
  auto r = parse(big_dump(header, std::string(24, '\0')));
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  ASSERT_EQ(r->tensors.size(), 1u);
  EXPECT_EQ(r->tensors[0].shape, (std::vector<uint64_t>{2, 3}));
  EXPECT_EQ(r->tensors[0].payload_size, 24u);
  EXPECT_EQ(r->tensors[0].dtype, DType::kFloat32);
}

TEST(GeDumpReader, NegativeEnumValuesAreKeptNotRejected) {
  // data_type = -1 and format = -2 as 10-byte varints, size 0.
  std::string input = hex("08 ff ff ff ff ff ff ff ff ff 01 10 fe ff ff ff ff ff ff ff ff 01");
  std::string header = hex("22") + static_cast<char>(input.size()) + input;
  auto r = parse(big_dump(header, ""));
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  ASSERT_EQ(r->tensors.size(), 1u);
  EXPECT_EQ(r->tensors[0].ge_dtype, -1);
  EXPECT_EQ(r->tensors[0].dtype, DType::kUnknown);
  EXPECT_EQ(r->tensors[0].ge_format, -2);
  EXPECT_EQ(ge_format_name(r->tensors[0].ge_format), "FORMAT_254");
}

TEST(GeDumpReader, OldestSchemaWorkspacesInField7) {
  dumpdata::DumpData d;
  add_input(d, 1, {1}, 4);
  std::string header = d.SerializeAsString();
  // Workspace{type = 1, size = 10} and Workspace{size = 6} as DumpData field 7 (key 0x3a).
  header += hex("3a 04 08 01 18 0a 3a 02 18 06");
  auto r = parse(big_dump(header, std::string(4 + 10 + 6, '\0')));
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  ASSERT_EQ(r->tensors.size(), 3u);
  EXPECT_EQ(r->tensors[1].role, Role::kWorkspace);
  EXPECT_EQ(r->tensors[1].payload_size, 10u);
  EXPECT_EQ(r->tensors[2].payload_size, 6u);
  EXPECT_EQ(r->tensors[2].payload_offset, 8 + header.size() + 14);
}

TEST(GeDumpReader, NewestSchemaAttrIsNotAWorkspace) {
  dumpdata::DumpData d;
  add_input(d, 1, {1}, 4);
  auto* a = d.add_attr();
  a->set_name("ffts");
  a->set_value("{\"threadMode\":1}");
  d.add_space()->set_size(3);
  auto r = parse(big_dump(d, std::string(7, '\0')));
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  ASSERT_EQ(r->tensors.size(), 2u);
  EXPECT_EQ(r->tensors[1].role, Role::kWorkspace);
  EXPECT_EQ(r->tensors[1].payload_size, 3u);
}

TEST(GeDumpReader, OriginalShapeAndScalars) {
  dumpdata::DumpData d;
  auto* in = d.add_input();  // scalar: no shape at all
  in->set_data_type(1);
  in->set_size(4);
  auto* out = d.add_output();  // NZ device shape with a logical shape
  out->set_data_type(2);
  out->set_format(29);
  for (uint64_t x : {1, 1, 16, 16}) out->mutable_shape()->add_dim(x);
  out->mutable_original_shape()->add_dim(3);
  out->mutable_original_shape()->add_dim(5);
  out->set_size(512);
  auto r = parse(big_dump(d, std::string(516, '\0')));
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_TRUE(r->tensors[0].shape.empty());
  EXPECT_TRUE(r->tensors[0].original_shape.empty());
  EXPECT_EQ(r->tensors[0].logical_count(), 1u);
  EXPECT_EQ(r->tensors[1].stored_count(), 256u);
  EXPECT_EQ(r->tensors[1].logical_count(), 15u);
  EXPECT_EQ(ge_format_name(r->tensors[1].ge_format), "FRACTAL_NZ");
}

TEST(GeDumpReader, TrailingBytesAreAcceptedWithAWarning) {
  dumpdata::DumpData d;
  add_input(d, 1, {1}, 4);
  auto r = parse(big_dump(d, std::string(4 + 9, '\0')));
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  ASSERT_EQ(r->warnings.size(), 1u);
  EXPECT_NE(r->warnings[0].find("9 trailing bytes"), std::string::npos);
}

TEST(GeDumpReader, TruncatedPayloadIsIncomplete) {
  dumpdata::DumpData d;
  add_input(d, 1, {4}, 16);
  auto r = parse(big_dump(d, std::string(10, '\0')));
  expect_error(r, Stage::kIncomplete, "but the file has");
  EXPECT_TRUE(is_incomplete_error(r.error()));
}

TEST(GeDumpReader, HeaderLengthPastEndIsIncomplete) {
  dumpdata::DumpData d;
  add_input(d, 1, {4}, 16);
  std::string whole = big_dump(d, std::string(16, '\0'));
  auto r = parse(whole.substr(0, 12));
  expect_error(r, Stage::kIncomplete, "runs past the end");
  EXPECT_TRUE(is_incomplete_error(r.error()));
}

TEST(GeDumpReader, AbsurdHeaderLengthIsCorrupt) {
  auto r = parse(le64(kMaxGeHeaderBytes + 1) + std::string(32, '\x01'));
  expect_error(r, Stage::kHeader, "exceeds the limit");
  EXPECT_FALSE(is_incomplete_error(r.error()));
}

TEST(GeDumpReader, GarbageProtobufIsCorrupt) {
  auto r = parse(big_dump(std::string(16, '\xff'), std::string(32, '\0')));
  expect_error(r, Stage::kHeader, "not a valid DumpData");
}

TEST(GeDumpReader, SizesOverflowingUint64AreCorrupt) {
  dumpdata::DumpData d;
  add_input(d, 1, {1}, uint64_t{1} << 63);
  add_input(d, 1, {1}, uint64_t{1} << 63);
  auto r = parse(big_dump(d, std::string(8, '\0')));
  expect_error(r, Stage::kHeader, "overflow");
}

TEST(GeDumpReader, TinyFilesAreInvalidNotIncomplete) {
  for (size_t n = 0; n <= 8; ++n) {
    SCOPED_TRACE(n);
    auto r = parse(std::string(n, '\x05'));
    expect_error(r, Stage::kHeader, "too small");
    EXPECT_FALSE(is_incomplete_error(r.error()));
  }
}

TEST(GeDumpReader, NanoFormatIsReportedAsUnsupported) {
  std::string f = le64(20) + hex("5a 5a 5a 5a") + std::string(40, '\0');
  expect_error(parse(f), Stage::kHeader, "nano");
}

TEST(GeDumpReader, ZeroHeaderLengthIsInvalid) {
  expect_error(parse(le64(0) + std::string(8, '\0')), Stage::kHeader, "header length is 0");
}

// Legacy (pre-2.0): the whole file is one DumpData; payloads live in `data` fields.
std::string legacy_file(size_t input_bytes, std::string* input_data) {
  dumpdata::DumpData d;
  d.set_version("1.0");
  d.set_op_name("Conv_1");
  d.set_dump_time(1700000000000000);
  auto* out = d.add_output();
  out->set_data_type(1);
  out->mutable_shape()->add_dim(2);
  out->set_data(std::string("\x00\x00\x80\x3f\x00\x00\x00\x40", 8));
  out->set_size(8);
  auto* in = d.add_input();
  in->set_data_type(4);
  in->mutable_shape()->add_dim(input_bytes);
  *input_data = std::string(input_bytes, '\0');
  for (size_t i = 0; i < input_bytes; ++i) (*input_data)[i] = static_cast<char>(i * 7);
  in->set_data(*input_data);
  d.add_space()->set_data("ws!");
  return d.SerializeAsString();
}

TEST(GeDumpReader, LegacyWholeFileProtobufRecordsPayloadOffsets) {
  std::string in_data;
  std::string file = legacy_file(100, &in_data);
  auto r = parse(file);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_TRUE(r->legacy_whole_protobuf);
  EXPECT_EQ(r->version, "1.0");
  EXPECT_EQ(r->dump_op_name, "Conv_1");
  EXPECT_EQ(r->dump_time, 1700000000000000u);
  ASSERT_EQ(r->tensors.size(), 3u);
  const TensorDesc& in = r->tensors[0];
  EXPECT_EQ(in.role, Role::kInput);
  EXPECT_EQ(in.dtype, DType::kUInt8);
  ASSERT_EQ(in.payload_size, 100u);
  EXPECT_EQ(file.substr(in.payload_offset, in.payload_size), in_data);
  const TensorDesc& out = r->tensors[1];
  EXPECT_EQ(out.role, Role::kOutput);
  EXPECT_EQ(file.substr(out.payload_offset, out.payload_size), std::string("\x00\x00\x80\x3f\x00\x00\x00\x40", 8));
  EXPECT_EQ(r->tensors[2].role, Role::kWorkspace);
  EXPECT_EQ(file.substr(r->tensors[2].payload_offset, 3), "ws!");
}

TEST(GeDumpReader, LegacyTruncatedIsNotAccepted) {
  std::string in_data;
  std::string file = legacy_file(100, &in_data);
  EXPECT_FALSE(parse(file.substr(0, file.size() - 5)).ok());
}

class TempFile {
 public:
  explicit TempFile(const std::string& bytes) {
    path_ = (std::filesystem::temp_directory_path() /
             ("ge_reader_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter_++)))
                .string();
    FILE* f = std::fopen(path_.c_str(), "wb");
    std::fwrite(bytes.data(), 1, bytes.size(), f);
    std::fclose(f);
    fd_ = ::open(path_.c_str(), O_RDONLY);
  }
  ~TempFile() {
    ::close(fd_);
    std::remove(path_.c_str());
  }
  int fd() const { return fd_; }
  const std::string& path() const { return path_; }
  FileIdentity id() const { return identity_of(fd_, path_).value(); }

 private:
  static inline int counter_ = 0;
  std::string path_;
  int fd_ = -1;
};

TEST(GeDumpReader, LegacyFromFileWalksPayloadsLargerThanTheReadWindow) {
  std::string in_data;
  TempFile f(legacy_file(300000, &in_data));
  auto r = read_ge_dump_header(f.fd(), f.path(), f.id());
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_TRUE(r->legacy_whole_protobuf);
  EXPECT_EQ(r->identity.size, f.id().size);
  EXPECT_EQ(r->tensors[0].payload_size, 300000u);
  EXPECT_EQ(r->tensors[1].payload_size, 8u);
}

TEST(GeDumpReader, ReadsFromFileAndDispatchesOnMagic) {
  dumpdata::DumpData d;
  add_input(d, 1, {2}, 8);
  TempFile f(big_dump(d, std::string(8, '\0')));
  auto r = read_dump_header(f.fd(), f.path(), f.id());
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(r->kind, FileKind::kGeBin);
  EXPECT_EQ(r->identity.ino, f.id().ino);
  EXPECT_EQ(r->tensors[0].payload_size, 8u);
  TempFile truncated(big_dump(d, std::string(3, '\0')));
  auto t = read_ge_dump_header(truncated.fd(), truncated.path(), truncated.id());
  ASSERT_FALSE(t.ok());
  EXPECT_TRUE(is_incomplete_error(t.error()));
  EXPECT_EQ(t.error().path, truncated.path());
}

TEST(TensorDesc, NamesAndCounts) {
  EXPECT_EQ(role_name(Role::kInput), "input");
  EXPECT_EQ(role_name(Role::kWorkspace), "workspace");
  EXPECT_EQ(file_kind_name(FileKind::kNpy), "npy");
  EXPECT_EQ(ge_format_name(ge_format::kFractalNZ), "FRACTAL_NZ");
  EXPECT_EQ(ge_format_name(3 | (16 << 8) | (5 << 24)), "NC1HWC0");
  EXPECT_EQ(ge_primary_format(3 | (16 << 8)), 3);
  EXPECT_EQ(ge_format_name(31), "DHWCN");
  EXPECT_EQ(ge_format_name(49), "C1HWC0");
  EXPECT_EQ(ge_format_name(54), "FRACTAL_NZ_C0_8");
  EXPECT_EQ(ge_format_name(200), "FORMAT_200");
  EXPECT_EQ(ge_format_name(255), "MAX");
  TensorDesc t;
  t.shape = {uint64_t{1} << 40, uint64_t{1} << 40};
  EXPECT_EQ(t.stored_count(), UINT64_MAX);
  t.shape = {uint64_t{1} << 40, 0, uint64_t{1} << 40};
  EXPECT_EQ(t.stored_count(), 0u);
  t.original_shape = {};
  EXPECT_EQ(t.logical_count(), 1u);
}

}  // namespace
}  // namespace msit
