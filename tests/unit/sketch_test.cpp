// countsketch-rot-v1 against the independent test vectors (tests/data/sketch_vectors.json),
// through the scalar reference and through both reducers with awkward batch splits.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>

#include "common/dtype/decode.h"
#include "common/stats/sketch.h"
#include "common/stats/tensor_stats.h"

namespace msit {
namespace {

nlohmann::json load_vectors() {
  std::ifstream in(std::string(MSIT_TESTDATA_DIR) + "/sketch_vectors.json");
  return nlohmann::json::parse(in);
}

uint64_t parse_hex(const std::string& s) { return std::stoull(s, nullptr, 16); }

double value_of(const nlohmann::json& v) {
  if (v.is_number()) return v.get<double>();
  const std::string s = v.get<std::string>();
  if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
  return s == "inf" ? INFINITY : -INFINITY;
}

// fp16 encoding of a value that is exactly representable (the vectors' f16 cases are).
uint16_t exact_fp16(float f) {
  static const std::map<uint32_t, uint16_t> table = [] {
    std::map<uint32_t, uint16_t> t;
    for (uint32_t b = 0; b < 65536; ++b) {
      float v = fp16_to_float(static_cast<uint16_t>(b));
      uint32_t bits;
      std::memcpy(&bits, &v, 4);
      t.emplace(bits, static_cast<uint16_t>(b));
    }
    return t;
  }();
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  auto it = table.find(bits);
  EXPECT_NE(it, table.end()) << f << " is not an fp16 value";
  return it == table.end() ? 0 : it->second;
}

std::vector<std::byte> encode(const std::string& dtype, const std::vector<double>& xs) {
  std::vector<std::byte> out;
  for (double x : xs) {
    const float f = static_cast<float>(x);
    if (dtype == "float16") {
      const uint16_t h = exact_fp16(f);
      out.resize(out.size() + 2);
      std::memcpy(out.data() + out.size() - 2, &h, 2);
    } else {
      out.resize(out.size() + 4);
      std::memcpy(out.data() + out.size() - 4, &f, 4);
    }
  }
  return out;
}

void expect_buckets(const std::vector<double>& got, const nlohmann::json& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t k = 0; k < got.size(); ++k) {
    const double w = want[k].get<double>();
    EXPECT_NEAR(got[k], w, 1e-12 * std::max(std::abs(w), 1.0)) << what << " bucket " << k;
  }
}

TEST(SketchVectors, DebugFields) {
  const auto j = load_vectors();
  const auto& dbg = j["debug"];
  const uint64_t seed = parse_hex(dbg["seed"].get<std::string>());
  EXPECT_EQ(seed, kDefaultSketchSeed);
  EXPECT_EQ(splitmix_nth(seed, 0), parse_hex(dbg["sm_seed_0"].get<std::string>()));
  const auto& t = sketch_tables(seed);
  const std::string t0 = dbg["T0_first_64_bits"], t1 = dbg["T1_first_64_bits"];
  for (uint64_t b = 0; b < 64; ++b) {
    EXPECT_EQ((t.words[b / 64] >> (b % 64)) & 1, uint64_t(t0[b] - '0')) << "T0 bit " << b;
    EXPECT_EQ((t.words[1024 + b / 64] >> (b % 64)) & 1, uint64_t(t1[b] - '0')) << "T1 bit " << b;
    const uint64_t high = (t.words[1024] ^ t.words[2048] ^ t.words[3072]) & 1;  // index >> 16 == 0
    EXPECT_EQ(t.sign_bit(b), ((t0[b] - '0') ^ high) == 1);
  }
  const auto& rot = dbg["rotation_W128_q0_to_q7"];
  for (uint64_t q = 0; q < rot.size(); ++q) {
    EXPECT_EQ(sketch_rotation(seed, q, 128), rot[q].get<uint32_t>()) << "q=" << q;
  }
  EXPECT_EQ(sketch_bucket(seed, 0, 128), rot[0].get<uint32_t>());
  EXPECT_EQ(sketch_bucket(seed, 130, 128), (2 + rot[1].get<uint32_t>()) % 128);
}

TEST(SketchVectors, SignUsesAllFourTables) {
  const auto& t = sketch_tables(kDefaultSketchSeed);
  const uint64_t i = (uint64_t{5} << 48) | (uint64_t{7} << 32) | (uint64_t{9} << 16) | 11;
  const auto bit = [&](int k, uint64_t b) { return (t.words[k * 1024 + b / 64] >> (b % 64)) & 1; };
  EXPECT_EQ(t.sign_bit(i), (bit(0, 11) ^ bit(1, 9) ^ bit(2, 7) ^ bit(3, 5)) == 1);
}

TEST(SketchVectors, ReferenceAndReducersMatchEveryCase) {
  const auto j = load_vectors();
  ASSERT_FALSE(j["cases"].empty());
  for (const auto& c : j["cases"]) {
    const std::string name = c["name"], dtype = c["dtype"];
    const uint32_t width = c["width"];
    const uint64_t seed = parse_hex(c["seed"].get<std::string>());
    std::vector<double> xs;
    for (const auto& v : c["values"]) xs.push_back(value_of(v));

    std::vector<double> buckets(width, 0.0);
    const auto& tables = sketch_tables(seed);
    for (uint64_t i = 0; i < xs.size(); ++i) {
      if (std::isfinite(xs[i])) sketch_add_reference(buckets, tables, i, xs[i]);
    }
    expect_buckets(buckets, c["sketch"], name + " reference");

    const auto bytes = encode(dtype, xs);
    const DType dt = *dtype_from_name(dtype);
    const size_t es = dtype_info(dt).bits / 8;
    StatsOptions opts;
    opts.sketch_width = width;
    opts.sketch_seed = seed;
    for (size_t split : {size_t{0}, size_t{1}, size_t{7}, size_t{width + 1}, size_t{333}}) {
      for (bool simd : {false, true}) {
        auto r =
            simd ? TensorReducer::create(dt, xs.size(), opts) : TensorReducer::create_reference(dt, xs.size(), opts);
        const size_t step = split == 0 ? xs.size() : split;
        for (size_t off = 0; off < xs.size(); off += step) {
          r->update(bytes.data() + off * es, std::min(step, xs.size() - off));
        }
        const TensorStats s = r->finish();
        ASSERT_TRUE(s.sketch.has_value()) << name;
        EXPECT_EQ(s.sketch->width, width);
        EXPECT_EQ(s.sketch->seed, seed);
        expect_buckets(s.sketch->values, c["sketch"],
                       name + (simd ? " simd" : " ref") + " split " + std::to_string(split));
      }
    }
  }
}

}  // namespace
}  // namespace msit
