// .pth headers: ZIP directory (shared with npz, common/formats/npz_zip.cpp), data.pkl, and the
// view's extent within its storage member, checked before anything is read.
#include "common/formats/pth_reader.h"

#include <algorithm>

#include "common/formats/atb_names.h"
#include "common/formats/msprobe_names.h"
#include "common/formats/npz_internal.h"
#include "common/formats/pth_pickle.h"
#include "common/io/derived_names.h"

namespace msit {
namespace {

using npz_internal::ZipEntry;

Error unsupported(const std::string& path, const std::string& what) {
  return make_error(path, Stage::kHeader, "unsupported .pth content: " + what);
}

const ZipEntry* find_entry(const std::vector<ZipEntry>& es, const std::string& name) {
  for (const ZipEntry& e : es) {
    if (e.name == name) return &e;
  }
  return nullptr;
}

void name_tensor(const std::string& path, TensorDesc& t) {
  std::string_view base = path;
  if (size_t slash = base.find_last_of('/'); slash != std::string_view::npos) base.remove_prefix(slash + 1);
  base = without_archive_suffix(base);
  if (auto n = parse_torch_tensor_name(base)) {
    t.role = n->role;
    if (!n->indices.empty()) t.index = n->indices[0];
    if (n->indices.size() > 1) t.sub_index = n->indices[1];
  } else {
    msprobe_tensor_role(base, t.role, t.index);  // docs/formats/msprobe.md §7
  }
}

// Overflow-checked a * b + c.
bool mul_add(uint64_t a, uint64_t b, uint64_t c, uint64_t& out) {
  uint64_t prod = 0;
  return !__builtin_mul_overflow(a, b, &prod) && !__builtin_add_overflow(prod, c, &out);
}

// Sets payload and strides from the view; every element it reaches must lie in the member.
Status place_view(const PthTensorRef& r, const ZipEntry& data, uint64_t elem, const std::string& path, TensorDesc& t) {
  const bool empty = std::find(r.size.begin(), r.size.end(), uint64_t{0}) != r.size.end();
  uint64_t last = r.storage_offset;  // highest element index the view reaches
  bool contiguous = true;
  uint64_t expect = 1;
  for (size_t d = r.size.size(); d-- > 0;) {
    if (r.size[d] != 1 && r.stride[d] != expect) contiguous = false;
    if (!empty && (!mul_add(r.size[d] - 1, r.stride[d], last, last) || last >= r.storage_numel)) {
      return unsupported(path, "view reaches past its storage of " + std::to_string(r.storage_numel) + " elements");
    }
    if (!mul_add(expect, std::max<uint64_t>(r.size[d], 1), 0, expect)) expect = UINT64_MAX;
  }
  if (!empty && r.storage_offset >= r.storage_numel) return unsupported(path, "storage offset lies past its storage");
  uint64_t need = 0;
  if (!mul_add(r.storage_numel, elem, 0, need) || need > data.size) {
    return make_error(path, Stage::kPayload,
                      "storage member holds " + std::to_string(data.size) + " bytes but " +
                          std::to_string(r.storage_numel) + " elements need more");
  }
  t.payload_offset = data.data_offset + r.storage_offset * elem;
  if (empty) {
    t.payload_size = 0;
  } else if (contiguous) {
    t.payload_size = t.stored_count() * elem;
  } else {
    t.strides = r.stride;
    t.payload_size = (last - r.storage_offset + 1) * elem;
  }
  return ok_status();
}

Result<RawDumpFile> build(ByteSource& src, const std::vector<ZipEntry>& es) {
  const std::string& path = src.path();
  if (es.empty()) return unsupported(path, "empty ZIP archive");
  const std::string& first = es[0].name;
  const size_t slash = first.find('/');
  if (slash == std::string::npos || slash == 0)
    return unsupported(path, "member '" + first + "' is not under a top directory");
  const std::string top = first.substr(0, slash + 1);
  const ZipEntry* pkl = find_entry(es, top + "data.pkl");
  if (!pkl) return unsupported(path, "no " + top + "data.pkl member");
  if (pkl->size > kMaxPthPickleBytes) return unsupported(path, "data.pkl larger than 1 MiB");
  std::vector<std::byte> pickle(static_cast<size_t>(pkl->size));
  MSIT_TRY(src.read_at(pkl->data_offset, pickle, Stage::kHeader));
  if (npz_internal::zip_crc32(pickle) != pkl->crc32)
    return make_error(path, Stage::kHeader, ".pth: data.pkl fails its CRC-32 check");
  MSIT_ASSIGN_OR_RETURN(PthTensorRef r, parse_pth_pickle(pickle, path));

  RawDumpFile f;
  f.kind = FileKind::kPth;
  f.path = path;
  f.declared_size = src.size();
  TensorDesc t;
  name_tensor(path, t);
  std::string stem = r.storage_class;
  if (stem.size() > 7 && stem.ends_with("Storage")) stem.resize(stem.size() - 7);
  auto dtype = dtype_from_torch_storage(stem);
  if (!dtype) return unsupported(path, "storage class torch." + r.storage_class);
  t.dtype = *dtype;
  t.shape = r.size;
  t.original_shape = r.size;
  if (const ZipEntry* bo = find_entry(es, top + "byteorder"); bo && bo->size <= 16) {
    std::string order(static_cast<size_t>(bo->size), '\0');
    MSIT_TRY(src.read_at(bo->data_offset, std::as_writable_bytes(std::span<char>(order)), Stage::kHeader));
    if (order == "big") t.byte_swapped = dtype_info(t.dtype).bits > 8;
    else if (order != "little") return unsupported(path, "byteorder '" + order + "'");
  }
  const ZipEntry* data = find_entry(es, top + "data/" + r.key);
  if (!data) return unsupported(path, "storage member " + top + "data/" + r.key + " is missing");
  MSIT_TRY(place_view(r, *data, dtype_info(t.dtype).bits / 8, path, t));
  if (r.location != "cpu") f.warnings.push_back("tensor was saved from device " + r.location);
  f.tensors.push_back(std::move(t));
  return f;
}

}  // namespace

Result<RawDumpFile> read_pth_header(ByteSource& src, const FileIdentity& id) {
  auto entries = npz_internal::read_stored_zip_entries(src, ".pth");
  if (!entries.ok()) {
    Error e = entries.take_error();
    // torch.save writes the central directory last: without it the file is still growing.
    if (e.message.find("no end-of-central-directory") != std::string::npos ||
        e.message.find("too small to be a zip") != std::string::npos) {
      e.stage = Stage::kIncomplete;
    }
    return e;
  }
  auto r = build(src, *entries);
  if (r.ok()) r->identity = id;
  return r;
}

Result<RawDumpFile> parse_pth_bytes(std::span<const std::byte> file, const std::string& path) {
  MemorySource src(file, path);
  FileIdentity id;
  id.size = file.size();
  return read_pth_header(src, id);
}

}  // namespace msit
