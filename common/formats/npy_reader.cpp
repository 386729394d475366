// FX .npy dump headers (v1/v2/v3): dtype, shape, order and where the data lies.
#include <bit>
#include <charconv>

#include "common/formats/dump_name.h"
#include "common/formats/dump_reader.h"
#include "common/formats/msprobe_names.h"
#include "common/formats/npy_internal.h"

namespace msit::npy_internal {
namespace {

static_assert(std::endian::native == std::endian::little, "npy byte-order handling assumes a little-endian host");

struct DescrEntry {
  char kind;
  uint32_t size;
  DType dtype;
};
constexpr DescrEntry kNumeric[] = {
    {'b', 1, DType::kBool},      {'i', 1, DType::kInt8},        {'u', 1, DType::kUInt8},   {'i', 2, DType::kInt16},
    {'u', 2, DType::kUInt16},    {'i', 4, DType::kInt32},       {'u', 4, DType::kUInt32},  {'i', 8, DType::kInt64},
    {'u', 8, DType::kUInt64},    {'f', 2, DType::kFloat16},     {'f', 4, DType::kFloat32}, {'f', 8, DType::kFloat64},
    {'c', 8, DType::kComplex64}, {'c', 16, DType::kComplex128},
};

Error unsupported(const std::string& path, const std::string& descr, const char* why) {
  return make_error(path, Stage::kHeader, "npy header: unsupported dtype '" + descr + "' (" + why + ")");
}

}  // namespace

Result<NpyDType> dtype_from_descr(const std::string& descr, const std::string& path) {
  std::string_view s = descr;
  char order = '|';
  if (!s.empty() && (s[0] == '<' || s[0] == '>' || s[0] == '|' || s[0] == '=')) {
    order = s[0];
    s.remove_prefix(1);
  }
  if (s.empty()) return unsupported(path, descr, "empty type code");
  char kind = s[0];
  if (kind == 'O' || kind == 'U' || kind == 'S' || kind == 'a' || kind == 'V') {
    return unsupported(path, descr, "object/string arrays cannot be summarised");
  }
  uint32_t size = 0;
  auto [end, ec] = std::from_chars(s.data() + 1, s.data() + s.size(), size);
  if (ec != std::errc() || end != s.data() + s.size()) return unsupported(path, descr, "unknown type code");
  for (const DescrEntry& e : kNumeric) {
    if (e.kind == kind && e.size == size) {
      NpyDType d;
      d.dtype = e.dtype;
      d.itemsize = size;
      // Complex values swap per component; the layout reader knows the component width.
      d.byte_swapped = order == '>' && size > 1;
      return d;
    }
  }
  return unsupported(path, descr, "not a numeric type msit-compact can summarise");
}

std::string descr_of(DType t) {
  for (const DescrEntry& e : kNumeric) {
    if (e.dtype == t) { return std::string(e.size == 1 ? "|" : "<") + e.kind + std::to_string(e.size); }
  }
  return {};
}

}  // namespace msit::npy_internal

namespace msit {

Result<RawDumpFile> parse_npy_prefix(std::span<const std::byte> prefix, uint64_t file_size, const std::string& path) {
  using namespace npy_internal;
  if (prefix.size() > file_size) prefix = prefix.first(static_cast<size_t>(file_size));
  MSIT_ASSIGN_OR_RETURN(NpyHeader h, parse_npy_header(prefix, path));
  MSIT_ASSIGN_OR_RETURN(NpyDType d, dtype_from_descr(h.descr, path));
  TensorDesc t;
  const std::string base = path.substr(path.find_last_of('/') + 1);
  if (auto fx = parse_fx_dump_name(base)) {
    t.role = fx->role;
    t.index = fx->index;
    t.sub_index = fx->sub_index;
  } else {
    msprobe_tensor_role(base, t.role, t.index);  // docs/formats/msprobe.md §7
  }
  t.dtype = d.dtype;
  t.shape = h.shape;
  t.original_shape = h.shape;
  t.fortran_order = h.fortran_order;
  t.byte_swapped = d.byte_swapped;
  t.payload_offset = h.data_offset;
  uint64_t numel = 1;
  for (uint64_t dim : h.shape) {
    if (dim != 0 && numel > UINT64_MAX / dim) {
      return make_error(path, Stage::kHeader, "npy header: shape overflows 64 bits");
    }
    numel *= dim;
  }
  if (numel > UINT64_MAX / d.itemsize || numel * d.itemsize > UINT64_MAX - h.data_offset) {
    return make_error(path, Stage::kHeader, "npy header: data size overflows 64 bits");
  }
  t.payload_size = numel * d.itemsize;
  RawDumpFile f;
  f.kind = FileKind::kNpy;
  f.path = path;
  f.identity.size = file_size;
  f.declared_size = h.data_offset + t.payload_size;
  if (f.declared_size > file_size) {
    return make_error(path, Stage::kIncomplete,
                      "npy data needs " + std::to_string(t.payload_size) + " bytes after the header but the file has " +
                          std::to_string(file_size - std::min(file_size, h.data_offset)) +
                          ": still being written, or truncated");
  }
  if (f.declared_size < file_size) {
    f.warnings.push_back(std::to_string(file_size - f.declared_size) +
                         " trailing bytes after the array data were ignored");
  }
  f.tensors.push_back(std::move(t));
  return f;
}

Result<RawDumpFile> read_npy_header(int fd, const std::string& path, const FileIdentity& id) {
  FileSource src(fd, path, id.size);
  return read_npy_header(src, id);
}

Result<RawDumpFile> read_npy_header(ByteSource& src, const FileIdentity& id) {
  const std::string& path = src.path();
  std::byte first[12] = {};
  size_t n = static_cast<size_t>(std::min<uint64_t>(id.size, sizeof first));
  MSIT_TRY(src.read_at(0, std::span<std::byte>(first, n), Stage::kHeader));
  size_t pre = npy_internal::npy_preamble_size(std::span<const std::byte>(first, n));
  if (pre == 0 || n < pre) return parse_npy_prefix(std::span<const std::byte>(first, n), id.size, path);
  uint64_t header_len = 0;
  for (size_t i = 8; i < pre; ++i) header_len |= uint64_t{std::to_integer<uint8_t>(first[i])} << (8 * (i - 8));
  // An oversized length is rejected by the parser from the preamble alone.
  uint64_t body = header_len > npy_internal::kMaxNpyHeaderBytes ? 0 : header_len;
  uint64_t want = std::min<uint64_t>(id.size, pre + body);
  std::vector<std::byte> buf(static_cast<size_t>(want));
  MSIT_TRY(src.read_at(0, buf, Stage::kHeader));
  auto r = parse_npy_prefix(buf, id.size, path);
  if (r.ok()) r->identity = id;
  return r;
}

}  // namespace msit
