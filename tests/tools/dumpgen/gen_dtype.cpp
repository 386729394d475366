// Scalar codecs written from the IEEE/OCP bit definitions, not shared with the library.
#include "tests/tools/dumpgen/gen_dtype.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

namespace dumpgen {

const std::vector<DTypeSpec>& all_dtypes() {
  static const std::vector<DTypeSpec> kTable = {
      {"float16", 2, "<f2", 2, Kind::kFloat},   {"bfloat16", 27, "", 2, Kind::kFloat},
      {"float32", 1, "<f4", 4, Kind::kFloat},   {"float64", 12, "<f8", 8, Kind::kFloat},
      {"int8", 3, "|i1", 1, Kind::kSigned},     {"uint8", 4, "|u1", 1, Kind::kUnsigned},
      {"int16", 5, "<i2", 2, Kind::kSigned},    {"uint16", 6, "<u2", 2, Kind::kUnsigned},
      {"int32", 7, "<i4", 4, Kind::kSigned},    {"uint32", 9, "<u4", 4, Kind::kUnsigned},
      {"int64", 8, "<i8", 8, Kind::kSigned},    {"uint64", 10, "<u8", 8, Kind::kUnsigned},
      {"bool", 11, "|b1", 1, Kind::kBool},      {"float8_e4m3fn", 35, "", 1, Kind::kFloat},
      {"float8_e5m2", 34, "", 1, Kind::kFloat}, {"complex64", 16, "<c8", 8, Kind::kComplex},
  };
  return kTable;
}

const DTypeSpec* find_dtype(std::string_view name) {
  for (const auto& d : all_dtypes()) {
    if (d.name == name) return &d;
  }
  return nullptr;
}

uint16_t float_to_half(float f) {
  uint32_t x = std::bit_cast<uint32_t>(f);
  uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  uint32_t exp = (x >> 23) & 0xffu;
  uint32_t man = x & 0x7fffffu;
  if (exp == 0xff) return static_cast<uint16_t>(sign | 0x7c00u | (man ? 0x200u : 0u));
  int e = static_cast<int>(exp) - 127 + 15;
  if (e >= 31) return static_cast<uint16_t>(sign | 0x7c00u);
  if (e <= 0) {
    if (e < -10) return sign;
    man |= 0x800000u;
    uint32_t shift = static_cast<uint32_t>(14 - e);
    uint32_t half = man >> shift;
    uint32_t rem = man & ((1u << shift) - 1u);
    uint32_t mid = 1u << (shift - 1u);
    if (rem > mid || (rem == mid && (half & 1u))) ++half;
    return static_cast<uint16_t>(sign | half);
  }
  uint32_t half = (static_cast<uint32_t>(e) << 10) | (man >> 13);
  uint32_t rem = man & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (half & 1u))) ++half;  // may carry into inf: correct
  return static_cast<uint16_t>(sign | half);
}

double half_to_double(uint16_t h) {
  int sign = (h >> 15) & 1;
  int exp = (h >> 10) & 0x1f;
  int man = h & 0x3ff;
  double v;
  if (exp == 0) {
    v = std::ldexp(man, -24);
  } else if (exp == 31) {
    v = man ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
  } else {
    v = std::ldexp(man + 1024, exp - 25);
  }
  return sign ? -v : v;
}

namespace {

uint16_t float_to_bf16(float f) {
  uint32_t x = std::bit_cast<uint32_t>(f);
  if (std::isnan(f)) return static_cast<uint16_t>((x >> 16) | 0x40u);
  uint32_t rounding = 0x7fffu + ((x >> 16) & 1u);
  return static_cast<uint16_t>((x + rounding) >> 16);
}

double fp8_decode(uint8_t b, bool e4m3) {
  int sign = b >> 7;
  int exp = e4m3 ? (b >> 3) & 0xf : (b >> 2) & 0x1f;
  int man = e4m3 ? b & 7 : b & 3;
  int mbits = e4m3 ? 3 : 2;
  int bias = e4m3 ? 7 : 15;
  double v;
  if (e4m3 && exp == 15 && man == 7) {
    v = std::numeric_limits<double>::quiet_NaN();
  } else if (!e4m3 && exp == 31) {
    v = man ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
  } else if (exp == 0) {
    v = std::ldexp(man, 1 - bias - mbits);
  } else {
    v = std::ldexp(man + (1 << mbits), exp - bias - mbits);
  }
  return sign ? -v : v;
}

uint8_t fp8_encode(double v, bool e4m3) {
  if (std::isnan(v)) return e4m3 ? 0x7f : 0x7f;
  if (std::isinf(v) && !e4m3) return v > 0 ? 0x7c : 0xfc;
  // Nearest finite code by exhaustive search: simple and obviously right for 256 codes.
  uint8_t best = 0;
  double best_err = std::numeric_limits<double>::infinity();
  for (int c = 0; c < 256; ++c) {
    double d = fp8_decode(static_cast<uint8_t>(c), e4m3);
    if (!std::isfinite(d)) continue;
    double err = std::fabs(d - v);
    if (err < best_err || (err == best_err && (c & 1) == 0 && (best & 1) != 0)) {
      best = static_cast<uint8_t>(c);
      best_err = err;
    }
  }
  if (v == 0 && std::signbit(v)) return 0x80;
  return best;
}

}  // namespace

uint64_t encode_value(const DTypeSpec& dt, double v) {
  switch (dt.kind) {
    case Kind::kBool: return v != 0 ? 1 : 0;
    case Kind::kSigned: return static_cast<uint64_t>(static_cast<int64_t>(v));
    case Kind::kUnsigned: return static_cast<uint64_t>(v);
    case Kind::kComplex: return std::bit_cast<uint32_t>(static_cast<float>(v));  // real part
    case Kind::kFloat: break;
  }
  if (dt.name == "float16") return float_to_half(static_cast<float>(v));
  if (dt.name == "bfloat16") return float_to_bf16(static_cast<float>(v));
  if (dt.name == "float32") return std::bit_cast<uint32_t>(static_cast<float>(v));
  if (dt.name == "float64") return std::bit_cast<uint64_t>(v);
  return fp8_encode(v, dt.name == "float8_e4m3fn");
}

double decode_value(const DTypeSpec& dt, uint64_t code) {
  switch (dt.kind) {
    case Kind::kBool: return code ? 1.0 : 0.0;
    case Kind::kSigned: {
      unsigned shift = 64 - 8 * dt.bytes;
      return static_cast<double>(static_cast<int64_t>(code << shift) >> shift);
    }
    case Kind::kUnsigned: return static_cast<double>(code);
    case Kind::kComplex: return std::bit_cast<float>(static_cast<uint32_t>(code & 0xffffffffu));
    case Kind::kFloat: break;
  }
  if (dt.name == "float16") return half_to_double(static_cast<uint16_t>(code));
  if (dt.name == "bfloat16") return std::bit_cast<float>(static_cast<uint32_t>(code << 16));
  if (dt.name == "float32") return std::bit_cast<float>(static_cast<uint32_t>(code));
  if (dt.name == "float64") return std::bit_cast<double>(code);
  return fp8_decode(static_cast<uint8_t>(code), dt.name == "float8_e4m3fn");
}

void store_code(const DTypeSpec& dt, uint64_t code, uint8_t* dst) {
  for (uint32_t i = 0; i < dt.bytes; ++i) dst[i] = static_cast<uint8_t>(code >> (8 * (i % 8)));
}

uint64_t load_code(const DTypeSpec& dt, const uint8_t* src) {
  uint64_t c = 0;
  for (uint32_t i = 0; i < dt.bytes && i < 8; ++i) c |= static_cast<uint64_t>(src[i]) << (8 * i);
  return c;
}

}  // namespace dumpgen
