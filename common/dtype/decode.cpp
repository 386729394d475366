// Bit-level decoders of fp16, bf16, the fp8 family and HiFloat8 (see decode.h for the readings).
#include "common/dtype/decode.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

namespace msit {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

float with_sign(bool negative, float v) { return negative ? -v : v; }

template <typename T>
T load_le(const std::byte* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

// msprobe's get_dot_value: the dot class D from the 7 bits after the sign; -1 = denormal.
int hif8_dot_class(uint8_t field) {
  if ((field & 0x60) == 0x60) return 4;
  if ((field & 0x60) == 0x40) return 3;
  if ((field & 0x60) == 0x20) return 2;
  if ((field & 0x70) == 0x10) return 1;
  if ((field & 0x78) == 0x08) return 0;
  return -1;
}

std::array<float, 256> build_table(float (*decode)(uint8_t)) {
  std::array<float, 256> t{};
  for (int b = 0; b < 256; ++b) t[b] = decode(static_cast<uint8_t>(b));
  return t;
}

float hif8_msprobe(uint8_t b) { return hifloat8_to_float(b, HiFloat8Reading::kMsprobe); }
float hif8_spec(uint8_t b) { return hifloat8_to_float(b, HiFloat8Reading::kAscendSpec); }

}  // namespace

float fp16_to_float(uint16_t bits) {
  const bool neg = (bits & 0x8000u) != 0;
  const uint32_t exp = (bits >> 10) & 0x1fu;
  const uint32_t mant = bits & 0x3ffu;
  if (exp == 0) return with_sign(neg, std::ldexp(static_cast<float>(mant), -24));
  const uint32_t sign32 = neg ? 0x80000000u : 0u;
  if (exp == 31) return std::bit_cast<float>(sign32 | 0x7f800000u | (mant << 13));
  return std::bit_cast<float>(sign32 | ((exp + 112u) << 23) | (mant << 13));
}

float bf16_to_float(uint16_t bits) { return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16); }

float fp8_e4m3fn_to_float(uint8_t bits) {
  const bool neg = (bits & 0x80u) != 0;
  const int exp = (bits >> 3) & 0xf;
  const int mant = bits & 0x7;
  if (exp == 15 && mant == 7) return kNaN;
  if (exp == 0) return with_sign(neg, std::ldexp(static_cast<float>(mant), -9));
  return with_sign(neg, std::ldexp(static_cast<float>(8 + mant), exp - 10));
}

float fp8_e5m2_to_float(uint8_t bits) {
  const bool neg = (bits & 0x80u) != 0;
  const int exp = (bits >> 2) & 0x1f;
  const int mant = bits & 0x3;
  if (exp == 31) return mant == 0 ? with_sign(neg, kInf) : kNaN;
  if (exp == 0) return with_sign(neg, std::ldexp(static_cast<float>(mant), -16));
  return with_sign(neg, std::ldexp(static_cast<float>(4 + mant), exp - 17));
}

float fp8_e8m0_to_float(uint8_t bits) {
  if (bits == 0xff) return kNaN;
  return std::ldexp(1.0f, static_cast<int>(bits) - 127);
}

// UNVERIFIED against hardware: see decode.h for the two readings.
float hifloat8_to_float(uint8_t bits, HiFloat8Reading reading) {
  const bool neg = (bits & 0x80u) != 0;
  const uint8_t field = bits & 0x7fu;
  if (bits == 0x00) return 0.0f;
  if (bits == 0x80) return kNaN;
  if (bits == 0x6f) return kInf;
  if (bits == 0xef) return reading == HiFloat8Reading::kMsprobe ? kInf : -kInf;
  const int dot = hif8_dot_class(field);
  if (dot < 0) return with_sign(neg, std::ldexp(1.0f, static_cast<int>(bits & 0x7u) - 23));
  int mant_bits = 5 - dot;
  if (reading == HiFloat8Reading::kAscendSpec && dot <= 2) mant_bits = 3;
  int exp = 0;
  if (dot > 0) {
    const int raw = (field >> mant_bits) & ((1 << dot) - 1);
    const int magnitude = (1 << (dot - 1)) + (raw & ((1 << (dot - 1)) - 1));
    exp = ((raw >> (dot - 1)) & 1) ? -magnitude : magnitude;
  }
  const int mant = field & ((1 << mant_bits) - 1);
  const float significand = 1.0f + std::ldexp(static_cast<float>(mant), -mant_bits);
  return with_sign(neg, std::ldexp(significand, exp));
}

const std::array<float, 256>* fp8_table(DType t, HiFloat8Reading reading) {
  static const auto e4m3 = build_table(fp8_e4m3fn_to_float);
  static const auto e5m2 = build_table(fp8_e5m2_to_float);
  static const auto e8m0 = build_table(fp8_e8m0_to_float);
  static const auto hif8_ms = build_table(hif8_msprobe);
  static const auto hif8_sp = build_table(hif8_spec);
  switch (t) {
    case DType::kFloat8E4M3FN: return &e4m3;
    case DType::kFloat8E5M2: return &e5m2;
    case DType::kFloat8E8M0: return &e8m0;
    case DType::kHiFloat8: return reading == HiFloat8Reading::kMsprobe ? &hif8_ms : &hif8_sp;
    default: return nullptr;
  }
}

bool decodable_as_double(DType t) { return dtype_info(t).has_stats; }

double decode_element(DType t, const std::byte* p, HiFloat8Reading reading) {
  switch (t) {
    case DType::kBool: return load_le<uint8_t>(p) != 0 ? 1.0 : 0.0;
    case DType::kInt8: return load_le<int8_t>(p);
    case DType::kUInt8: return load_le<uint8_t>(p);
    case DType::kInt16: return load_le<int16_t>(p);
    case DType::kUInt16: return load_le<uint16_t>(p);
    case DType::kInt32: return load_le<int32_t>(p);
    case DType::kUInt32: return load_le<uint32_t>(p);
    case DType::kInt64: return static_cast<double>(load_le<int64_t>(p));
    case DType::kUInt64: return static_cast<double>(load_le<uint64_t>(p));
    case DType::kFloat16: return fp16_to_float(load_le<uint16_t>(p));
    case DType::kBFloat16: return bf16_to_float(load_le<uint16_t>(p));
    case DType::kFloat32: return load_le<float>(p);
    case DType::kFloat64: return load_le<double>(p);
    case DType::kFloat8E4M3FN:
    case DType::kFloat8E5M2:
    case DType::kFloat8E8M0:
    case DType::kHiFloat8: return (*fp8_table(t, reading))[load_le<uint8_t>(p)];
    default: return std::numeric_limits<double>::quiet_NaN();
  }
}

}  // namespace msit
