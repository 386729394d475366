// MsprobeItem packed into an arena and unpacked (item_store.h). A record: state, requires_grad,
// dtype and shape (interned), the name (the part after the entry name when it starts with it),
// the md5 (4 bytes when it is a CRC-32's 8 hex digits), the data name (its extension when it is
// the name's file), then the four statistic cells (a number as its 8 bytes).
#include "common/compare_msprobe/item_store.h"

#include <algorithm>
#include <cstring>

namespace msit {
namespace {

constexpr size_t kBlockBytes = size_t{1} << 20;

void put_varint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

void put_text(std::string& out, std::string_view s) {
  put_varint(out, s.size());
  out.append(s);
}

// Reads what put_varint / put_text wrote, advancing `p`.
uint64_t get_varint(const char*& p) {
  uint64_t v = 0;
  for (int shift = 0;; shift += 7) {
    auto b = static_cast<uint8_t>(*p++);
    v |= uint64_t{b & 0x7fu} << shift;
    if (!(b & 0x80)) return v;
  }
}

std::string_view get_text(const char*& p) {
  size_t n = get_varint(p);
  std::string_view s(p, n);
  p += n;
  return s;
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

// A CRC-32 text (8 lowercase hex digits) as its 4 bytes; the common md5 cell.
bool is_crc_text(const std::string& s) {
  return s.size() == 8 && std::all_of(s.begin(), s.end(), [](char c) { return hex_value(c) >= 0; });
}

// Cell tags: the kind, and whether a number was an integer.
enum : uint8_t { kCellNone, kCellText, kCellNumber, kCellInteger };

void put_cell(std::string& out, const MsCell& c) {
  switch (c.kind) {
    case MsCell::Kind::kNone: out.push_back(static_cast<char>(kCellNone)); return;
    case MsCell::Kind::kText:
      out.push_back(static_cast<char>(kCellText));
      put_text(out, c.text);
      return;
    case MsCell::Kind::kNumber: break;
  }
  out.push_back(static_cast<char>(c.is_integer ? kCellInteger : kCellNumber));
  char bytes[sizeof(double)];
  std::memcpy(bytes, &c.number, sizeof bytes);
  out.append(bytes, sizeof bytes);
}

MsCell get_cell(const char*& p) {
  auto tag = static_cast<uint8_t>(*p++);
  if (tag == kCellNone) return MsCell::none();
  if (tag == kCellText) return MsCell::of_text(std::string(get_text(p)));
  double v = 0;
  std::memcpy(&v, p, sizeof v);
  p += sizeof v;
  return MsCell::of(v, tag == kCellInteger);
}

// The data name's forms: none ("-1"), the item's name plus an extension, any other text.
enum : uint8_t { kDataNone, kDataNameExt, kDataText };

void put_data_name(std::string& out, const std::string& data_name, const std::string& name) {
  if (data_name == "-1") {
    out.push_back(static_cast<char>(kDataNone));
  } else if (data_name.size() > name.size() && data_name.compare(0, name.size(), name) == 0) {
    out.push_back(static_cast<char>(kDataNameExt));
    put_text(out, std::string_view(data_name).substr(name.size()));
  } else {
    out.push_back(static_cast<char>(kDataText));
    put_text(out, data_name);
  }
}

std::string get_data_name(const char*& p, const std::string& name) {
  auto tag = static_cast<uint8_t>(*p++);
  if (tag == kDataNone) return "-1";
  if (tag == kDataNameExt) return name + std::string(get_text(p));
  return std::string(get_text(p));
}

// The md5 cell: a CRC-32 text as 4 bytes, anything else as text.
void put_md5(std::string& out, const std::string& md5) {
  if (!is_crc_text(md5)) {
    out.push_back(0);
    put_text(out, md5);
    return;
  }
  out.push_back(1);
  for (size_t k = 0; k < 8; k += 2) out.push_back(static_cast<char>(hex_value(md5[k]) << 4 | hex_value(md5[k + 1])));
}

std::string get_md5(const char*& p) {
  if (*p++ == 0) return std::string(get_text(p));
  static constexpr char kHex[] = "0123456789abcdef";
  std::string s(8, '0');
  for (size_t k = 0; k < 4; ++k) {
    auto b = static_cast<uint8_t>(*p++);
    s[2 * k] = kHex[b >> 4];
    s[2 * k + 1] = kHex[b & 0xf];
  }
  return s;
}

}  // namespace

MsItemStore::Ref MsItemStore::put(std::string_view bytes) {
  if (blocks_.empty() || used_ + bytes.size() > capacity_) {
    capacity_ = std::max(kBlockBytes, bytes.size());
    blocks_.push_back(std::make_unique<char[]>(capacity_));
    used_ = 0;
  }
  Ref r{static_cast<uint32_t>(blocks_.size() - 1), static_cast<uint32_t>(used_)};
  std::memcpy(blocks_.back().get() + used_, bytes.data(), bytes.size());
  used_ += bytes.size();
  return r;
}

uint32_t MsItemStore::intern(std::vector<std::string>& table, std::unordered_map<std::string, uint32_t>& index,
                             const std::string& s) {
  auto [it, fresh] = index.try_emplace(s, static_cast<uint32_t>(table.size()));
  if (fresh) table.push_back(s);
  return it->second;
}

void MsItemStore::add(const MsprobeItem& it) {
  if (entries_.empty() || entries_.back().order != it.order || entry_name(entries_.back()) != it.entry) {
    scratch_.clear();
    put_text(scratch_, it.entry);
    entries_.push_back({static_cast<uint32_t>(items_.size()), put(scratch_), it.order});
  }
  scratch_.clear();
  scratch_.push_back(static_cast<char>(it.state));
  scratch_.push_back(static_cast<char>(it.requires_grad ? 1 + *it.requires_grad : 0));
  put_varint(scratch_, intern(dtypes_, dtype_index_, it.dtype));
  put_varint(scratch_, intern(shapes_, shape_index_, it.shape));
  // Most names are the entry's name and a tail (".input.0"): only the tail is kept then.
  const bool tail = it.name.compare(0, it.entry.size(), it.entry) == 0;
  scratch_.push_back(static_cast<char>(tail));
  put_text(scratch_, tail ? std::string_view(it.name).substr(it.entry.size()) : std::string_view(it.name));
  put_md5(scratch_, it.md5);
  put_data_name(scratch_, it.data_name, it.name);
  for (const MsCell& c : it.stats) put_cell(scratch_, c);
  items_.push_back(put(scratch_));
}

const MsItemStore::Entry& MsItemStore::entry_of(size_t i) const {
  auto next = std::upper_bound(entries_.begin(), entries_.end(), i,
                               [](size_t item, const Entry& e) { return item < e.first_item; });
  return *(next - 1);
}

std::string_view MsItemStore::entry_name(const Entry& e) const {
  const char* p = get(e.name);
  return get_text(p);
}

std::string_view MsItemStore::entry(size_t i) const { return entry_name(entry_of(i)); }

MsprobeItem MsItemStore::at(size_t i) const {
  const Entry& e = entry_of(i);
  MsprobeItem it;
  it.entry = std::string(entry_name(e));
  it.order = e.order;
  const char* p = get(items_[i]);
  it.state = static_cast<MsState>(*p++);
  if (char rg = *p++; rg != 0) it.requires_grad = rg == 2;
  it.dtype = dtypes_[get_varint(p)];
  it.shape = shapes_[get_varint(p)];
  const bool tail = *p++ != 0;
  it.name = tail ? it.entry + std::string(get_text(p)) : std::string(get_text(p));
  it.md5 = get_md5(p);
  it.data_name = get_data_name(p, it.name);
  for (MsCell& c : it.stats) c = get_cell(p);
  return it;
}

}  // namespace msit
