// Weight compare (-w, msit cmp_weight.py) and the safetensors reader it uses: dequantisation with
// per-channel offset/scale, skipped weights, the report columns, hostile headers.
#include <gtest/gtest.h>

#include "common/compare_atb/weight_compare.h"
#include "common/formats/safetensors.h"
#include "tests/unit/atb_fixtures.h"

namespace msit::atb {
namespace {

using namespace atb_test;

// Little-endian integer of `bytes` bytes (the safetensors header length).
void le(std::string& s, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) s.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

struct Tensor {
  std::string name, dtype;  // "F32" or "I8"
  std::vector<uint64_t> shape;
  std::vector<float> values;
};

std::string safetensors(const std::vector<Tensor>& ts) {
  std::string header = "{\"__metadata__\": {\"format\": \"pt\"}", data;
  for (const auto& t : ts) {
    size_t begin = data.size();
    for (float v : t.values) {
      if (t.dtype == "I8") data.push_back(static_cast<char>(static_cast<int8_t>(v)));
      else data.append(reinterpret_cast<const char*>(&v), 4);
    }
    std::string shape;
    for (size_t i = 0; i < t.shape.size(); ++i) shape += (i ? "," : "") + std::to_string(t.shape[i]);
    header += ", \"" + t.name + "\": {\"dtype\": \"" + t.dtype + "\", \"shape\": [" + shape + "], \"data_offsets\": [" +
              std::to_string(begin) + ", " + std::to_string(data.size()) + "]}";
  }
  header += "}";
  std::string len;
  le(len, header.size(), 8);
  return len + header + data;
}

TEST(WeightCompare, DequantisedInt8AgainstFloat) {
  TempDir t;
  write_file(t.p / "golden" / "model.safetensors", safetensors({{"fc.weight", "F32", {2, 3}, {0.5, 1, 1.5, -2, 0, 2}},
                                                                {"fc.bias", "F32", {2}, {1, 2}},
                                                                {"ln.weight", "F32", {3}, {1, 1, 1}},
                                                                {"out.weight", "F32", {2, 2}, {1, 2, 3, 4}}}));
  write_file(t.p / "my" / "quant.safetensors", safetensors({{"fc.weight", "I8", {2, 3}, {1, 2, 3, 0, 1, 2}},
                                                            {"fc.weight_offset", "F32", {2, 1}, {0, 1}},
                                                            {"fc.weight_scale", "F32", {2, 1}, {0.5, 2}},
                                                            {"ln.weight", "F32", {3}, {1, 1, 1}},
                                                            {"out.weight", "I8", {2, 2}, {-1, -2, -3, -4}},
                                                            {"out.weight_offset", "F32", {1}, {0}},
                                                            {"out.weight_scale", "F32", {}, {1}}}));
  auto res = run_weight_compare((t.p / "golden").string(), (t.p / "my").string(), false);
  ASSERT_TRUE(res.ok()) << res.error().to_string();
  ASSERT_EQ(res->rows.size(), 2u);  // names in order; ln.weight is not int8 in mine; biases are no weights
  EXPECT_EQ(res->skipped, 1u);
  const ReportRow& fc = res->rows[0].row;
  EXPECT_EQ(res->rows[0].weight_name, "fc.weight");
  EXPECT_EQ(msit::dtype_cell_text(fc.my_dtype), "torch.float32");
  EXPECT_EQ(fc.my_shape, "[2, 3]");
  EXPECT_EQ(*fc.cosine, 1.0);
  EXPECT_EQ(*fc.max_abs, 0.0);
  EXPECT_EQ(*fc.my_max, 2.0);
  const ReportRow& out = res->rows[1].row;
  EXPECT_EQ(*out.cosine, -1.0);
  EXPECT_EQ(out.verdict, Verdict::kFail);
  std::string csv = weight_report_csv(res->rows, false);
  EXPECT_EQ(
      csv.substr(0, csv.find('\n')),
      "weight_name,golden_dtype,golden_shape,golden_max_value,golden_min_value,golden_mean_value,my_dtype,my_shape,"
      "my_max_value,my_min_value,my_mean_value,cosine_similarity,max_relative_error,mean_relative_error,"
      "max_absolute_error,mean_absolute_error,kl_divergence,relative_euclidean_distance");
  EXPECT_NE(csv.find("\nfc.weight,torch.float32,\"[2, 3]\",2.0,-2.0,0.5,torch.float32,\"[2, "
                     "3]\",2.0,-2.0,0.5,1.0,0.0,0.0,0.0,0.0,"),
            std::string::npos)
      << csv;
}

TEST(WeightCompare, ShapesAndMissingFiles) {
  TempDir t;
  write_file(t.p / "golden" / "a.safetensors", safetensors({{"w.weight", "F32", {3}, {1, 2, 3}}}));
  write_file(t.p / "my" / "b.safetensors", safetensors({{"w.weight", "I8", {2, 2}, {1, 2, 3, 4}},
                                                        {"w.weight_offset", "F32", {3}, {0, 0, 0}},
                                                        {"w.weight_scale", "F32", {1}, {1}}}));
  auto res = run_weight_compare((t.p / "golden").string(), (t.p / "my").string(), false);
  ASSERT_TRUE(res.ok()) << res.error().to_string();
  ASSERT_EQ(res->rows.size(), 1u);
  EXPECT_EQ(res->rows[0].row.verdict, Verdict::kError);  // [3] does not broadcast onto [2, 2]
  EXPECT_NE(res->rows[0].row.note.find("do not broadcast"), std::string::npos);
  write_file(t.p / "my" / "b.safetensors", safetensors({{"w.weight", "I8", {2, 2}, {1, 2, 3, 4}},
                                                        {"w.weight_offset", "F32", {1}, {0}},
                                                        {"w.weight_scale", "F32", {1}, {1}}}));
  res = run_weight_compare((t.p / "golden").string(), (t.p / "my").string(), false);
  ASSERT_TRUE(res.ok());
  EXPECT_EQ(res->rows[0].row.fail_reason, msit::FailReason::kShapeMismatch);
  EXPECT_EQ(*res->rows[0].row.golden_mean, 2.0);
  fs::create_directories(t.p / "empty");
  write_file(t.p / "bin" / "pytorch_model.bin", "x");
  EXPECT_FALSE(run_weight_compare((t.p / "empty").string(), (t.p / "my").string(), false).ok());
  auto bin = run_weight_compare((t.p / "bin").string(), (t.p / "my").string(), false);
  ASSERT_FALSE(bin.ok());
  EXPECT_NE(bin.error().message.find(".bin"), std::string::npos);
}

TEST(Safetensors, HostileHeadersAreErrors) {
  std::string good = safetensors({{"a", "F32", {2}, {1, 2}}});
  auto parse = [](const std::string& file) {
    uint64_t n = 0;
    for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(file[static_cast<size_t>(i)]);
    return parse_safetensors_header(std::string_view(file).substr(8, n), 8 + n, file.size(), "x.safetensors");
  };
  ASSERT_TRUE(parse(good).ok());
  EXPECT_EQ(parse(good)->entries[0].count, 2u);
  for (std::string h :
       {"[]", "{\"a\": 1}", "{\"a\": {\"dtype\": \"F32\", \"shape\": [2], \"data_offsets\": [0, 9]}}",
        "{\"a\": {\"dtype\": \"F32\", \"shape\": [3], \"data_offsets\": [0, 8]}}",
        "{\"a\": {\"dtype\": \"Q4\", \"shape\": [2], \"data_offsets\": [0, 8]}}",
        "{\"a\": {\"dtype\": \"F32\", \"shape\": [-2], \"data_offsets\": [0, 8]}}",
        "{\"a\": {\"dtype\": \"F32\", \"shape\": [4294967296, 4294967296, 4], \"data_offsets\": [0, 8]}}",
        "{\"a\": {\"dtype\": \"F32\", \"shape\": [2], \"data_offsets\": [8, 0]}}", "{\"a\": [[[[[[[[]]]]]]]]}"}) {
    auto r = parse_safetensors_header(h, 8 + h.size(), 8 + h.size() + 8, "x.safetensors");
    ASSERT_FALSE(r.ok()) << h;
    EXPECT_EQ(r.error().path, "x.safetensors");
  }
  TempDir t;
  std::string huge;
  le(huge, uint64_t{1} << 40, 8);
  write_file(t.p / "huge.safetensors", huge + "{}");
  EXPECT_FALSE(read_safetensors_index((t.p / "huge.safetensors").string()).ok());
  write_file(t.p / "short.safetensors", "abc");
  EXPECT_FALSE(read_safetensors_index((t.p / "short.safetensors").string()).ok());
  write_file(t.p / "cut.safetensors", good.substr(0, good.size() - 3));
  EXPECT_FALSE(read_safetensors_index((t.p / "cut.safetensors").string()).ok());  // data_offsets past the end
}

}  // namespace
}  // namespace msit::atb
