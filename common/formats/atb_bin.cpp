// ATB .bin headers (Mki::BinFile text header, docs/formats/atb-torch.md §2.6) and the stats variant (§2.7).
#include "common/formats/atb_bin.h"

#include <charconv>
#include <cstring>
#include <optional>
#include <string_view>

#include "common/formats/atb_names.h"
#include "common/io/derived_names.h"

namespace msit {
namespace {

constexpr std::string_view kEndLine = "$End=1";
constexpr size_t kMaxDims = 32;
constexpr uint64_t kMaxObjects = 1024;

struct Parsed {
  std::string version;
  std::optional<uint64_t> count, length;
  std::optional<int64_t> format, dtype;
  std::optional<std::vector<uint64_t>> dims;
  std::optional<uint64_t> data_offset, data_length;
  HeaderStats stats;
  bool has_stats = false;
  uint64_t other_objects = 0;
  uint64_t raw_start = 0;  // first byte after "$End=1\n"
};

Error header_error(const std::string& path, const std::string& what) {
  return make_error(path, Stage::kHeader, "ATB .bin header: " + what);
}

template <class T>
std::optional<T> to_int(std::string_view s) {
  T v{};
  if (s.empty()) return std::nullopt;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

// `offset,length` of one object.
bool parse_pair(std::string_view v, uint64_t& a, uint64_t& b) {
  size_t comma = v.find(',');
  if (comma == std::string_view::npos) return false;
  auto x = to_int<uint64_t>(v.substr(0, comma)), y = to_int<uint64_t>(v.substr(comma + 1));
  if (!x || !y) return false;
  a = *x;
  b = *y;
  return true;
}

Result<std::vector<uint64_t>> parse_dims(std::string_view v, const std::string& path) {
  std::vector<uint64_t> dims;
  if (v.empty()) return dims;  // 0-rank tensor (msit and Mki reject it; it is one element)
  size_t start = 0;
  while (true) {
    size_t comma = v.find(',', start);
    std::string_view d = v.substr(start, comma == std::string_view::npos ? v.size() - start : comma - start);
    auto n = to_int<uint64_t>(d);
    if (!n) return header_error(path, "dims '" + std::string(v) + "' is not a list of non-negative integers");
    if (dims.size() == kMaxDims) return header_error(path, "more than 32 dims");
    dims.push_back(*n);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return dims;
}

// A statistic as the stats dump writes it; "N/A" (non-numeric dtypes) stays empty.
Result<std::optional<double>> parse_stat(std::string_view key, std::string_view v, const std::string& path) {
  if (v == "N/A") return std::optional<double>{};
  double d = 0;
  auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), d);
  if (v.empty() || ec != std::errc() || end != v.data() + v.size()) {
    return header_error(path, std::string(key) + " '" + std::string(v) + "' is not a number");
  }
  return std::optional<double>(d);
}

Status apply_line(std::string_view key, std::string_view v, Parsed& p, const std::string& path) {
  auto bad = [&](const char* what) {
    return header_error(path, std::string(key) + " '" + std::string(v) + "' " + what);
  };
  if (key == "$Version") {
    p.version = std::string(v);
  } else if (key == "$Object.Count") {
    p.count = to_int<uint64_t>(v);
    if (!p.count || *p.count > kMaxObjects) return bad("is not a valid object count");
  } else if (key == "$Object.Length") {
    p.length = to_int<uint64_t>(v);
    if (!p.length) return bad("is not a byte count");
  } else if (key == "$Object.data") {
    uint64_t a = 0, b = 0;
    if (!parse_pair(v, a, b)) return bad("is not 'offset,length'");
    p.data_offset = a;
    p.data_length = b;
  } else if (key.substr(0, 8) == "$Object.") {
    ++p.other_objects;
  } else if (key == "format") {
    p.format = to_int<int64_t>(v);
    if (!p.format) return bad("is not an integer");
  } else if (key == "dtype") {
    p.dtype = to_int<int64_t>(v);
    if (!p.dtype) return bad("is not an integer");
  } else if (key == "dims") {
    MSIT_ASSIGN_OR_RETURN(p.dims, parse_dims(v, path));
  } else if (key == "max" || key == "min" || key == "mean" || key == "l2norm") {
    MSIT_ASSIGN_OR_RETURN(std::optional<double> d, parse_stat(key, v, path));
    std::optional<double>& slot = key == "max"    ? p.stats.max
                                  : key == "min"  ? p.stats.min
                                  : key == "mean" ? p.stats.mean
                                                  : p.stats.l2norm;
    slot = d;
    p.has_stats = true;
  }
  return ok_status();  // other user attributes and unknown `$` keys are ignored, as msit does
}

// Splits the text into lines up to `$End=1`; fails on a line without exactly one '='.
Result<Parsed> parse_lines(std::string_view text, uint64_t file_size, const std::string& path) {
  Parsed p;
  size_t pos = 0;
  while (true) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) {
      if (file_size > text.size()) return header_error(path, "no '$End=1' line in the first 64 KiB");
      return make_error(path, Stage::kIncomplete,
                        "ATB .bin header has no '$End=1' line yet: still being written, or truncated");
    }
    std::string_view line = text.substr(pos, nl - pos);
    pos = nl + 1;
    if (line == kEndLine) break;
    size_t eq = line.find('=');
    if (eq == std::string_view::npos || eq == 0 || line.find('=', eq + 1) != std::string_view::npos) {
      std::string shown(line.substr(0, 80));
      return header_error(path, "line '" + shown + "' is not 'name=value'");
    }
    MSIT_TRY(apply_line(line.substr(0, eq), line.substr(eq + 1), p, path));
  }
  p.raw_start = pos;
  return p;
}

}  // namespace

bool looks_like_atb_bin(std::span<const std::byte> b) {
  static constexpr std::string_view kMagic = "$Version=";
  return b.size() >= kMagic.size() && std::memcmp(b.data(), kMagic.data(), kMagic.size()) == 0;
}

namespace {

void name_tensor(const std::string& path, TensorDesc& t) {
  std::string_view base = path;
  if (size_t slash = base.find_last_of('/'); slash != std::string_view::npos) base.remove_prefix(slash + 1);
  // An archived tensor (NAME.bin.zst) keeps the role of its original name.
  base = without_archive_suffix(base);
  if (auto n = parse_atb_tensor_name(base)) {
    t.role = n->role;
    t.index = n->index;
  }
}

// The tensor's bytes: `$Object.data` within the `$Object.Length` raw area after the header.
Status place_payload(const Parsed& p, uint64_t file_size, const std::string& path, RawDumpFile& f, TensorDesc& t) {
  const uint64_t length = p.length.value_or(0);
  if (!p.data_offset || !p.data_length)
    return header_error(path, "$Object.Count is not 0 but there is no $Object.data line");
  if (*p.data_offset > length || *p.data_length > length - *p.data_offset) {
    return header_error(path, "$Object.data=" + std::to_string(*p.data_offset) + "," + std::to_string(*p.data_length) +
                                  " lies outside $Object.Length=" + std::to_string(length));
  }
  if (length > file_size - p.raw_start) {
    return make_error(path, Stage::kIncomplete,
                      "ATB .bin declares " + std::to_string(length) + " data bytes but the file has " +
                          std::to_string(file_size - p.raw_start) +
                          " after the header: still being written, or truncated");
  }
  t.payload_offset = p.raw_start + *p.data_offset;
  t.payload_size = *p.data_length;
  f.declared_size = p.raw_start + length;
  if (f.declared_size < file_size) {
    f.warnings.push_back(std::to_string(file_size - f.declared_size) + " bytes after $Object.Length were ignored");
  }
  if (p.other_objects > 0)
    f.warnings.push_back(std::to_string(p.other_objects) + " objects other than 'data' were ignored");
  return ok_status();
}

}  // namespace

Result<RawDumpFile> parse_atb_bin_prefix(std::span<const std::byte> prefix, uint64_t file_size,
                                         const std::string& path) {
  if (prefix.size() > file_size) prefix = prefix.first(static_cast<size_t>(file_size));
  if (prefix.size() > kMaxAtbHeaderBytes) prefix = prefix.first(kMaxAtbHeaderBytes);
  if (!looks_like_atb_bin(prefix)) return header_error(path, "does not start with '$Version='");
  std::string_view text(reinterpret_cast<const char*>(prefix.data()), prefix.size());
  MSIT_ASSIGN_OR_RETURN(Parsed p, parse_lines(text, file_size, path));
  if (!p.dims) return header_error(path, "no dims line");
  if (!p.dtype) return header_error(path, "no dtype line");
  RawDumpFile f;
  f.kind = FileKind::kAtbBin;
  f.path = path;
  f.identity.size = file_size;
  f.version = p.version;
  f.declared_size = p.raw_start;
  TensorDesc t;
  name_tensor(path, t);
  t.dtype = dtype_from_acl(*p.dtype);
  if (t.dtype == DType::kUnknown) {
    f.warnings.push_back("aclDataType " + std::to_string(*p.dtype) + " is unknown; payload hashed only");
  }
  t.ge_format = p.format.value_or(ge_format::kND);
  t.shape = *p.dims;
  t.original_shape = *p.dims;  // ATB records the stored shape only; msit uses it as is
  // Without a `$Object.Count` line, the `$Object.data` line decides whether there is data.
  const bool no_data = p.count ? *p.count == 0 : !p.data_offset;
  if (p.has_stats || no_data) {
    t.header_stats = p.stats;  // stats dump, or a header-only (-sd) dump: nothing to read
  } else {
    MSIT_TRY(place_payload(p, file_size, path, f, t));
  }
  f.tensors.push_back(std::move(t));
  return f;
}

Result<RawDumpFile> read_atb_bin_header(ByteSource& src, const FileIdentity& id) {
  std::vector<std::byte> buf(static_cast<size_t>(std::min<uint64_t>(id.size, kMaxAtbHeaderBytes)));
  MSIT_TRY(src.read_at(0, buf, Stage::kHeader));
  auto r = parse_atb_bin_prefix(buf, id.size, src.path());
  if (r.ok()) r->identity = id;
  return r;
}

}  // namespace msit
