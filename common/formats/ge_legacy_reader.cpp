// Pre-2.0 GE dumps: the whole file is one DumpData whose `data` fields hold the payloads.
// Walks the protobuf wire format in bounded windows and records where each payload lies,
// so that multi-GB files are never loaded; the small metadata fields go to libprotobuf.
#include <algorithm>

#include "common/formats/dump_reader.h"
#include "common/formats/ge_reader_internal.h"

namespace msit::ge_internal {
namespace {

constexpr size_t kWindow = 64 * 1024;
constexpr int kMaxGroupDepth = 32;
constexpr size_t kMaxTensors = kMaxTensorsPerFile;

// Sequential reader over [0, end) of a ByteSource with a small read-ahead window.
class WireCursor {
 public:
  WireCursor(ByteSource& src, uint64_t end, const std::string& path) : src_(src), end_(end), path_(path) {}

  uint64_t pos() const { return pos_; }
  uint64_t remaining() const { return end_ - pos_; }

  Status byte(uint8_t& out) {
    if (pos_ >= end_) return fail("unexpected end of data");
    if (pos_ < win_start_ || pos_ >= win_start_ + win_.size()) {
      size_t n = static_cast<size_t>(std::min<uint64_t>(kWindow, end_ - pos_));
      win_.resize(n);
      MSIT_TRY(src_.read_at(pos_, win_, Stage::kHeader));
      win_start_ = pos_;
    }
    out = std::to_integer<uint8_t>(win_[static_cast<size_t>(pos_ - win_start_)]);
    ++pos_;
    return ok_status();
  }

  Status varint(uint64_t& out) {
    out = 0;
    for (int i = 0; i < 10; ++i) {
      uint8_t b = 0;
      MSIT_TRY(byte(b));
      out |= uint64_t{b & 0x7Fu} << (7 * i);
      if ((b & 0x80) == 0) return ok_status();
    }
    return fail("varint longer than 10 bytes");
  }

  Status skip(uint64_t n) {
    if (n > remaining()) return fail("field of " + std::to_string(n) + " bytes runs past the end");
    pos_ += n;
    return ok_status();
  }

  // Appends [from, pos()) to out; the range was already walked, so it is in bounds.
  Status copy_range(uint64_t from, std::string& out) {
    size_t n = static_cast<size_t>(pos_ - from);
    size_t old = out.size();
    out.resize(old + n);
    return src_.read_at(from, std::as_writable_bytes(std::span<char>(out.data() + old, n)), Stage::kHeader);
  }

  Status skip_field(uint64_t key, int depth = 0) {
    uint64_t v = 0;
    switch (key & 7) {
      case 0: return varint(v);
      case 1: return skip(8);
      case 2: MSIT_TRY(varint(v)); return skip(v);
      case 5: return skip(4);
      case 3: {
        if (depth >= kMaxGroupDepth) return fail("groups nested too deeply");
        for (;;) {
          uint64_t k = 0;
          MSIT_TRY(varint(k));
          if ((k >> 3) == 0) return fail("field number 0");
          if ((k & 7) == 4) {
            if ((k >> 3) != (key >> 3)) return fail("mismatched end-group");
            return ok_status();
          }
          MSIT_TRY(skip_field(k, depth + 1));
        }
      }
      default: return fail("invalid wire type " + std::to_string(key & 7));
    }
  }

  Error fail(const std::string& what) const {
    return make_error(path_, Stage::kHeader, what + " at byte " + std::to_string(pos_));
  }

 private:
  ByteSource& src_;
  uint64_t end_;
  const std::string& path_;
  uint64_t pos_ = 0;
  uint64_t win_start_ = 0;
  std::vector<std::byte> win_;
};

struct Embedded {
  int field = 0;         // DumpData field number (3 output, 4 input, 5 buffer, 7, 8 space)
  std::string metadata;  // the message's fields except its payload, re-serialised
  uint64_t data_offset = 0;
  uint64_t data_size = 0;
};

int data_field_of(int dump_field) { return dump_field == 3 ? 5 : dump_field == 4 ? 4 : 2; }

// Walks one embedded tensor message of `len` bytes, splitting payload from metadata.
Status walk_embedded(WireCursor& c, int field, uint64_t len, uint64_t& meta_budget, Embedded& e) {
  e.field = field;
  uint64_t end = c.pos() + len;
  while (c.pos() < end) {
    uint64_t start = c.pos();
    uint64_t key = 0;
    MSIT_TRY(c.varint(key));
    if ((key >> 3) == static_cast<uint64_t>(data_field_of(field)) && (key & 7) == 2) {
      uint64_t n = 0;
      MSIT_TRY(c.varint(n));
      e.data_offset = c.pos();
      e.data_size = n;
      MSIT_TRY(c.skip(n));
    } else {
      MSIT_TRY(c.skip_field(key));
      if (c.pos() - start > meta_budget) return c.fail("tensor metadata too large");
      meta_budget -= c.pos() - start;
      MSIT_TRY(c.copy_range(start, e.metadata));
    }
    if (c.pos() > end) return c.fail("field runs past the end of its tensor message");
  }
  if (e.data_size == 0) e.data_offset = 0;
  return ok_status();
}

struct Walked {
  dumpdata::DumpData top;  // scalars and re-serialised metadata of field 7 entries
  std::vector<Embedded> tensors;
};

Status walk_top(WireCursor& c, Walked& w) {
  uint64_t meta_budget = kMaxGeHeaderBytes;
  std::string scalars;
  while (c.remaining() > 0) {
    uint64_t start = c.pos();
    uint64_t key = 0;
    MSIT_TRY(c.varint(key));
    uint64_t field = key >> 3;
    if (field == 0) return c.fail("field number 0");
    bool is_tensor = field == 3 || field == 4 || field == 5 || field == 7 || field == 8;
    if (is_tensor && (key & 7) == 2) {
      if (w.tensors.size() >= kMaxTensors) return c.fail("too many tensors");
      uint64_t len = 0;
      MSIT_TRY(c.varint(len));
      if (len > c.remaining()) return c.fail("tensor message runs past the end of the file");
      Embedded e;
      MSIT_TRY(walk_embedded(c, static_cast<int>(field), len, meta_budget, e));
      w.tensors.push_back(std::move(e));
      continue;
    }
    MSIT_TRY(c.skip_field(key));
    if (c.pos() - start > meta_budget) return c.fail("header fields too large");
    meta_budget -= c.pos() - start;
    if (field <= 9) MSIT_TRY(c.copy_range(start, scalars));  // unknown fields: skipped
  }
  if (!w.top.ParseFromString(scalars)) return c.fail("header fields do not parse as DumpData");
  return ok_status();
}

// Parses one embedded message's metadata into the matching message type.
template <class Msg>
Status parse_meta(const Embedded& e, Msg& m, WireCursor& c) {
  if (!m.ParseFromString(e.metadata)) return c.fail("a tensor message does not parse");
  return ok_status();
}

Result<RawDumpFile> build(Walked& w, WireCursor& c, uint64_t file_size, const std::string& path) {
  RawDumpFile f;
  f.path = path;
  f.legacy_whole_protobuf = true;
  f.declared_size = file_size;
  f.version = w.top.version();
  f.dump_op_name = w.top.op_name();
  f.dump_time = w.top.dump_time();
  // Field 7 entries decide between attr (newest) and workspace (oldest schema).
  dumpdata::DumpData shape_probe;
  bool has_space = false;
  for (const Embedded& e : w.tensors) {
    has_space = has_space || e.field == 8;
    if (e.field == 7) MSIT_TRY(parse_meta(e, *shape_probe.add_attr(), c));
  }
  if (has_space) shape_probe.add_space();
  bool legacy_spaces = attrs_are_legacy_spaces(shape_probe);
  uint32_t counts[9] = {};
  std::vector<TensorDesc> by_role[4];
  for (const Embedded& e : w.tensors) {
    uint32_t idx = counts[e.field]++;
    TensorDesc t;
    if (e.field == 4) {
      dumpdata::OpInput m;
      MSIT_TRY(parse_meta(e, m, c));
      t = desc_from_input(m, idx);
    } else if (e.field == 3) {
      dumpdata::OpOutput m;
      MSIT_TRY(parse_meta(e, m, c));
      t = desc_from_output(m, idx);
    } else if (e.field == 5) {
      t = desc_raw_block(Role::kBuffer, idx, e.data_size);
    } else if (e.field == 8 || (e.field == 7 && legacy_spaces)) {
      t = desc_raw_block(Role::kWorkspace, idx, e.data_size);
    } else {
      continue;  // an OpAttr
    }
    t.payload_offset = e.data_offset;
    t.payload_size = e.data_size;
    by_role[static_cast<size_t>(t.role)].push_back(std::move(t));
  }
  for (auto& v : by_role)
    for (auto& t : v) f.tensors.push_back(std::move(t));
  if (by_role[0].empty() && by_role[1].empty()) {
    return c.fail("parses as protobuf but holds no input or output tensor");
  }
  f.warnings.push_back("legacy whole-file protobuf dump (pre-2.0 layout)");
  return f;
}

}  // namespace

Result<RawDumpFile> parse_legacy_whole_protobuf(ByteSource& src, uint64_t file_size, const std::string& path) {
  // Cheap precheck: a DumpData starts with the key of one of its fields 1-9.
  std::byte first{};
  MSIT_TRY(src.read_at(0, std::span<std::byte>(&first, 1), Stage::kHeader));
  uint8_t key = std::to_integer<uint8_t>(first);
  if (key >> 3 < 1 || key >> 3 > 9 || (key & 7) != ((key >> 3) == 2 ? 0 : 2)) {
    return make_error(path, Stage::kHeader, "first byte is not a DumpData field key");
  }
  WireCursor c(src, file_size, path);
  Walked w;
  MSIT_TRY(walk_top(c, w));
  return build(w, c, file_size, path);
}

}  // namespace msit::ge_internal
