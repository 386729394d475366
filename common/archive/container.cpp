// Encoding and bounds-checked decoding of the archive container's header, meta, index, trailer.
#include "common/archive/container.h"

#include <algorithm>
#include <cstring>
#include <nlohmann/json.hpp>
#include <optional>

namespace msit::archive {
namespace {

void put_le(std::string& out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

uint64_t get_le(std::span<const std::byte> b, size_t off, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= uint64_t{std::to_integer<uint8_t>(b[off + i])} << (8 * i);
  return v;
}

bool valid_elem(uint64_t e) { return e == 1 || e == 2 || e == 4 || e == 8; }

Status check_segments(const Meta& m, const std::string& path) {
  uint64_t pos = 0;
  for (size_t i = 0; i < m.segments.size(); ++i) {
    const Segment& s = m.segments[i];
    if (s.offset != pos || s.length == 0 || s.length > m.original_size - pos || !valid_elem(s.elem)) {
      return make_error(path, Stage::kArchive,
                        "segment " + std::to_string(i) + " (offset " + std::to_string(s.offset) + ", length " +
                            std::to_string(s.length) + ", element " + std::to_string(s.elem) +
                            ") does not continue the previous one inside the original size");
    }
    pos += s.length;
  }
  if (pos != m.original_size) {
    return make_error(
        path, Stage::kArchive,
        "segments cover " + std::to_string(pos) + " bytes, original size is " + std::to_string(m.original_size));
  }
  return ok_status();
}

}  // namespace

std::vector<Block> plan_blocks(const Meta& m) {
  std::vector<Block> out;
  for (const Segment& s : m.segments) {
    for (uint64_t done = 0; done < s.length;) {
      Block b;
      b.raw_offset = s.offset + done;
      b.raw_bytes = static_cast<uint32_t>(std::min<uint64_t>(m.block_bytes, s.length - done));
      b.elem = s.elem;
      out.push_back(b);
      done += b.raw_bytes;
    }
  }
  return out;
}

uint64_t count_blocks(const Meta& m) {
  uint64_t n = 0;
  for (const Segment& s : m.segments) n += s.length / m.block_bytes + (s.length % m.block_bytes != 0);
  return n;
}

std::string encode_fixed_header(uint32_t meta_len) {
  std::string out(kMagic);
  put_le(out, kVersion, 4);
  put_le(out, meta_len, 4);
  return out;
}

std::string encode_meta(const Meta& m) {
  nlohmann::json segs = nlohmann::json::array();
  for (const Segment& s : m.segments) segs.push_back({s.offset, s.length, s.elem});
  nlohmann::json j = {{"format", "msit-compact-archive"},
                      {"version", kVersion},
                      {"original_name", m.original_name},
                      {"original_size", m.original_size},
                      {"original_mtime_ns", m.original_mtime_ns},
                      {"original_mode", m.original_mode},
                      {"codec", "zstd"},
                      {"level", m.level},
                      {"shuffle", "byte"},
                      {"block_bytes", m.block_bytes},
                      {"segments", std::move(segs)}};
  if (m.has_owner) {
    j["original_uid"] = m.original_uid;
    j["original_gid"] = m.original_gid;
  }
  // Names may hold any bytes: replace rather than fail on invalid UTF-8.
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string encode_index(std::span<const Block> blocks) {
  std::string out;
  out.reserve(blocks.size() * kIndexEntryBytes);
  for (const Block& b : blocks) {
    put_le(out, b.frame_offset, 8);
    put_le(out, b.frame_bytes, 4);
    put_le(out, b.raw_bytes, 4);
  }
  return out;
}

std::string encode_trailer(const Trailer& t) {
  std::string out;
  put_le(out, t.index_offset, 8);
  put_le(out, t.block_count, 8);
  put_le(out, t.original_xxh3, 8);
  put_le(out, t.check_xxh3, 8);
  out += kEndMagic;
  return out;
}

Result<uint32_t> decode_fixed_header(std::span<const std::byte> b, const std::string& path) {
  if (b.size() < kFixedHeaderBytes || std::memcmp(b.data(), kMagic.data(), kMagic.size()) != 0) {
    return make_error(path, Stage::kArchive, "not an msit-compact archive (bad magic)");
  }
  const uint64_t version = get_le(b, 8, 4);
  if (version != kVersion) {
    return make_error(path, Stage::kArchive,
                      "archive version " + std::to_string(version) + " is not supported (this build reads version " +
                          std::to_string(kVersion) + ")");
  }
  const uint64_t meta_len = get_le(b, 12, 4);
  if (meta_len == 0 || meta_len > kMaxMetaBytes) {
    return make_error(path, Stage::kArchive, "metadata length " + std::to_string(meta_len) + " is out of range");
  }
  return static_cast<uint32_t>(meta_len);
}

namespace {

// The metadata is one object holding scalars and the segments array of 3-number arrays: a
// DOM of anything deeper or bigger is refused while parsing, before it is built (a 4 MiB
// array of zeros would otherwise grow to ~100 MB of nodes).
Result<nlohmann::json> parse_bounded(std::string_view text, const std::string& path) {
  constexpr size_t kMaxValues = 4 * kMaxSegments + 64;
  size_t values = 0;
  bool too_big = false;
  auto cb = [&](int depth, nlohmann::json::parse_event_t ev, nlohmann::json&) {
    using E = nlohmann::json::parse_event_t;
    if (ev == E::key || ev == E::object_end || ev == E::array_end) return !too_big;
    if (depth > 3 || ++values > kMaxValues) too_big = true;
    return !too_big;
  };
  auto j = nlohmann::json::parse(text, cb, /*allow_exceptions=*/false);
  if (too_big) {
    return make_error(path, Stage::kArchive,
                      "metadata is nested deeper or holds more than " + std::to_string(kMaxValues) +
                          " values (limit; crafted or corrupt archive)");
  }
  return j;
}

bool valid_name(const std::string& n) {
  return !n.empty() && n.size() <= kMaxNameBytes && n != "." && n != ".." && n.find('/') == std::string::npos &&
         n.find('\0') == std::string::npos;
}

Status decode_owner(const nlohmann::json& j, Meta& m, const std::string& path) {
  const bool has_uid = j.contains("original_uid"), has_gid = j.contains("original_gid");
  if (!has_uid && !has_gid) return ok_status();
  const auto& u = j.at(has_uid ? "original_uid" : "original_gid");
  const auto& g = j.at(has_gid ? "original_gid" : "original_uid");
  // (uid_t)-1 means "unchanged" to chown: never a real owner.
  if (!has_uid || !has_gid || !u.is_number_unsigned() || !g.is_number_unsigned() || u.get<uint64_t>() >= 0xffffffffu ||
      g.get<uint64_t>() >= 0xffffffffu) {
    return make_error(path, Stage::kArchive,
                      "recorded owner (original_uid/original_gid) is incomplete or out of range");
  }
  m.has_owner = true;
  m.original_uid = static_cast<uint32_t>(u.get<uint64_t>());
  m.original_gid = static_cast<uint32_t>(g.get<uint64_t>());
  return ok_status();
}

}  // namespace

Result<Meta> decode_meta(std::string_view text, const std::string& path) {
  MSIT_ASSIGN_OR_RETURN(nlohmann::json j, parse_bounded(text, path));
  if (!j.is_object()) return make_error(path, Stage::kArchive, "metadata is not a JSON object");
  // Typed access: a float where an integer belongs is corrupt metadata, not a value to convert.
  auto u64 = [](const nlohmann::json& v) -> std::optional<uint64_t> {
    if (!v.is_number_unsigned()) return std::nullopt;
    return v.get<uint64_t>();
  };
  Meta m;
  try {
    if (!j.at("codec").is_string() || j.at("codec").get<std::string>() != "zstd" || !j.at("shuffle").is_string() ||
        j.at("shuffle").get<std::string>() != "byte") {
      return make_error(path, Stage::kArchive, "unknown codec or shuffle in metadata");
    }
    const auto size = u64(j.at("original_size"));
    const auto mode = u64(j.at("original_mode"));
    const auto bb = u64(j.at("block_bytes"));
    const auto& mtime = j.at("original_mtime_ns");
    const auto& level = j.at("level");
    if (!size || !mode || *mode > 07777 || !bb || !mtime.is_number_integer() || !level.is_number_integer() ||
        !j.at("original_name").is_string() || !j.at("segments").is_array()) {
      return make_error(path, Stage::kArchive, "metadata fields missing or of the wrong type");
    }
    if (*bb < kMinBlockBytes || *bb > kMaxBlockBytes || *bb % 8 != 0) {
      return make_error(path, Stage::kArchive, "block size " + std::to_string(*bb) + " is out of range");
    }
    m.original_name = j.at("original_name").get<std::string>();
    if (!valid_name(m.original_name)) {
      return make_error(path, Stage::kArchive, "recorded original name is empty, too long or holds '/' or NUL");
    }
    if (j.at("segments").size() > kMaxSegments) {
      return make_error(path, Stage::kArchive,
                        std::to_string(j.at("segments").size()) + " segments exceed the limit of " +
                            std::to_string(kMaxSegments) + " (crafted or corrupt archive)");
    }
    MSIT_TRY(decode_owner(j, m, path));
    m.segments.reserve(j.at("segments").size());
    m.original_size = *size;
    m.original_mtime_ns = mtime.get<int64_t>();
    m.original_mode = static_cast<uint32_t>(*mode);
    m.level = static_cast<int>(std::clamp<int64_t>(level.get<int64_t>(), -1000, 1000));
    m.block_bytes = static_cast<uint32_t>(*bb);
    for (const auto& s : j.at("segments")) {
      if (!s.is_array() || s.size() != 3) return make_error(path, Stage::kArchive, "malformed segment in metadata");
      const auto off = u64(s[0]), len = u64(s[1]), elem = u64(s[2]);
      if (!off || !len || !elem || !valid_elem(*elem))
        return make_error(path, Stage::kArchive, "malformed segment in metadata");
      m.segments.push_back({*off, *len, static_cast<uint32_t>(*elem)});
    }
  } catch (const nlohmann::json::exception& e) {
    return make_error(path, Stage::kArchive, std::string("malformed metadata: ") + e.what());
  }
  MSIT_TRY(check_segments(m, path));
  return m;
}

Result<Trailer> decode_trailer(std::span<const std::byte> b, const std::string& path) {
  if (b.size() != kTrailerBytes || std::memcmp(b.data() + 32, kEndMagic.data(), kEndMagic.size()) != 0) {
    return make_error(path, Stage::kArchive, "trailer missing (archive truncated or not finished)");
  }
  Trailer t;
  t.index_offset = get_le(b, 0, 8);
  t.block_count = get_le(b, 8, 8);
  t.original_xxh3 = get_le(b, 16, 8);
  t.check_xxh3 = get_le(b, 24, 8);
  return t;
}

Status decode_index(std::span<const std::byte> b, std::vector<Block>& blocks, uint64_t data_begin, uint64_t data_end,
                    const std::string& path) {
  if (b.size() != blocks.size() * kIndexEntryBytes) {
    return make_error(path, Stage::kArchive,
                      "index holds " + std::to_string(b.size() / kIndexEntryBytes) + " blocks, the metadata implies " +
                          std::to_string(blocks.size()));
  }
  uint64_t pos = data_begin;
  for (size_t i = 0; i < blocks.size(); ++i) {
    const size_t o = i * kIndexEntryBytes;
    const uint64_t off = get_le(b, o, 8);
    const uint64_t len = get_le(b, o + 8, 4);
    const uint64_t raw = get_le(b, o + 12, 4);
    if (off != pos || len == 0 || len > data_end - pos || raw != blocks[i].raw_bytes) {
      return make_error(path, Stage::kArchive,
                        "index entry " + std::to_string(i) + " is inconsistent (frame at " + std::to_string(off) +
                            " of " + std::to_string(len) + " bytes)");
    }
    blocks[i].frame_offset = off;
    blocks[i].frame_bytes = static_cast<uint32_t>(len);
    pos += len;
  }
  if (pos != data_end) return make_error(path, Stage::kArchive, "frames do not end where the index begins");
  return ok_status();
}

}  // namespace msit::archive
