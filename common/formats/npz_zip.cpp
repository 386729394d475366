// Reading and writing the stored-only ZIP container of .npz files (docs/formats/report.md §8).
#include <zlib.h>

#include <algorithm>
#include <cstdint>

#include "common/formats/npz_internal.h"

namespace msit::npz_internal {
namespace {

constexpr uint32_t kLocalSig = 0x04034b50, kCentralSig = 0x02014b50, kEocdSig = 0x06054b50;
constexpr uint32_t kZip64EocdSig = 0x06064b50, kZip64LocatorSig = 0x07064b50;
constexpr size_t kEocdSize = 22, kCentralSize = 46, kLocalSize = 30;
constexpr uint64_t kMaxMembers = 1 << 16;
constexpr uint16_t kDosDate1980 = 0x21;  // 1980-01-01, Python zipfile's default date_time

uint64_t le(std::span<const std::byte> b, size_t off, size_t n) {
  uint64_t v = 0;
  for (size_t i = 0; i < n; ++i) v |= uint64_t{std::to_integer<uint8_t>(b[off + i])} << (8 * i);
  return v;
}

void put(std::string& out, uint64_t v, size_t n) {
  for (size_t i = 0; i < n; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

Error zip_error(const std::string& path, const std::string& kind, const std::string& what) {
  return make_error(path, Stage::kHeader, kind + ": " + what);
}

struct Directory {
  uint64_t entries = 0, size = 0, offset = 0;
};

// The ZIP64 end record that the locator at `loc` (20 bytes) points to.
Status read_zip64_end(ByteSource& src, std::span<const std::byte> loc, const std::string& kind, Directory& d) {
  const std::string& path = src.path();
  if (le(loc, 0, 4) != kZip64LocatorSig) return zip_error(path, kind, "ZIP64 locator missing");
  const uint64_t at = le(loc, 8, 8);
  std::byte rec[56];
  if (at > src.size() || src.size() - at < sizeof rec)
    return zip_error(path, kind, "ZIP64 end of central directory is corrupt");
  MSIT_TRY(src.read_at(at, rec, Stage::kHeader));
  if (le(rec, 0, 4) != kZip64EocdSig) return zip_error(path, kind, "ZIP64 end of central directory is corrupt");
  d = {le(rec, 32, 8), le(rec, 40, 8), le(rec, 48, 8)};
  return ok_status();
}

Result<Directory> find_directory(ByteSource& src, const std::string& kind) {
  const std::string& path = src.path();
  const uint64_t size = src.size();
  if (size < kEocdSize) return zip_error(path, kind, "too small to be a zip archive");
  // The end record, its comment (<= 64 KiB) and a ZIP64 locator before it.
  const uint64_t tail_len = std::min<uint64_t>(size, kEocdSize + 0xFFFF + 20);
  std::vector<std::byte> tail(static_cast<size_t>(tail_len));
  MSIT_TRY(src.read_at(size - tail_len, tail, Stage::kHeader));
  std::span<const std::byte> z(tail);
  const size_t lowest = z.size() > kEocdSize + 0xFFFF ? z.size() - kEocdSize - 0xFFFF : 0;
  for (size_t pos = z.size() - kEocdSize + 1; pos-- > lowest;) {
    if (le(z, pos, 4) != kEocdSig) continue;
    Directory d{le(z, pos + 10, 2), le(z, pos + 12, 4), le(z, pos + 16, 4)};
    if (d.entries == 0xFFFF || d.size == 0xFFFFFFFF || d.offset == 0xFFFFFFFF) {
      if (pos < 20) return zip_error(path, kind, "ZIP64 locator missing");
      MSIT_TRY(read_zip64_end(src, z.subspan(pos - 20, 20), kind, d));
    }
    if (d.offset > size || d.size > size - d.offset)
      return zip_error(path, kind, "central directory lies outside the file");
    if (d.entries > kMaxMembers) return zip_error(path, kind, "too many members");
    if (d.size > kMaxZipDirectoryBytes) return zip_error(path, kind, "central directory is larger than 16 MiB");
    return d;
  }
  return zip_error(path, kind, "no end-of-central-directory record (not a zip archive, or truncated)");
}

// ZIP64 extra (id 1): 64-bit values for those of the 32-bit fields that are saturated.
void apply_zip64_extra(std::span<const std::byte> extra, uint64_t& usize, uint64_t& csize, uint64_t& offset) {
  size_t p = 0;
  while (p + 4 <= extra.size()) {
    uint64_t id = le(extra, p, 2), n = le(extra, p + 2, 2);
    if (n > extra.size() - p - 4) return;
    if (id == 1) {
      size_t q = p + 4, end = p + 4 + n;
      for (uint64_t* v : {&usize, &csize, &offset}) {
        if (*v != 0xFFFFFFFF) continue;
        if (q + 8 > end) return;
        *v = le(extra, q, 8);
        q += 8;
      }
      return;
    }
    p += 4 + n;
  }
}

Result<ZipEntry> read_entry(ByteSource& src, std::span<const std::byte> cd, size_t& pos, const std::string& kind) {
  const std::string& path = src.path();
  if (cd.size() - pos < kCentralSize || le(cd, pos, 4) != kCentralSig) {
    return zip_error(path, kind, "corrupt central directory entry");
  }
  uint64_t method = le(cd, pos + 10, 2), crc = le(cd, pos + 16, 4);
  uint64_t csize = le(cd, pos + 20, 4), usize = le(cd, pos + 24, 4);
  size_t name_len = le(cd, pos + 28, 2), extra_len = le(cd, pos + 30, 2), comment_len = le(cd, pos + 32, 2);
  uint64_t offset = le(cd, pos + 42, 4);
  if (cd.size() - pos - kCentralSize < name_len + extra_len + comment_len) {
    return zip_error(path, kind, "central directory entry runs past the directory");
  }
  ZipEntry e;
  e.name.assign(reinterpret_cast<const char*>(cd.data() + pos + kCentralSize), name_len);
  e.crc32 = static_cast<uint32_t>(crc);
  apply_zip64_extra(cd.subspan(pos + kCentralSize + name_len, extra_len), usize, csize, offset);
  pos += kCentralSize + name_len + extra_len + comment_len;
  if (method != 0) {
    return zip_error(path, kind,
                     "member '" + e.name + "' is compressed (method " + std::to_string(method) +
                         "): only stored members are supported");
  }
  std::byte local[kLocalSize];
  if (offset > src.size() || src.size() - offset < kLocalSize) {
    return zip_error(path, kind, "local header of member '" + e.name + "' is missing");
  }
  MSIT_TRY(src.read_at(offset, local, Stage::kHeader));
  if (le(local, 0, 4) != kLocalSig) return zip_error(path, kind, "local header of member '" + e.name + "' is missing");
  e.data_offset = offset + kLocalSize + le(local, 26, 2) + le(local, 28, 2);
  e.size = csize;
  if (csize != usize || e.data_offset > src.size() || csize > src.size() - e.data_offset) {
    return zip_error(path, kind, "member '" + e.name + "' runs past the end of the archive");
  }
  return e;
}

}  // namespace

uint32_t zip_crc32(std::span<const std::byte> d) {
  uLong crc = crc32(0L, Z_NULL, 0);
  size_t done = 0;
  while (done < d.size()) {  // zlib takes uInt lengths
    uInt n = static_cast<uInt>(std::min<size_t>(d.size() - done, 1u << 30));
    crc = crc32(crc, reinterpret_cast<const Bytef*>(d.data() + done), n);
    done += n;
  }
  return static_cast<uint32_t>(crc);
}

Result<std::vector<ZipEntry>> read_stored_zip_entries(ByteSource& src, const std::string& kind) {
  MSIT_ASSIGN_OR_RETURN(Directory d, find_directory(src, kind));
  std::vector<std::byte> cd(static_cast<size_t>(d.size));
  MSIT_TRY(src.read_at(d.offset, cd, Stage::kHeader));
  std::vector<ZipEntry> entries;
  size_t pos = 0;
  for (uint64_t i = 0; i < d.entries; ++i) {
    MSIT_ASSIGN_OR_RETURN(ZipEntry e, read_entry(src, cd, pos, kind));
    entries.push_back(std::move(e));
  }
  return entries;
}

Result<std::vector<ZipMember>> read_stored_zip(std::span<const std::byte> zip, const std::string& path) {
  MemorySource src(zip, path);
  MSIT_ASSIGN_OR_RETURN(std::vector<ZipEntry> entries, read_stored_zip_entries(src, "npz"));
  std::vector<ZipMember> members;
  for (ZipEntry& e : entries) {
    ZipMember m{std::move(e.name), zip.subspan(static_cast<size_t>(e.data_offset), static_cast<size_t>(e.size))};
    if (zip_crc32(m.data) != e.crc32) return zip_error(path, "npz", "member '" + m.name + "' fails its CRC-32 check");
    members.push_back(std::move(m));
  }
  return members;
}

std::string write_stored_zip(const std::vector<std::pair<std::string, std::string>>& members) {
  std::string out, central;
  for (const auto& [name, bytes] : members) {
    uint32_t crc = zip_crc32(std::as_bytes(std::span<const char>(bytes)));
    uint64_t offset = out.size();
    put(out, kLocalSig, 4);
    put(out, 20, 2);  // version needed: Python writes 2.0 here even with a ZIP64 extra
    put(out, 0, 2);
    put(out, 0, 2);  // stored
    put(out, 0, 2);
    put(out, kDosDate1980, 2);
    put(out, crc, 4);
    put(out, bytes.size(), 4);
    put(out, bytes.size(), 4);
    put(out, name.size(), 2);
    put(out, 20, 2);  // numpy forces a ZIP64 extra field: id 1, 16 bytes, sizes
    out += name;
    put(out, 1, 2);
    put(out, 16, 2);
    put(out, bytes.size(), 8);
    put(out, bytes.size(), 8);
    out += bytes;

    put(central, kCentralSig, 4);
    put(central, 0x0314, 2);  // made by: Unix, 2.0
    put(central, 20, 2);
    put(central, 0, 2);
    put(central, 0, 2);
    put(central, 0, 2);
    put(central, kDosDate1980, 2);
    put(central, crc, 4);
    put(central, bytes.size(), 4);
    put(central, bytes.size(), 4);
    put(central, name.size(), 2);
    put(central, 0, 2);
    put(central, 0, 2);
    put(central, 0, 2);
    put(central, 0, 2);
    put(central, 0600u << 16, 4);  // rw------- as Python's zipfile sets for written members
    put(central, offset, 4);
    central += name;
  }
  uint64_t cd_offset = out.size();
  out += central;
  put(out, kEocdSig, 4);
  put(out, 0, 2);
  put(out, 0, 2);
  put(out, members.size(), 2);
  put(out, members.size(), 2);
  put(out, central.size(), 4);
  put(out, cd_offset, 4);
  put(out, 0, 2);
  return out;
}

}  // namespace msit::npz_internal
