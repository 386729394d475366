// Reading and writing the stored-only ZIP container of .npz files (formats.md 6.8).
#include <zlib.h>

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

uint32_t crc_of(std::span<const std::byte> d) {
  uLong crc = crc32(0L, Z_NULL, 0);
  size_t done = 0;
  while (done < d.size()) {  // zlib takes uInt lengths
    uInt n = static_cast<uInt>(std::min<size_t>(d.size() - done, 1u << 30));
    crc = crc32(crc, reinterpret_cast<const Bytef*>(d.data() + done), n);
    done += n;
  }
  return static_cast<uint32_t>(crc);
}

Error zip_error(const std::string& path, const std::string& what) {
  return make_error(path, "header", "npz: " + what);
}

struct Directory {
  uint64_t entries = 0, size = 0, offset = 0;
};

Result<Directory> find_directory(std::span<const std::byte> z, const std::string& path) {
  if (z.size() < kEocdSize) return zip_error(path, "too small to be a zip archive");
  size_t lowest = z.size() > kEocdSize + 0xFFFF ? z.size() - kEocdSize - 0xFFFF : 0;
  for (size_t pos = z.size() - kEocdSize + 1; pos-- > lowest;) {
    if (le(z, pos, 4) != kEocdSig) continue;
    Directory d{le(z, pos + 10, 2), le(z, pos + 12, 4), le(z, pos + 16, 4)};
    if (d.entries == 0xFFFF || d.size == 0xFFFFFFFF || d.offset == 0xFFFFFFFF) {
      if (pos < 20 || le(z, pos - 20, 4) != kZip64LocatorSig) return zip_error(path, "ZIP64 locator missing");
      uint64_t at = le(z, pos - 20 + 8, 8);
      if (at > z.size() || z.size() - at < 56 || le(z, static_cast<size_t>(at), 4) != kZip64EocdSig) {
        return zip_error(path, "ZIP64 end of central directory is corrupt");
      }
      d = {le(z, static_cast<size_t>(at) + 32, 8), le(z, static_cast<size_t>(at) + 40, 8),
           le(z, static_cast<size_t>(at) + 48, 8)};
    }
    if (d.offset > z.size() || d.size > z.size() - d.offset) {
      return zip_error(path, "central directory lies outside the file");
    }
    if (d.entries > kMaxMembers) return zip_error(path, "too many members");
    return d;
  }
  return zip_error(path, "no end-of-central-directory record (not a zip archive, or truncated)");
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

Result<ZipMember> read_member(std::span<const std::byte> z, std::span<const std::byte> cd, size_t& pos,
                              const std::string& path) {
  if (cd.size() - pos < kCentralSize || le(cd, pos, 4) != kCentralSig) {
    return zip_error(path, "corrupt central directory entry");
  }
  uint64_t method = le(cd, pos + 10, 2), crc = le(cd, pos + 16, 4);
  uint64_t csize = le(cd, pos + 20, 4), usize = le(cd, pos + 24, 4);
  size_t name_len = le(cd, pos + 28, 2), extra_len = le(cd, pos + 30, 2), comment_len = le(cd, pos + 32, 2);
  uint64_t offset = le(cd, pos + 42, 4);
  if (cd.size() - pos - kCentralSize < name_len + extra_len + comment_len) {
    return zip_error(path, "central directory entry runs past the directory");
  }
  ZipMember m;
  m.name.assign(reinterpret_cast<const char*>(cd.data() + pos + kCentralSize), name_len);
  apply_zip64_extra(cd.subspan(pos + kCentralSize + name_len, extra_len), usize, csize, offset);
  pos += kCentralSize + name_len + extra_len + comment_len;
  if (method != 0) {
    return zip_error(path, "member '" + m.name + "' is compressed (method " + std::to_string(method) +
                               "; np.savez_compressed?): only stored members are supported");
  }
  if (offset > z.size() || z.size() - offset < kLocalSize || le(z, static_cast<size_t>(offset), 4) != kLocalSig) {
    return zip_error(path, "local header of member '" + m.name + "' is missing");
  }
  uint64_t data = offset + kLocalSize + le(z, static_cast<size_t>(offset) + 26, 2) + le(z, static_cast<size_t>(offset) + 28, 2);
  if (csize != usize || data > z.size() || csize > z.size() - data) {
    return zip_error(path, "member '" + m.name + "' runs past the end of the archive");
  }
  m.data = z.subspan(static_cast<size_t>(data), static_cast<size_t>(csize));
  if (crc_of(m.data) != crc) return zip_error(path, "member '" + m.name + "' fails its CRC-32 check");
  return m;
}

}  // namespace

Result<std::vector<ZipMember>> read_stored_zip(std::span<const std::byte> zip, const std::string& path) {
  MSIT_ASSIGN_OR_RETURN(Directory d, find_directory(zip, path));
  std::span<const std::byte> cd = zip.subspan(static_cast<size_t>(d.offset), static_cast<size_t>(d.size));
  std::vector<ZipMember> members;
  size_t pos = 0;
  for (uint64_t i = 0; i < d.entries; ++i) {
    MSIT_ASSIGN_OR_RETURN(ZipMember m, read_member(zip, cd, pos, path));
    members.push_back(std::move(m));
  }
  return members;
}

std::string write_stored_zip(const std::vector<std::pair<std::string, std::string>>& members) {
  std::string out, central;
  for (const auto& [name, bytes] : members) {
    uint32_t crc = crc_of(std::as_bytes(std::span<const char>(bytes)));
    uint64_t offset = out.size();
    put(out, kLocalSig, 4);
    put(out, 20, 2);  // version needed: Python writes 2.0 here even with a ZIP64 extra
    put(out, 0, 2);
    put(out, 0, 2);   // stored
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
