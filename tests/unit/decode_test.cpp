// Scalar decoders: hand-checked encodings, exhaustive properties, and both HiFloat8 readings.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <set>

#include "common/dtype/decode.h"

namespace msit {
namespace {

using R = HiFloat8Reading;

TEST(Decode, Fp16Encodings) {
  EXPECT_EQ(fp16_to_float(0x3c00), 1.0f);
  EXPECT_EQ(fp16_to_float(0xc000), -2.0f);
  EXPECT_EQ(fp16_to_float(0x7bff), 65504.0f);
  EXPECT_EQ(fp16_to_float(0xfbff), -65504.0f);
  EXPECT_EQ(fp16_to_float(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(fp16_to_float(0x03ff), std::ldexp(1023.0f, -24));
  EXPECT_EQ(fp16_to_float(0x0400), std::ldexp(1.0f, -14));
  EXPECT_EQ(fp16_to_float(0x7c00), INFINITY);
  EXPECT_EQ(fp16_to_float(0xfc00), -INFINITY);
  EXPECT_TRUE(std::isnan(fp16_to_float(0x7e00)));
  EXPECT_TRUE(std::isnan(fp16_to_float(0x7c01)));
  EXPECT_TRUE(std::isnan(fp16_to_float(0xffff)));
  EXPECT_EQ(fp16_to_float(0x8000), 0.0f);
  EXPECT_TRUE(std::signbit(fp16_to_float(0x8000)));
}

TEST(Decode, Fp16ExhaustiveOrderAndSymmetry) {
  float prev = -1;
  for (uint32_t b = 0; b < 0x7c00; ++b) {
    const float v = fp16_to_float(static_cast<uint16_t>(b));
    EXPECT_GT(v, prev) << b;  // finite positive encodings are strictly increasing
    EXPECT_EQ(fp16_to_float(static_cast<uint16_t>(b | 0x8000)), -v);
    prev = v;
  }
#if defined(__FLT16_MAX__)
  for (uint32_t b = 0; b < 65536; ++b) {  // the compiler's own conversion as a second opinion
    _Float16 h;
    const auto bits = static_cast<uint16_t>(b);
    std::memcpy(&h, &bits, 2);
    const float want = static_cast<float>(h), got = fp16_to_float(bits);
    EXPECT_TRUE((std::isnan(want) && std::isnan(got)) || want == got) << b;
  }
#endif
}

TEST(Decode, Bf16Encodings) {
  EXPECT_EQ(bf16_to_float(0x3f80), 1.0f);
  EXPECT_EQ(bf16_to_float(0xc040), -3.0f);
  EXPECT_EQ(bf16_to_float(0x7f80), INFINITY);
  EXPECT_EQ(bf16_to_float(0xff80), -INFINITY);
  EXPECT_TRUE(std::isnan(bf16_to_float(0x7fc0)));
  EXPECT_TRUE(std::isnan(bf16_to_float(0xffc1)));
  EXPECT_EQ(bf16_to_float(0x0001), std::ldexp(1.0f, -133));
  EXPECT_EQ(bf16_to_float(0x7f7f), std::ldexp(255.0f, 120));
}

TEST(Decode, Fp8E4M3FN) {
  EXPECT_EQ(fp8_e4m3fn_to_float(0x38), 1.0f);
  EXPECT_EQ(fp8_e4m3fn_to_float(0x7e), 448.0f);
  EXPECT_EQ(fp8_e4m3fn_to_float(0xfe), -448.0f);
  EXPECT_EQ(fp8_e4m3fn_to_float(0x01), std::ldexp(1.0f, -9));
  EXPECT_EQ(fp8_e4m3fn_to_float(0x07), std::ldexp(7.0f, -9));
  EXPECT_EQ(fp8_e4m3fn_to_float(0x08), std::ldexp(1.0f, -6));
  EXPECT_EQ(fp8_e4m3fn_to_float(0x78), 256.0f);
  EXPECT_TRUE(std::isnan(fp8_e4m3fn_to_float(0x7f)));
  EXPECT_TRUE(std::isnan(fp8_e4m3fn_to_float(0xff)));
  int nans = 0;
  for (int b = 0; b < 256; ++b) {
    const float v = fp8_e4m3fn_to_float(static_cast<uint8_t>(b));
    EXPECT_FALSE(std::isinf(v)) << b;  // "fn": no infinities
    nans += std::isnan(v);
  }
  EXPECT_EQ(nans, 2);
}

TEST(Decode, Fp8E5M2) {
  EXPECT_EQ(fp8_e5m2_to_float(0x3c), 1.0f);
  EXPECT_EQ(fp8_e5m2_to_float(0x7b), 57344.0f);
  EXPECT_EQ(fp8_e5m2_to_float(0x01), std::ldexp(1.0f, -16));
  EXPECT_EQ(fp8_e5m2_to_float(0x04), std::ldexp(1.0f, -14));
  EXPECT_EQ(fp8_e5m2_to_float(0x7c), INFINITY);
  EXPECT_EQ(fp8_e5m2_to_float(0xfc), -INFINITY);
  for (uint8_t b : {0x7d, 0x7e, 0x7f, 0xfd, 0xfe, 0xff}) EXPECT_TRUE(std::isnan(fp8_e5m2_to_float(b)));
}

TEST(Decode, Fp8E8M0) {
  EXPECT_EQ(fp8_e8m0_to_float(0x7f), 1.0f);
  EXPECT_EQ(fp8_e8m0_to_float(0x80), 2.0f);
  EXPECT_EQ(fp8_e8m0_to_float(0x00), std::ldexp(1.0f, -127));
  EXPECT_EQ(fp8_e8m0_to_float(0xfe), std::ldexp(1.0f, 127));
  EXPECT_TRUE(std::isnan(fp8_e8m0_to_float(0xff)));
}

// Expected values worked out by hand from msprobe's hifloat8_to_float32 and from the
// published HiFloat8 layout.
TEST(Decode, HiFloat8BothReadings) {
  for (R r : {R::kMsprobe, R::kAscendSpec}) {
    EXPECT_EQ(hifloat8_to_float(0x00, r), 0.0f);
    EXPECT_TRUE(std::isnan(hifloat8_to_float(0x80, r)));
    EXPECT_EQ(hifloat8_to_float(0x6f, r), INFINITY);
    EXPECT_EQ(hifloat8_to_float(0x01, r), std::ldexp(1.0f, -22));  // denormal 2^(m-23)
    EXPECT_EQ(hifloat8_to_float(0x07, r), std::ldexp(1.0f, -16));
    EXPECT_EQ(hifloat8_to_float(0x81, r), -std::ldexp(1.0f, -22));
    EXPECT_EQ(hifloat8_to_float(0x60, r), 256.0f);                // D4: exp +8
    EXPECT_EQ(hifloat8_to_float(0x6e, r), 32768.0f);              // D4: exp +15
    EXPECT_EQ(hifloat8_to_float(0x70, r), std::ldexp(1.0f, -8));  // D4: exp -8
    EXPECT_EQ(hifloat8_to_float(0x40, r), 16.0f);                 // D3: exp +4
    EXPECT_EQ(hifloat8_to_float(0x41, r), 20.0f);
    EXPECT_EQ(hifloat8_to_float(0x20, r), 4.0f);  // D2: exp +2
    EXPECT_EQ(hifloat8_to_float(0x21, r), 4.5f);
    EXPECT_EQ(hifloat8_to_float(0xa1, r), -4.5f);
  }
  // The readings differ on D0/D1 and on 0xEF.
  EXPECT_EQ(hifloat8_to_float(0xef, R::kMsprobe), INFINITY);
  EXPECT_EQ(hifloat8_to_float(0xef, R::kAscendSpec), -INFINITY);
  EXPECT_EQ(hifloat8_to_float(0x08, R::kMsprobe), 1.25f);
  EXPECT_EQ(hifloat8_to_float(0x08, R::kAscendSpec), 1.0f);
  EXPECT_EQ(hifloat8_to_float(0x09, R::kAscendSpec), 1.125f);
  EXPECT_EQ(hifloat8_to_float(0x10, R::kMsprobe), 0.5f);
  EXPECT_EQ(hifloat8_to_float(0x18, R::kMsprobe), 0.75f);
  EXPECT_EQ(hifloat8_to_float(0x10, R::kAscendSpec), 2.0f);
  EXPECT_EQ(hifloat8_to_float(0x11, R::kAscendSpec), 2.25f);
  EXPECT_EQ(hifloat8_to_float(0x18, R::kAscendSpec), 0.5f);
}

TEST(Decode, HiFloat8SpecReadingIsInjective) {
  std::set<float> seen;
  for (int b = 1; b < 128; ++b) {
    const float v = hifloat8_to_float(static_cast<uint8_t>(b), R::kAscendSpec);
    if (std::isfinite(v)) { EXPECT_TRUE(seen.insert(v).second) << b; }
  }
  EXPECT_EQ(seen.size(), 126u);  // 127 positive encodings minus +inf
}

TEST(Decode, TablesAndGenericElements) {
  for (DType t : {DType::kFloat8E4M3FN, DType::kFloat8E5M2, DType::kFloat8E8M0, DType::kHiFloat8}) {
    const auto* table = fp8_table(t);
    ASSERT_NE(table, nullptr);
    for (int b = 0; b < 256; ++b) {
      const auto byte = static_cast<std::byte>(b);
      const double v = decode_element(t, &byte);
      EXPECT_TRUE((std::isnan(v) && std::isnan((*table)[b])) || v == (*table)[b]);
    }
  }
  EXPECT_EQ(fp8_table(DType::kFloat16), nullptr);
  EXPECT_NE(fp8_table(DType::kHiFloat8, R::kMsprobe), fp8_table(DType::kHiFloat8, R::kAscendSpec));
  const int64_t big = INT64_MIN;
  EXPECT_EQ(decode_element(DType::kInt64, reinterpret_cast<const std::byte*>(&big)), -0x1p63);
  const uint8_t two = 2;
  EXPECT_EQ(decode_element(DType::kBool, reinterpret_cast<const std::byte*>(&two)), 1.0);
  const int16_t neg = -300;
  EXPECT_EQ(decode_element(DType::kInt16, reinterpret_cast<const std::byte*>(&neg)), -300.0);
  const uint32_t u = 4000000000u;
  EXPECT_EQ(decode_element(DType::kUInt32, reinterpret_cast<const std::byte*>(&u)), 4e9);
  EXPECT_TRUE(std::isnan(decode_element(DType::kComplex64, reinterpret_cast<const std::byte*>(&u))));
  EXPECT_FALSE(decodable_as_double(DType::kInt4));
}

}  // namespace
}  // namespace msit
