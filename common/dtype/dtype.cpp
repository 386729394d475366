// Tables of element types and their spellings in GE dumps, npy and summaries.
#include "common/dtype/dtype.h"

#include <array>

namespace msit {
namespace {

using K = DTypeKind;
constexpr std::array kInfos = {
    DTypeInfo{DType::kUnknown, "unknown", K::kOpaque, 0, false},
    DTypeInfo{DType::kBool, "bool", K::kBool, 8, true},
    DTypeInfo{DType::kInt8, "int8", K::kSigned, 8, true},
    DTypeInfo{DType::kUInt8, "uint8", K::kUnsigned, 8, true},
    DTypeInfo{DType::kInt16, "int16", K::kSigned, 16, true},
    DTypeInfo{DType::kUInt16, "uint16", K::kUnsigned, 16, true},
    DTypeInfo{DType::kInt32, "int32", K::kSigned, 32, true},
    DTypeInfo{DType::kUInt32, "uint32", K::kUnsigned, 32, true},
    DTypeInfo{DType::kInt64, "int64", K::kSigned, 64, true},
    DTypeInfo{DType::kUInt64, "uint64", K::kUnsigned, 64, true},
    DTypeInfo{DType::kFloat16, "float16", K::kFloat, 16, true},
    DTypeInfo{DType::kBFloat16, "bfloat16", K::kFloat, 16, true},
    DTypeInfo{DType::kFloat32, "float32", K::kFloat, 32, true},
    DTypeInfo{DType::kFloat64, "float64", K::kFloat, 64, true},
    DTypeInfo{DType::kFloat8E4M3FN, "float8_e4m3fn", K::kFloat, 8, true},
    DTypeInfo{DType::kFloat8E5M2, "float8_e5m2", K::kFloat, 8, true},
    DTypeInfo{DType::kFloat8E8M0, "float8_e8m0fnu", K::kFloat, 8, true},
    DTypeInfo{DType::kHiFloat8, "hifloat8", K::kFloat, 8, true},
    DTypeInfo{DType::kComplex32, "complex32", K::kComplex, 32, false},
    DTypeInfo{DType::kComplex64, "complex64", K::kComplex, 64, false},
    DTypeInfo{DType::kComplex128, "complex128", K::kComplex, 128, false},
    DTypeInfo{DType::kInt4, "int4", K::kPacked, 4, false},
    DTypeInfo{DType::kUInt1, "uint1", K::kPacked, 1, false},
    DTypeInfo{DType::kInt2, "int2", K::kPacked, 2, false},
    DTypeInfo{DType::kUInt2, "uint2", K::kPacked, 2, false},
    DTypeInfo{DType::kFloat6E3M2, "float6_e3m2", K::kPacked, 6, false},
    DTypeInfo{DType::kFloat6E2M3, "float6_e2m3", K::kPacked, 6, false},
    DTypeInfo{DType::kFloat4E2M1, "float4_e2m1", K::kPacked, 4, false},
    DTypeInfo{DType::kFloat4E1M2, "float4_e1m2", K::kPacked, 4, false},
    DTypeInfo{DType::kHiFloat4, "hifloat4", K::kPacked, 4, false},
    DTypeInfo{DType::kString, "string", K::kOpaque, 0, false},
    DTypeInfo{DType::kObject, "object", K::kOpaque, 0, false},
};

static_assert(kInfos.size() == static_cast<size_t>(DType::kObject) + 1);

}  // namespace

const DTypeInfo& dtype_info(DType t) { return kInfos[static_cast<size_t>(t)]; }

std::optional<DType> dtype_from_name(std::string_view name) {
  for (const auto& info : kInfos) {
    if (info.name == name) return info.dtype;
  }
  return std::nullopt;
}

std::optional<uint64_t> bytes_for_elements(DType t, uint64_t n) {
  uint32_t bits = dtype_info(t).bits;
  if (bits == 0) return std::nullopt;
  if (n > UINT64_MAX / bits) return std::nullopt;
  return (n * bits + 7) / 8;
}

DType dtype_from_ge_proto(int64_t v) {
  switch (v) {
    case 1: return DType::kFloat32;
    case 2: return DType::kFloat16;
    case 3: return DType::kInt8;
    case 4: return DType::kUInt8;
    case 5: return DType::kInt16;
    case 6: return DType::kUInt16;
    case 7: return DType::kInt32;
    case 8: return DType::kInt64;
    case 9: return DType::kUInt32;
    case 10: return DType::kUInt64;
    case 11: return DType::kBool;
    case 12: return DType::kFloat64;
    case 13:
    case 24: return DType::kString;
    case 16: return DType::kComplex64;
    case 17: return DType::kComplex128;
    case 23: return DType::kInt64;  // DT_RESOURCE: msaccucmp reads it as int64
    case 27: return DType::kBFloat16;
    case 28: return DType::kInt4;
    case 29: return DType::kUInt1;
    case 30: return DType::kInt2;
    case 31: return DType::kUInt2;
    case 32: return DType::kComplex32;
    case 33: return DType::kHiFloat8;
    case 34: return DType::kFloat8E5M2;
    case 35: return DType::kFloat8E4M3FN;
    case 36: return DType::kFloat8E8M0;
    case 37: return DType::kFloat6E3M2;
    case 38: return DType::kFloat6E2M3;
    case 39: return DType::kFloat4E2M1;
    case 40: return DType::kFloat4E1M2;
    case 41: return DType::kHiFloat4;
    default: return DType::kUnknown;
  }
}

DType dtype_from_acl(int64_t v) {
  // acl numbers that have a proto counterpart: translate through the proto table so that the
  // two numberings cannot drift apart (docs/formats/ge-dump.md §5 lists both columns side by side).
  // clang-format off
  static constexpr std::array<int8_t, 44> kAclToProto = {
      1,  2,  3,  7,  4,  -1, 5,  6,  9,  8,  10, 12, 11, 13, 14, 15, 16, 17, 18, 19, 20, 21,
      22, 23, 24, 25, 26, 27, 0,  28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42};
  // clang-format on
  if (v < 0 || v >= static_cast<int64_t>(kAclToProto.size())) return DType::kUnknown;
  const int8_t proto = kAclToProto[static_cast<size_t>(v)];
  // acl 28 is DT_UNDEFINED: no element type, unlike msaccucmp's raw-int8 reading of proto 0.
  return proto <= 0 ? DType::kUnknown : dtype_from_ge_proto(proto);
}

std::optional<DType> dtype_from_torch_storage(std::string_view stem) {
  struct Entry {
    std::string_view stem;
    DType dtype;
  };
  // clang-format off
  static constexpr Entry kStorages[] = {
      {"Float", DType::kFloat32}, {"Half", DType::kFloat16},  {"BFloat16", DType::kBFloat16},
      {"Double", DType::kFloat64}, {"Long", DType::kInt64},   {"Int", DType::kInt32},
      {"Short", DType::kInt16},   {"Char", DType::kInt8},     {"Byte", DType::kUInt8},
      {"Bool", DType::kBool},     {"ComplexFloat", DType::kComplex64},
      {"ComplexDouble", DType::kComplex128}, {"Float8_e4m3fn", DType::kFloat8E4M3FN},
      {"Float8_e5m2", DType::kFloat8E5M2}};
  // clang-format on
  for (const Entry& e : kStorages) {
    if (e.stem == stem) return e.dtype;
  }
  return std::nullopt;
}

std::string ge_proto_dtype_name(int64_t v) {
  // clang-format off
  static constexpr std::array<std::string_view, 43> kNames = {
      "DT_UNDEFINED", "DT_FLOAT", "DT_FLOAT16", "DT_INT8", "DT_UINT8", "DT_INT16", "DT_UINT16",
      "DT_INT32", "DT_INT64", "DT_UINT32", "DT_UINT64", "DT_BOOL", "DT_DOUBLE", "DT_STRING",
      "DT_DUAL_SUB_INT8", "DT_DUAL_SUB_UINT8", "DT_COMPLEX64", "DT_COMPLEX128", "DT_QINT8",
      "DT_QINT16", "DT_QINT32", "DT_QUINT8", "DT_QUINT16", "DT_RESOURCE", "DT_STRING_REF",
      "DT_DUAL", "DT_VARIANT", "DT_BF16", "DT_INT4", "DT_UINT1", "DT_INT2", "DT_UINT2",
      "DT_COMPLEX32", "DT_HIFLOAT8", "DT_FLOAT8_E5M2", "DT_FLOAT8_E4M3FN", "DT_FLOAT8_E8M0",
      "DT_FLOAT6_E3M2", "DT_FLOAT6_E2M3", "DT_FLOAT4_E2M1", "DT_FLOAT4_E1M2", "DT_HIFLOAT4",
      "DT_HIFLOAT4_SCALE"};
  // clang-format on
  if (v >= 0 && v < static_cast<int64_t>(kNames.size())) return std::string(kNames[static_cast<size_t>(v)]);
  return "DT_" + std::to_string(v);
}

std::string_view torch_dtype_name(DType t) {
  switch (t) {
    case DType::kBool: return "torch.bool";
    case DType::kInt8: return "torch.int8";
    case DType::kUInt8: return "torch.uint8";
    case DType::kInt16: return "torch.int16";
    case DType::kUInt16: return "torch.int32";  // msprobe maps uint16 -> int32
    case DType::kInt32: return "torch.int32";
    case DType::kUInt32: return "torch.int64";
    case DType::kInt64: return "torch.int64";
    case DType::kUInt64: return "torch.uint64";
    case DType::kFloat16: return "torch.float16";
    case DType::kFloat64: return "torch.float64";
    case DType::kComplex64: return "torch.complex64";
    case DType::kComplex128: return "torch.complex128";
    case DType::kBFloat16:
    case DType::kFloat32:
    case DType::kFloat8E4M3FN:
    case DType::kFloat8E5M2:
    case DType::kFloat8E8M0:
    case DType::kHiFloat8: return "torch.float32";
    default: return "";
  }
}

}  // namespace msit
