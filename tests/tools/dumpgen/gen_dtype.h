// Element types as msit-dumpgen writes them, with its own (independent) scalar codecs.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace dumpgen {

enum class Kind : uint8_t { kFloat, kSigned, kUnsigned, kBool, kComplex };

struct DTypeSpec {
  std::string_view name;       // docs/formats/summary.md §3 numpy-style name
  int ge_proto;                // docs/formats/ge-dump.md §5 dump proto number, 0 if GE cannot carry it
  std::string_view npy_descr;  // "" when npy cannot carry it (bf16, fp8)
  uint32_t bytes;              // bytes per element
  Kind kind;
};

const std::vector<DTypeSpec>& all_dtypes();
const DTypeSpec* find_dtype(std::string_view name);  // nullptr when unknown

// Encodes a double to the stored element code (round to nearest; ints must be exact).
uint64_t encode_value(const DTypeSpec& dt, double v);
// Decodes a stored element code back to the exact double value it represents.
double decode_value(const DTypeSpec& dt, uint64_t code);

// Little-endian store/load of `dt.bytes` bytes.
void store_code(const DTypeSpec& dt, uint64_t code, uint8_t* dst);
uint64_t load_code(const DTypeSpec& dt, const uint8_t* src);

uint16_t float_to_half(float f);
double half_to_double(uint16_t h);

}  // namespace dumpgen
