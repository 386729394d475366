// Element types of dumped tensors: names, sizes, and how GE proto and npy spell them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace msit {

// clang-format off
enum class DType : uint8_t {
  kUnknown,
  kBool,
  kInt8, kUInt8, kInt16, kUInt16, kInt32, kUInt32, kInt64, kUInt64,
  kFloat16, kBFloat16, kFloat32, kFloat64,
  kFloat8E4M3FN, kFloat8E5M2, kFloat8E8M0, kHiFloat8,
  kComplex32, kComplex64, kComplex128,
  // Packed sub-byte types: metadata + hash only (packing UNVERIFIED in the spec).
  kInt4, kUInt1, kInt2, kUInt2, kFloat6E3M2, kFloat6E2M3, kFloat4E2M1, kFloat4E1M2, kHiFloat4,
  // Not numeric at all: recognised so that they can be reported, never summarised.
  kString, kObject,
};
// clang-format on

enum class DTypeKind : uint8_t { kBool, kSigned, kUnsigned, kFloat, kComplex, kPacked, kOpaque };

struct DTypeInfo {
  DType dtype;
  std::string_view name;  // numpy-style name used in summaries ("float16", "bfloat16", ...)
  DTypeKind kind;
  uint32_t bits;   // bits per element; 0 when variable or unknown
  bool has_stats;  // min/max/mean/... are defined for it
};

const DTypeInfo& dtype_info(DType t);
// Bool and integer types from 16 bits up: their values are discrete (indices, masks, counts), so
// two tensors differ by flips, not by a continuous error (docs/compare.md "Discrete outputs").
// int8/uint8 are left out: they hold quantized activations and weights, a continuous quantity
// rounded to a scale, whose differences are errors like any other.
inline bool discrete_dtype(DType t) {
  DTypeKind k = dtype_info(t).kind;
  if (k == DTypeKind::kBool) return true;
  return (k == DTypeKind::kSigned || k == DTypeKind::kUnsigned) && dtype_info(t).bits >= 16;
}
inline std::string_view dtype_name(DType t) { return dtype_info(t).name; }
std::optional<DType> dtype_from_name(std::string_view name);

// Byte size of n elements, or nullopt when the type has no fixed width or n overflows.
std::optional<uint64_t> bytes_for_elements(DType t, uint64_t n);

// GE dump proto OutputDataType numbering (docs/formats/ge-dump.md §5). Unknown numbers -> kUnknown.
DType dtype_from_ge_proto(int64_t v);
std::string ge_proto_dtype_name(int64_t v);  // "DT_FLOAT16", or "DT_<n>" when unknown

// aclDataType / ge::DataType numbering used by ATB .bin files (docs/formats/ge-dump.md §5 column "ge",
// docs/formats/atb-torch.md §2.6). Unknown numbers -> kUnknown.
DType dtype_from_acl(int64_t v);

// torch storage class stem as torch.save pickles it ("Float" for torch.FloatStorage,
// "BFloat16", "Long", ...; docs/formats/atb-torch.md §1.3). Unknown stems -> nullopt.
std::optional<DType> dtype_from_torch_storage(std::string_view stem);

// torch dtype string as msit prints it ("torch.float16"); bf16 and fp8 widen to float32.
std::string_view torch_dtype_name(DType t);

}  // namespace msit
