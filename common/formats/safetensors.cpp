// safetensors reader: the header is validated completely before any data is read; data is read
// with pread in caller-sized ranges, so a 10 GB shard needs no more memory than one range.
#include "common/formats/safetensors.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <nlohmann/json.hpp>

#include "common/base/unique_fd.h"
#include "common/formats/json_depth.h"
#include "common/io/file.h"

namespace msit {
namespace {

using Json = nlohmann::json;
constexpr size_t kMaxRank = 16;
constexpr uint32_t kMaxDepth = 6;

DType dtype_of(std::string_view s) {
  static const std::pair<std::string_view, DType> kTypes[] = {
      {"F64", DType::kFloat64},       {"F32", DType::kFloat32},
      {"F16", DType::kFloat16},       {"BF16", DType::kBFloat16},
      {"I64", DType::kInt64},         {"I32", DType::kInt32},
      {"I16", DType::kInt16},         {"I8", DType::kInt8},
      {"U64", DType::kUInt64},        {"U32", DType::kUInt32},
      {"U16", DType::kUInt16},        {"U8", DType::kUInt8},
      {"BOOL", DType::kBool},         {"F8_E4M3", DType::kFloat8E4M3FN},
      {"F8_E5M2", DType::kFloat8E5M2}};
  for (const auto& [name, t] : kTypes)
    if (name == s) return t;
  return DType::kUnknown;
}

Result<SafetensorsEntry> parse_entry(const std::string& name, const Json& v, uint64_t data_base, uint64_t file_size,
                                     const std::string& path) {
  auto bad = [&](const std::string& what) {
    return make_error(path, Stage::kHeader, "tensor '" + name.substr(0, 128) + "': " + what);
  };
  if (!v.is_object()) return bad("expected an object");
  auto dt = v.find("dtype"), sh = v.find("shape"), off = v.find("data_offsets");
  if (dt == v.end() || !dt->is_string()) return bad("missing dtype");
  if (sh == v.end() || !sh->is_array() || sh->size() > kMaxRank) return bad("missing or bad shape");
  if (off == v.end() || !off->is_array() || off->size() != 2) return bad("missing or bad data_offsets");
  SafetensorsEntry e;
  e.name = name;
  e.dtype_text = dt->get<std::string>();
  e.dtype = dtype_of(e.dtype_text);
  if (e.dtype == DType::kUnknown) return bad("unsupported dtype " + e.dtype_text.substr(0, 32));
  e.count = 1;
  for (const auto& d : *sh) {
    if (!d.is_number_unsigned()) return bad("shape holds a non-integer");
    uint64_t x = d.get<uint64_t>();
    if (x != 0 && e.count > (uint64_t{1} << 62) / x) return bad("shape too large");
    e.shape.push_back(x);
    e.count *= x;
  }
  for (const auto& o : *off)
    if (!o.is_number_unsigned()) return bad("data_offsets hold a non-integer");
  uint64_t b = (*off)[0].get<uint64_t>(), end = (*off)[1].get<uint64_t>();
  auto bytes = bytes_for_elements(e.dtype, e.count);
  if (b > end || end > file_size - data_base) return bad("data_offsets outside the file");
  if (!bytes || *bytes != end - b) return bad("data_offsets do not match dtype and shape");
  e.offset = data_base + b;
  e.size = end - b;
  return e;
}

}  // namespace

const SafetensorsEntry* SafetensorsIndex::find(std::string_view name) const {
  auto it = std::lower_bound(entries.begin(), entries.end(), name,
                             [](const SafetensorsEntry& e, std::string_view n) { return e.name < n; });
  return it != entries.end() && it->name == name ? &*it : nullptr;
}

Result<SafetensorsIndex> parse_safetensors_header(std::string_view header, uint64_t data_base, uint64_t file_size,
                                                  const std::string& path) {
  if (data_base > file_size) return make_error(path, Stage::kHeader, "header longer than the file");
  if (json_nesting_exceeds(header, kMaxDepth))
    return make_error(path, Stage::kHeader, "JSON nested too deeply for a safetensors header");
  Json doc = Json::parse(header.begin(), header.end(), nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) return make_error(path, Stage::kHeader, "not a JSON object");
  if (doc.size() > kMaxSafetensorsEntries + 1) return make_error(path, Stage::kHeader, "too many tensors");
  SafetensorsIndex idx;
  idx.path = path;
  for (const auto& [name, v] : doc.items()) {
    if (name == "__metadata__") continue;
    MSIT_ASSIGN_OR_RETURN(SafetensorsEntry e, parse_entry(name, v, data_base, file_size, path));
    idx.entries.push_back(std::move(e));
  }
  std::sort(idx.entries.begin(), idx.entries.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  return idx;
}

Result<SafetensorsIndex> read_safetensors_index(const std::string& path) {
  // Regular files only, never through a link: a FIFO named x.safetensors must not block compare.
  uint64_t size = 0;
  MSIT_ASSIGN_OR_RETURN(UniqueFd fd, open_regular_nofollow(path, &size));
  unsigned char len[8];
  if (size < 8 || ::pread(fd.get(), len, 8, 0) != 8)
    return make_error(path, Stage::kHeader, "shorter than the 8-byte header length");
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | len[i];
  if (n > kMaxSafetensorsHeader || n > size - 8)
    return make_error(path, Stage::kHeader, "header length " + std::to_string(n) + " is not plausible");
  std::string header(n, '\0');
  if (n && ::pread(fd.get(), header.data(), n, 8) != static_cast<ssize_t>(n))
    return make_error(path, Stage::kHeader, "short read");
  return parse_safetensors_header(header, 8 + n, size, path);
}

Status read_safetensors_elements(const SafetensorsIndex& idx, const SafetensorsEntry& e, uint64_t first, size_t n,
                                 std::byte* out) {
  if (first > e.count || n > e.count - first)
    return make_error(idx.path, Stage::kPayload, "range outside tensor " + e.name);
  size_t esize = dtype_info(e.dtype).bits / 8;
  MSIT_ASSIGN_OR_RETURN(UniqueFd fd, open_regular_nofollow(idx.path));
  size_t want = n * esize, done = 0;
  while (done < want) {
    ssize_t got = ::pread(fd.get(), out + done, want - done, static_cast<off_t>(e.offset + first * esize + done));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return make_error(idx.path, Stage::kPayload, "short read in tensor " + e.name + " (file truncated?)");
    done += static_cast<size_t>(got);
  }
  return ok_status();
}

}  // namespace msit
