// The old converter's `STEM_min_max.npy` and `NAME_min_max.npz` files: decoding them into
// [min, max] rows, and encoding rows into exactly the bytes numpy would write.
#include "common/formats/min_max.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include "common/formats/npy_internal.h"
#include "common/formats/npz_internal.h"
#include "common/io/file.h"

namespace msit {
namespace {

constexpr size_t kMaxMinMaxFileBytes = 256u << 20;

uint16_t double_to_half(double d) {
  uint64_t b = std::bit_cast<uint64_t>(d);
  uint16_t sign = static_cast<uint16_t>((b >> 48) & 0x8000);
  uint64_t exp = (b >> 52) & 0x7FF, mant = b & ((uint64_t{1} << 52) - 1);
  if (exp == 0x7FF) return static_cast<uint16_t>(sign | 0x7C00 | (mant ? 0x200 : 0));
  if (exp == 0) return sign;  // double subnormals are far below half's range
  uint64_t m = mant | (uint64_t{1} << 52);
  int64_t e = static_cast<int64_t>(exp) - 1023 + 15;
  int64_t shift = e <= 0 ? 42 + 1 - e : 42;
  if (shift > 63) return sign;
  uint64_t q = m >> shift, rem = m & ((uint64_t{1} << shift) - 1), half = uint64_t{1} << (shift - 1);
  if (rem > half || (rem == half && (q & 1))) ++q;  // round half to even, as numpy does
  uint64_t h = e <= 0 ? q : (static_cast<uint64_t>(e - 1) << 10) + q;
  if (h >= 0x7C00) return static_cast<uint16_t>(sign | 0x7C00);
  return static_cast<uint16_t>(sign | h);
}

double half_to_double(uint16_t h) {
  int exp = (h >> 10) & 0x1F, mant = h & 0x3FF;
  double v = exp == 0    ? std::ldexp(mant, -24)
             : exp == 31 ? (mant ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity())
                         : std::ldexp(mant + 1024, exp - 25);
  return (h & 0x8000) ? -v : v;
}

// Types numpy cannot hold are written as torch would save them: floats widen to float32.
DType storable(DType t) {
  if (!npy_internal::descr_of(t).empty() && t != DType::kComplex64 && t != DType::kComplex128) return t;
  return dtype_info(t).kind == DTypeKind::kFloat ? DType::kFloat32 : DType::kFloat64;
}

template <class T>
void put_as(std::string& out, double v) {
  T x;
  if constexpr (std::is_floating_point_v<T>) {
    x = static_cast<T>(v);
  } else if (std::isnan(v)) {
    x = 0;
  } else {
    double lo = static_cast<double>(std::numeric_limits<T>::lowest());
    double hi = static_cast<double>(std::numeric_limits<T>::max());
    x = v <= lo ? std::numeric_limits<T>::lowest() : v >= hi ? std::numeric_limits<T>::max() : static_cast<T>(v);
  }
  char buf[sizeof(T)];
  std::memcpy(buf, &x, sizeof(T));
  out.append(buf, sizeof(T));
}

void put_value(std::string& out, DType t, double v) {
  switch (t) {
    case DType::kBool: out.push_back(v != 0 ? 1 : 0); break;
    case DType::kInt8: put_as<int8_t>(out, v); break;
    case DType::kUInt8: put_as<uint8_t>(out, v); break;
    case DType::kInt16: put_as<int16_t>(out, v); break;
    case DType::kUInt16: put_as<uint16_t>(out, v); break;
    case DType::kInt32: put_as<int32_t>(out, v); break;
    case DType::kUInt32: put_as<uint32_t>(out, v); break;
    case DType::kInt64: put_as<int64_t>(out, v); break;
    case DType::kUInt64: put_as<uint64_t>(out, v); break;
    case DType::kFloat16: put_as<uint16_t>(out, double_to_half(v)); break;
    case DType::kFloat32: put_as<float>(out, v); break;
    default: put_as<double>(out, v); break;
  }
}

// numpy.lib.format: sorted keys, growth padding for the first axis, 64-byte alignment.
std::string npy_bytes(DType t, const std::vector<uint64_t>& shape, const std::vector<double>& values) {
  std::string shape_repr = "(";
  for (size_t i = 0; i < shape.size(); ++i) shape_repr += (i ? ", " : "") + std::to_string(shape[i]);
  shape_repr += shape.size() == 1 ? ",)" : ")";
  std::string header =
      "{'descr': '" + npy_internal::descr_of(t) + "', 'fortran_order': False, 'shape': " + shape_repr + ", }";
  if (!shape.empty()) header.append(21 - std::to_string(shape[0]).size(), ' ');
  size_t hlen = header.size() + 1;
  size_t pad = 64 - (10 + hlen) % 64;
  header.append(pad, ' ');
  header.push_back('\n');
  std::string out("\x93NUMPY\x01\x00", 8);
  out.push_back(static_cast<char>(header.size() & 0xFF));
  out.push_back(static_cast<char>(header.size() >> 8));
  out += header;
  for (double v : values) put_value(out, t, v);
  return out;
}

std::string rows_npy(const MinMaxRows& r) {
  if (r.rows.empty()) return npy_bytes(DType::kFloat64, {0}, {});
  std::vector<double> values;
  for (const auto& row : r.rows) values.insert(values.end(), row.begin(), row.end());
  return npy_bytes(storable(r.dtype), {r.rows.size(), 2}, values);
}

double load_value(const std::byte* p, DType t, bool swap) {
  unsigned char b[8];
  size_t n = dtype_info(t).bits / 8;
  std::memcpy(b, p, n);
  if (swap) std::reverse(b, b + n);
  auto as = [&b]<class T>(T) {
    T x;
    std::memcpy(&x, b, sizeof x);
    return static_cast<double>(x);
  };
  switch (t) {
    case DType::kBool: return b[0] != 0 ? 1.0 : 0.0;
    case DType::kInt8: return as(int8_t{});
    case DType::kUInt8: return as(uint8_t{});
    case DType::kInt16: return as(int16_t{});
    case DType::kUInt16: return as(uint16_t{});
    case DType::kInt32: return as(int32_t{});
    case DType::kUInt32: return as(uint32_t{});
    case DType::kInt64: return as(int64_t{});
    case DType::kUInt64: return as(uint64_t{});
    case DType::kFloat16: {
      uint16_t h;
      std::memcpy(&h, b, 2);
      return half_to_double(h);
    }
    case DType::kFloat32: return as(float{});
    default: return as(double{});
  }
}

// One npy array of [min, max] rows: shape (2,) -> 1 row, (n, 2) -> n rows, (0,) -> none.
Result<MinMaxRows> decode_rows(std::span<const std::byte> bytes, const std::string& path) {
  using namespace npy_internal;
  MSIT_ASSIGN_OR_RETURN(NpyHeader h, parse_npy_header(bytes, path));
  MSIT_ASSIGN_OR_RETURN(NpyDType d, dtype_from_descr(h.descr, path));
  if (d.dtype == DType::kComplex64 || d.dtype == DType::kComplex128) {
    return make_error(path, Stage::kHeader, "min_max array of complex dtype is not supported");
  }
  uint64_t n = 0;
  if (h.shape == std::vector<uint64_t>{2}) n = 1;
  else if (h.shape.size() == 2 && h.shape[1] == 2) n = h.shape[0];
  else if (h.shape != std::vector<uint64_t>{0})
    return make_error(path, Stage::kHeader, "min_max array is not of shape (2,) or (n, 2)");
  if (n > (bytes.size() - h.data_offset) / (2 * d.itemsize)) {
    return make_error(path, Stage::kPayload, "min_max array data is truncated");
  }
  MinMaxRows r;
  r.dtype = d.dtype;
  const std::byte* data = bytes.data() + h.data_offset;
  for (uint64_t i = 0; i < n; ++i) {
    // Fortran order stores the min column, then the max column.
    uint64_t i0 = h.fortran_order ? i : 2 * i, i1 = h.fortran_order ? n + i : 2 * i + 1;
    r.rows.push_back({load_value(data + i0 * d.itemsize, d.dtype, d.byte_swapped),
                      load_value(data + i1 * d.itemsize, d.dtype, d.byte_swapped)});
  }
  return r;
}

}  // namespace

Result<MinMaxRows> parse_min_max_npy(std::span<const std::byte> bytes, const std::string& path) {
  MSIT_ASSIGN_OR_RETURN(MinMaxRows r, decode_rows(bytes, path));
  if (r.rows.size() != 1) return make_error(path, Stage::kHeader, "a _min_max.npy must hold exactly [min, max]");
  return r;
}

Result<std::pair<MinMaxRows, MinMaxRows>> parse_min_max_npz(std::span<const std::byte> bytes, const std::string& path) {
  MSIT_ASSIGN_OR_RETURN(auto members, npz_internal::read_stored_zip(bytes, path));
  std::pair<MinMaxRows, MinMaxRows> out;  // a missing member is an empty list, as in msit
  for (const auto& m : members) {
    bool in = m.name == "inputs.npy" || m.name == "inputs";
    bool outp = m.name == "outputs.npy" || m.name == "outputs";
    if (!in && !outp) continue;
    auto r = decode_rows(m.data, path);
    if (!r.ok()) {
      Error e = r.take_error();
      e.message = "member '" + m.name + "': " + e.message;
      return e;
    }
    (in ? out.first : out.second) = std::move(r).value();
  }
  return out;
}

Result<MinMaxRows> read_min_max_npy(const std::string& path) {
  MSIT_ASSIGN_OR_RETURN(std::string bytes, read_small_file(path, kMaxMinMaxFileBytes));
  return parse_min_max_npy(std::as_bytes(std::span<const char>(bytes)), path);
}

Result<std::pair<MinMaxRows, MinMaxRows>> read_min_max_npz(const std::string& path) {
  MSIT_ASSIGN_OR_RETURN(std::string bytes, read_small_file(path, kMaxMinMaxFileBytes));
  return parse_min_max_npz(std::as_bytes(std::span<const char>(bytes)), path);
}

std::string encode_min_max_npy(DType dtype, double min, double max) {
  return npy_bytes(storable(dtype), {2}, {min, max});
}

std::string encode_min_max_npz(const MinMaxRows& inputs, const MinMaxRows& outputs) {
  return npz_internal::write_stored_zip({{"inputs.npy", rows_npy(inputs)}, {"outputs.npy", rows_npy(outputs)}});
}

DType numpy_promote_types(DType a, DType b) {
  a = storable(a);
  b = storable(b);
  if (a == b) return a;
  const DTypeInfo &x = dtype_info(a), &y = dtype_info(b);
  if (x.kind == DTypeKind::kBool) return b;
  if (y.kind == DTypeKind::kBool) return a;
  auto float_of = [](uint32_t bits) {
    return bits <= 16 ? DType::kFloat16 : bits <= 32 ? DType::kFloat32 : DType::kFloat64;
  };
  auto int_of = [](bool is_signed, uint32_t bits) {
    static constexpr DType kS[] = {DType::kInt8, DType::kInt16, DType::kInt32, DType::kInt64};
    static constexpr DType kU[] = {DType::kUInt8, DType::kUInt16, DType::kUInt32, DType::kUInt64};
    int i = bits <= 8 ? 0 : bits <= 16 ? 1 : bits <= 32 ? 2 : 3;
    return is_signed ? kS[i] : kU[i];
  };
  bool xf = x.kind == DTypeKind::kFloat, yf = y.kind == DTypeKind::kFloat;
  if (xf && yf) return float_of(std::max(x.bits, y.bits));
  if (xf || yf) {
    // An integer needs a float with more mantissa bits: 8-bit ints fit float16, 16-bit float32.
    const DTypeInfo& f = xf ? x : y;
    const DTypeInfo& i = xf ? y : x;
    return float_of(std::max(f.bits, i.bits <= 8 ? 16u : i.bits <= 16 ? 32u : 64u));
  }
  bool xs = x.kind == DTypeKind::kSigned, ys = y.kind == DTypeKind::kSigned;
  if (xs == ys) return int_of(xs, std::max(x.bits, y.bits));
  const DTypeInfo& s = xs ? x : y;
  const DTypeInfo& u = xs ? y : x;
  if (u.bits < s.bits) return a == s.dtype ? a : b;
  return u.bits >= 64 ? DType::kFloat64 : int_of(true, u.bits * 2);
}

}  // namespace msit
