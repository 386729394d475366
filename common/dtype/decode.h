// Scalar decoders of the narrow float encodings (fp16, bf16, fp8 family, HiFloat8) to float,
// and one generic "element k of a raw buffer as double" used by the statistics reducers.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "common/dtype/dtype.h"

namespace msit {

// Every value of these encodings is exactly representable as a float, so decoders return
// float; widening to double is then exact as well.
float fp16_to_float(uint16_t bits);       // IEEE binary16: subnormals, +-inf, NaN (payload kept)
float bf16_to_float(uint16_t bits);       // upper half of a float32
float fp8_e4m3fn_to_float(uint8_t bits);  // bias 7, subnormals, no inf, S.1111.111 = NaN
float fp8_e5m2_to_float(uint8_t bits);    // bias 15, exp 31: inf (mantissa 0) / NaN
float fp8_e8m0_to_float(uint8_t bits);    // 2^(b-127), 0xFF = NaN

// HiFloat8 has two readings that disagree (docs/formats/ge-dump.md §5 marks the decoder UNVERIFIED):
// - kMsprobe: bit-for-bit msprobe's hifloat8_to_float32 (msaccucmp conversion/dtype_conversion.py).
//   It reads the D0 and D1 dot classes with 5 and 4 mantissa bits (5 - D), so it folds the
//   dot-code bit and the D1 exponent bit into the mantissa, and it decodes 0xEF as +inf.
// - kAscendSpec: the published layout ("Ascend HiFloat8 Format for Deep Learning", and the
//   encoder of Ascend's AICPU kernels): D0/D1/D2 have 3 mantissa bits, D1 has a 1-bit
//   exponent (+-1), 0xEF is -inf.
// Both agree on D2..D4, on denormals (+-2^(m-23)), on 0x00 = 0, 0x80 = NaN, 0x6F = +inf.
// Neither has been checked against hardware. The default is kMsprobe (what msit users see).
enum class HiFloat8Reading : uint8_t { kMsprobe, kAscendSpec };
float hifloat8_to_float(uint8_t bits, HiFloat8Reading reading = HiFloat8Reading::kMsprobe);

// 256-entry decode table for an 8-bit float dtype (kFloat8E4M3FN, kFloat8E5M2, kFloat8E8M0,
// kHiFloat8); nullptr for any other dtype. Tables are built once and never freed.
const std::array<float, 256>* fp8_table(DType t, HiFloat8Reading reading = HiFloat8Reading::kMsprobe);

// True when decode_element() can read this dtype: dtype_info(t).has_stats.
bool decodable_as_double(DType t);

// Element at `p` (host little-endian bytes, dtype t) as a double. Bool reads as 0/1;
// 64-bit integers round to the nearest double. Returns NaN for a non-decodable dtype.
double decode_element(DType t, const std::byte* p, HiFloat8Reading reading = HiFloat8Reading::kMsprobe);

}  // namespace msit
