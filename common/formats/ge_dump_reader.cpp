// GE dump binary headers: the big-dump layout (8-byte header length, DumpData, payloads),
// with a fallback to the legacy whole-file protobuf. Payload bytes are never read here.
#include <cstring>

#include "common/formats/dump_reader.h"
#include "common/formats/ge_reader_internal.h"

namespace msit::ge_internal {
namespace {

constexpr uint32_t kNanoMagic = 0x5A5A5A5A;

uint64_t load_le(const std::byte* p, size_t n) {
  uint64_t v = 0;
  for (size_t i = 0; i < n; ++i) v |= uint64_t{std::to_integer<uint8_t>(p[i])} << (8 * i);
  return v;
}

std::vector<uint64_t> dims_of(const dumpdata::Shape& s) { return {s.dim().begin(), s.dim().end()}; }

template <class Msg>
TensorDesc desc_common(const Msg& m, Role role, uint32_t index) {
  TensorDesc t;
  t.role = role;
  t.index = index;
  t.ge_dtype = m.data_type();
  t.dtype = dtype_from_ge_proto(m.data_type());
  t.ge_format = m.format();
  t.sub_format = m.sub_format();
  t.shape = dims_of(m.shape());
  // An absent or empty original_shape means "same as shape"; a real scalar has both empty.
  t.original_shape = m.original_shape().dim_size() > 0 ? dims_of(m.original_shape()) : t.shape;
  return t;
}

struct Layout {
  std::vector<TensorDesc> tensors;
  std::vector<uint64_t> sizes;
};

size_t declared_tensors(const dumpdata::DumpData& d) {
  return static_cast<size_t>(d.input_size()) + static_cast<size_t>(d.output_size()) +
         static_cast<size_t>(d.buffer_size()) + static_cast<size_t>(std::max(d.space_size(), d.attr_size()));
}

Layout layout_of(const dumpdata::DumpData& d) {
  Layout l;
  auto add = [&l](TensorDesc t, uint64_t size) {
    t.payload_size = size;
    l.tensors.push_back(std::move(t));
    l.sizes.push_back(size);
  };
  for (int i = 0; i < d.input_size(); ++i)
    add(desc_from_input(d.input(i), static_cast<uint32_t>(i)), d.input(i).size());
  for (int i = 0; i < d.output_size(); ++i)
    add(desc_from_output(d.output(i), static_cast<uint32_t>(i)), d.output(i).size());
  for (int i = 0; i < d.buffer_size(); ++i)
    add(desc_raw_block(Role::kBuffer, static_cast<uint32_t>(i), d.buffer(i).size()), d.buffer(i).size());
  if (d.space_size() > 0) {
    for (int i = 0; i < d.space_size(); ++i)
      add(desc_raw_block(Role::kWorkspace, static_cast<uint32_t>(i), d.space(i).size()), d.space(i).size());
  } else if (attrs_are_legacy_spaces(d)) {
    for (int i = 0; i < d.attr_size(); ++i)
      add(desc_raw_block(Role::kWorkspace, static_cast<uint32_t>(i), d.attr(i).size()), d.attr(i).size());
  }
  return l;
}

// Places the payloads after the header and checks them against the file size.
Result<RawDumpFile> big_dump_from(const dumpdata::DumpData& d, uint64_t header_len, uint64_t file_size,
                                  const std::string& path) {
  RawDumpFile f;
  f.kind = FileKind::kGeBin;
  f.path = path;
  f.version = d.version();
  f.dump_op_name = d.op_name();
  f.dump_time = d.dump_time();
  if (declared_tensors(d) > kMaxTensorsPerFile) {
    return make_error(path, Stage::kHeader,
                      "declares " + std::to_string(declared_tensors(d)) + " tensors (limit " +
                          std::to_string(kMaxTensorsPerFile) + "): not a real GE op dump");
  }
  Layout l = layout_of(d);
  uint64_t pos = 8 + header_len;
  for (size_t i = 0; i < l.tensors.size(); ++i) {
    TensorDesc& t = l.tensors[i];
    if (l.sizes[i] > UINT64_MAX - pos) {
      return make_error(path, Stage::kHeader,
                        "payload sizes overflow 64 bits at " + std::string(role_name(t.role)) + " " +
                            std::to_string(t.index) + " (size " + std::to_string(l.sizes[i]) + "): corrupt header");
    }
    t.payload_offset = pos;
    pos += l.sizes[i];
  }
  if (pos > file_size) {
    return make_error(path, Stage::kIncomplete,
                      "header declares " + std::to_string(pos) + " bytes (8 + header " + std::to_string(header_len) +
                          " + payloads " + std::to_string(pos - 8 - header_len) + ") but the file has " +
                          std::to_string(file_size) + ": still being written, or truncated");
  }
  if (pos < file_size) {
    f.warnings.push_back(std::to_string(file_size - pos) + " trailing bytes after the last payload were ignored");
  }
  if (!f.version.empty() && f.version != "2.0") {
    f.warnings.push_back("unexpected header version '" + f.version + "' (expected 2.0)");
  }
  f.declared_size = pos;
  f.tensors = std::move(l.tensors);
  return f;
}

// The big-dump attempt; an error here may still be rescued by the legacy layout.
Result<RawDumpFile> parse_big_dump(ByteSource& src, uint64_t file_size, const std::string& path, uint64_t header_len,
                                   bool& header_parsed) {
  if (header_len == 0) return make_error(path, Stage::kHeader, "header length is 0: not a GE dump");
  if (header_len > kMaxGeHeaderBytes) {
    return make_error(path, Stage::kHeader,
                      "header length " + std::to_string(header_len) + " exceeds the limit of " +
                          std::to_string(kMaxGeHeaderBytes) + " bytes: not a GE dump or corrupt");
  }
  if (header_len > file_size - 8) {
    return make_error(path, Stage::kIncomplete,
                      "header length " + std::to_string(header_len) + " runs past the end of the " +
                          std::to_string(file_size) + "-byte file: still being written, or truncated");
  }
  std::vector<std::byte> header(static_cast<size_t>(header_len));
  MSIT_TRY(src.read_at(8, header, Stage::kHeader));
  dumpdata::DumpData d;
  if (!d.ParseFromArray(header.data(), static_cast<int>(header.size()))) {
    return make_error(
        path, Stage::kHeader,
        "the " + std::to_string(header_len) + "-byte header at offset 8 is not a valid DumpData protobuf");
  }
  header_parsed = true;
  return big_dump_from(d, header_len, file_size, path);
}

}  // namespace

TensorDesc desc_from_input(const dumpdata::OpInput& in, uint32_t index) { return desc_common(in, Role::kInput, index); }

TensorDesc desc_from_output(const dumpdata::OpOutput& out, uint32_t index) {
  return desc_common(out, Role::kOutput, index);
}

TensorDesc desc_raw_block(Role role, uint32_t index, uint64_t size) {
  TensorDesc t;
  t.role = role;
  t.index = index;
  t.dtype = DType::kUInt8;
  t.shape = {size};
  t.original_shape = {size};
  t.payload_size = size;
  return t;
}

bool attrs_are_legacy_spaces(const dumpdata::DumpData& d) {
  if (d.space_size() > 0 || d.attr_size() == 0) return false;
  bool any_size = false;
  for (const auto& a : d.attr()) {
    if (!a.name().empty()) return false;  // an OpAttr always has a name
    any_size = any_size || a.has_size();
  }
  return any_size;
}

Result<RawDumpFile> parse_ge(ByteSource& src, uint64_t file_size, const std::string& path) {
  if (file_size <= 8) {
    return make_error(
        path, Stage::kHeader,
        "file of " + std::to_string(file_size) + " bytes is too small to be a GE dump (8-byte header length + header)");
  }
  std::byte prefix[12] = {};
  size_t prefix_len = file_size >= 12 ? 12 : 8;
  MSIT_TRY(src.read_at(0, std::span<std::byte>(prefix, prefix_len), Stage::kHeader));
  if (file_size > 12 && load_le(prefix + 8, 4) == kNanoMagic) {
    return make_error(path, Stage::kHeader, "nano-format dump (magic 0x5A5A5A5A at offset 8) is not supported");
  }
  bool header_parsed = false;
  auto big = parse_big_dump(src, file_size, path, load_le(prefix, 8), header_parsed);
  // A parsed big-dump header means the sizes were wrong: walking the (possibly huge, still
  // growing) file as a legacy protobuf would only cost I/O.
  if (big.ok() || header_parsed) return big;
  // Pre-2.0 dumps are one protobuf; their first 8 bytes make an absurd header length.
  auto legacy = parse_legacy_whole_protobuf(src, file_size, path);
  if (legacy.ok()) return legacy;
  Error e = big.take_error();
  e.message += " (nor is it a legacy whole-file protobuf dump: " + legacy.error().message + ")";
  return e;
}

}  // namespace msit::ge_internal

namespace msit {

Result<RawDumpFile> read_ge_dump_header(ByteSource& src, const FileIdentity& id) {
  auto r = ge_internal::parse_ge(src, id.size, src.path());
  if (r.ok()) r->identity = id;
  return r;
}

Result<RawDumpFile> read_ge_dump_header(int fd, const std::string& path, const FileIdentity& id) {
  FileSource src(fd, path, id.size);
  return read_ge_dump_header(src, id);
}

Result<RawDumpFile> parse_ge_dump_prefix(std::span<const std::byte> prefix, uint64_t file_size,
                                         const std::string& path) {
  if (prefix.size() > file_size) prefix = prefix.first(static_cast<size_t>(file_size));
  ge_internal::MemorySource src(prefix, path);
  auto r = ge_internal::parse_ge(src, file_size, path);
  if (r.ok()) r->identity.size = file_size;
  return r;
}

}  // namespace msit
