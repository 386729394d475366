// The .npy header (magic, version, Python-literal dict) and descr strings, shared by the
// FX dump reader and the _min_max npy/npz reader.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "common/base/result.h"
#include "common/dtype/dtype.h"

namespace msit::npy_internal {

inline constexpr size_t kMaxNpyHeaderBytes = 1 << 20;

struct NpyHeader {
  int major_version = 1;
  std::string descr;
  bool fortran_order = false;
  std::vector<uint64_t> shape;
  uint64_t data_offset = 0;  // first byte after the header
};

// Bytes needed to know the header length (magic + version + length field), and then the
// whole header; 0 when the prefix is not an npy file at all.
size_t npy_preamble_size(std::span<const std::byte> first8);

// Parses magic, version and the header dict. `prefix` must hold the whole header.
Result<NpyHeader> parse_npy_header(std::span<const std::byte> prefix, const std::string& path);

struct NpyDType {
  DType dtype = DType::kUnknown;
  uint32_t itemsize = 0;
  bool byte_swapped = false;  // big-endian multi-byte data on this little-endian host
};
// Numeric descrs only; object/string/void arrays and anything else is an error (stage header).
Result<NpyDType> dtype_from_descr(const std::string& descr, const std::string& path);

// The descr numpy writes for a numeric dtype ("<f4", "|b1", ...); empty when none exists.
std::string descr_of(DType t);

}  // namespace msit::npy_internal
