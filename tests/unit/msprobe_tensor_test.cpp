// msProbe tensor files through the ordinary readers (docs/formats/msprobe.md §8): a .pt saved
// from a device tensor (storage location npu:0), a MindSpore .npy of bf16 values saved as
// float32, and a .pt whose storage is shorter than its shape.
#include <filesystem>

#include <gtest/gtest.h>

#include "common/formats/dump_reader.h"
#include "common/formats/msprobe_names.h"
#include "common/formats/pth_reader.h"
#include "common/safety/dump_roots.h"
#include "common/summary/summarize.h"
#include "tests/tools/dumpgen/gen_dtype.h"
#include "tests/tools/dumpgen/gen_files.h"
#include "tests/tools/dumpgen/gen_npy.h"
#include "tests/tools/dumpgen/gen_pth.h"

namespace msit {
namespace {

namespace fs = std::filesystem;

std::string encode(const std::vector<double>& v, const char* dtype) {
  const dumpgen::DTypeSpec& dt = *dumpgen::find_dtype(dtype);
  std::string out(v.size() * dt.bytes, '\0');
  for (size_t i = 0; i < v.size(); ++i)
    dumpgen::store_code(dt, dumpgen::encode_value(dt, v[i]), reinterpret_cast<uint8_t*>(out.data()) + i * dt.bytes);
  return out;
}

struct RankDir {
  fs::path root, tensors;
  RankDir() {
    std::string tmpl = (fs::temp_directory_path() / "msit-msprobe-t-XXXXXX").string();
    root = mkdtemp(tmpl.data());
    tensors = root / "step0" / "rank0" / "dump_tensor_data";
    fs::create_directories(tensors);
  }
  ~RankDir() {
    std::error_code ec;
    fs::remove_all(root, ec);
  }
};

TEST(MsprobeTensor, DeviceTensorPtIsReadAndSummarised) {
  RankDir d;
  const std::vector<double> v = {1.5, -2.0, 0.0, 3.0, 0.25, -0.5};
  const std::string name = "Functional.linear.0.forward.output.0.pt";
  dumpgen::write_file(
      (d.tensors / name).string(),
      dumpgen::pth_bytes("archive", dumpgen::pth_pickle("BFloat16Storage", {2, 3}, "npu:0"), encode(v, "bfloat16")));
  EXPECT_TRUE(is_dump_candidate_path((d.tensors / name).string()));
  auto s = summarize_raw_file((d.tensors / name).string(), StatsOptions{});
  ASSERT_TRUE(s.ok()) << s.error().to_string();
  ASSERT_EQ(s->tensors.size(), 1u);
  const TensorSummary& t = s->tensors[0];
  EXPECT_EQ(t.dtype, "bfloat16");
  EXPECT_EQ(t.shape, (std::vector<uint64_t>{2, 3}));
  EXPECT_EQ(t.count, 6u);
  EXPECT_EQ(t.stats.min, -2.0);
  EXPECT_EQ(t.stats.max, 3.0);
  EXPECT_EQ(t.stats.zero_count, 1u);
  EXPECT_EQ(s->source_kind, "pth");
  EXPECT_EQ(t.role, "output");
}

TEST(MsprobeTensor, MindsporeBf16SavedAsFloat32) {
  RankDir d;
  const std::vector<double> v = {0.5, 1.0078125, -3.0};  // bf16-exact values, widened
  const std::string name = "Mint.matmul.0.forward.output.0.npy";
  dumpgen::write_file((d.tensors / name).string(), dumpgen::npy_header("<f4", {3}) + encode(v, "float32"));
  EXPECT_TRUE(is_dump_candidate_path((d.tensors / name).string()));
  auto s = summarize_raw_file((d.tensors / name).string(), StatsOptions{});
  ASSERT_TRUE(s.ok()) << s.error().to_string();
  EXPECT_EQ(s->tensors.at(0).dtype, "float32");  // dump.json says BFloat16: the file is float32
  EXPECT_EQ(s->tensors.at(0).stats.max, 1.0078125);
  EXPECT_EQ(s->tensors.at(0).role, "output");
  Role role = Role::kOutput;
  uint32_t index = 9;
  ASSERT_TRUE(msprobe_tensor_role("Torch.cat.8.forward.input.2.1.pt", role, index));
  EXPECT_EQ(role, Role::kInput);
  EXPECT_EQ(index, 2u);
  ASSERT_TRUE(msprobe_tensor_role("Functional.linear.0.forward.kwargs.weight.pt", role, index));
  EXPECT_EQ(index, 0u);
}

TEST(MsprobeTensor, StorageShorterThanShapeIsRefused) {
  const std::string bytes =
      dumpgen::pth_bytes("archive", dumpgen::pth_pickle("FloatStorage", {4, 4}, "npu:0"), encode({1, 2, 3}, "float32"));
  auto r = parse_pth_bytes(std::as_bytes(std::span<const char>(bytes.data(), bytes.size())),
                           "/d/step0/rank0/dump_tensor_data/Torch.mul.0.forward.output.0.pt");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("need more"), std::string::npos) << r.error().message;
}

}  // namespace
}  // namespace msit
