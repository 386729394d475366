// Byte layout of torch .pth files as msit-dumpgen writes them.
#include "tests/tools/dumpgen/gen_pth.h"

#include <zlib.h>

#include <sstream>
#include <stdexcept>

namespace dumpgen {
namespace {

constexpr uint64_t kU32Max = 0xFFFFFFFFull;

void put(std::string& s, uint64_t v, int n) {
  for (int i = 0; i < n; ++i) s.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

// BINUNICODE + BINPUT, as torch 1.13's pickler emits every string.
void str(std::string& p, const std::string& s, int& memo) {
  p += 'X';
  put(p, s.size(), 4);
  p += s;
  p += 'q';
  p += static_cast<char>(memo++);
}

void int_op(std::string& p, uint64_t v) {
  if (v < 256) {
    p += 'K';
    put(p, v, 1);
  } else if (v < 65536) {
    p += 'M';
    put(p, v, 2);
  } else if (v < 0x80000000ull) {
    p += 'J';
    put(p, v, 4);
  } else {  // LONG1, minimal two's complement length
    int n = 1;
    while (n < 8 && (v >> (8 * n - 1)) != 0) ++n;
    p += '\x8a';
    p += static_cast<char>(n);
    put(p, v, n);
  }
}

void int_tuple(std::string& p, const std::vector<uint64_t>& v, int& memo) {
  if (v.empty()) {
    p += ')';
    return;  // EMPTY_TUPLE is not memoised
  }
  if (v.size() > 3) p += '(';
  for (uint64_t x : v) int_op(p, x);
  p += v.size() > 3 ? 't' : static_cast<char>(0x84 + v.size());
  p += 'q';
  p += static_cast<char>(memo++);
}

struct Member {
  std::string name;
  uint64_t offset = 0, size = 0;
  uint32_t crc = 0;
};

class ZipOut {
 public:
  explicit ZipOut(std::ostream& out) : out_(out) {}

  void begin(const std::string& name, uint64_t size) {
    Member m{name, pos_, size, 0};
    const bool big = size >= kU32Max || pos_ >= kU32Max;
    std::string h;
    put(h, 0x04034b50, 4);
    put(h, big ? 45 : 0, 2);
    put(h, 0x0808, 2);
    put(h, 0, 2);
    put(h, 0, 4);  // time, date
    put(h, 0, 4);  // crc (in the data descriptor)
    put(h, big ? kU32Max : 0, 4);
    put(h, big ? kU32Max : 0, 4);
    std::string extra;
    if (big) {  // ZIP64 extra: sizes (and the offset when it overflows), as miniz writes it
      put(extra, 1, 2);
      put(extra, 16, 2);
      put(extra, size, 8);
      put(extra, size, 8);
    }
    const uint64_t start = pos_ + 30 + name.size() + extra.size() + 4;
    const uint64_t pad = (64 - start % 64) % 64;
    put(extra, 0x4246, 2);  // "FB"
    put(extra, pad, 2);
    extra.append(pad, 'Z');
    put(h, name.size(), 2);
    put(h, extra.size(), 2);
    h += name;
    h += extra;
    write(h);
    members_.push_back(m);
    crc_ = crc32(0L, Z_NULL, 0);
  }
  void data(const char* p, size_t n) {
    crc_ = crc32(crc_, reinterpret_cast<const Bytef*>(p), static_cast<uInt>(n));
    out_.write(p, static_cast<std::streamsize>(n));
    pos_ += n;
  }
  void end() {
    Member& m = members_.back();
    m.crc = static_cast<uint32_t>(crc_);
    std::string d;
    put(d, 0x08074b50, 4);
    put(d, m.crc, 4);
    const int w = m.size >= kU32Max ? 8 : 4;
    put(d, m.size, w);
    put(d, m.size, w);
    write(d);
  }
  void finish() {
    const uint64_t cd_at = pos_;
    std::string cd;
    for (const Member& m : members_) central(cd, m);
    write(cd);
    const uint64_t eocd64_at = pos_;
    std::string e;
    put(e, 0x06064b50, 4);
    put(e, 44, 8);
    put(e, 0x031e, 2);
    put(e, 45, 2);
    put(e, 0, 8);
    put(e, members_.size(), 8);
    put(e, members_.size(), 8);
    put(e, cd.size(), 8);
    put(e, cd_at, 8);
    put(e, 0x07064b50, 4);
    put(e, 0, 4);
    put(e, eocd64_at, 8);
    put(e, 1, 4);
    put(e, 0x06054b50, 4);
    put(e, 0, 4);
    put(e, members_.size(), 2);
    put(e, members_.size(), 2);
    put(e, std::min<uint64_t>(cd.size(), kU32Max), 4);
    put(e, std::min<uint64_t>(cd_at, kU32Max), 4);
    put(e, 0, 2);
    write(e);
  }

 private:
  void central(std::string& cd, const Member& m) {
    const bool big_size = m.size >= kU32Max, big_off = m.offset >= kU32Max;
    std::string extra;
    if (big_size || big_off) {
      put(extra, 1, 2);
      put(extra, (big_size ? 16 : 0) + (big_off ? 8 : 0), 2);
      if (big_size) {
        put(extra, m.size, 8);
        put(extra, m.size, 8);
      }
      if (big_off) put(extra, m.offset, 8);
    }
    put(cd, 0x02014b50, 4);
    put(cd, 0, 2);
    put(cd, extra.empty() ? 0 : 45, 2);
    put(cd, 0x0808, 2);
    put(cd, 0, 2);
    put(cd, 0, 4);
    put(cd, m.crc, 4);
    put(cd, big_size ? kU32Max : m.size, 4);
    put(cd, big_size ? kU32Max : m.size, 4);
    put(cd, m.name.size(), 2);
    put(cd, extra.size(), 2);
    put(cd, 0, 2);
    put(cd, 0, 2);
    put(cd, 0, 2);
    put(cd, 0, 4);
    put(cd, big_off ? kU32Max : m.offset, 4);
    cd += m.name;
    cd += extra;
  }
  void write(const std::string& s) {
    out_.write(s.data(), static_cast<std::streamsize>(s.size()));
    pos_ += s.size();
  }

  std::ostream& out_;
  uint64_t pos_ = 0;
  uLong crc_ = 0;
  std::vector<Member> members_;
};

void write_members(std::ostream& out, const std::string& top, const std::string& pickle, uint64_t data_bytes,
                   const std::function<void(std::ostream&)>& fill) {
  // `fill` writes straight to a stream; a small adaptor feeds the CRC as it goes.
  ZipOut z(out);
  z.begin(top + "/data.pkl", pickle.size());
  z.data(pickle.data(), pickle.size());
  z.end();
  z.begin(top + "/data/0", data_bytes);
  struct CrcBuf : std::streambuf {
    ZipOut& z;
    explicit CrcBuf(ZipOut& zz) : z(zz) {}
    std::streamsize xsputn(const char* p, std::streamsize n) override {
      z.data(p, static_cast<size_t>(n));
      return n;
    }
    int overflow(int c) override {
      char ch = static_cast<char>(c);
      z.data(&ch, 1);
      return c;
    }
  } buf(z);
  std::ostream data_out(&buf);
  fill(data_out);
  z.end();
  z.begin(top + "/version", 2);
  z.data("3\n", 2);
  z.end();
  z.finish();
}

}  // namespace

std::string torch_storage_of(const DTypeSpec& dt) {
  static const std::pair<std::string_view, const char*> kStorage[] = {
      {"float32", "FloatStorage"},  {"float16", "HalfStorage"}, {"bfloat16", "BFloat16Storage"},
      {"float64", "DoubleStorage"}, {"int64", "LongStorage"},   {"int32", "IntStorage"},
      {"int16", "ShortStorage"},    {"int8", "CharStorage"},    {"uint8", "ByteStorage"},
      {"bool", "BoolStorage"}};
  for (auto [n, v] : kStorage) {
    if (n == dt.name) return v;
  }
  throw std::runtime_error("no torch storage class for " + std::string(dt.name));
}

std::string pth_pickle(const std::string& storage_class, const std::vector<uint64_t>& shape,
                       const std::string& location) {
  int memo = 0;
  std::string p =
      "\x80\x02"
      "ctorch._utils\n_rebuild_tensor_v2\n";
  p += 'q';
  p += static_cast<char>(memo++);
  p += "((";
  str(p, "storage", memo);
  p += "ctorch\n" + storage_class + "\n";
  p += 'q';
  p += static_cast<char>(memo++);
  str(p, "0", memo);
  str(p, location, memo);
  uint64_t numel = 1;
  for (uint64_t d : shape) numel *= d;
  int_op(p, numel);
  p += 't';
  p += 'q';
  p += static_cast<char>(memo++);
  p += 'Q';
  int_op(p, 0);  // storage offset
  std::vector<uint64_t> stride(shape.size());
  uint64_t s = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    stride[i] = s;
    s *= shape[i];
  }
  int_tuple(p, shape, memo);
  int_tuple(p, stride, memo);
  p += '\x89';  // requires_grad False
  p += "ccollections\nOrderedDict\n";
  p += 'q';
  p += static_cast<char>(memo++);
  p += ")R";
  p += 'q';
  p += static_cast<char>(memo++);
  p += 't';
  p += 'q';
  p += static_cast<char>(memo++);
  p += 'R';
  p += 'q';
  p += static_cast<char>(memo++);
  p += '.';
  return p;
}

void write_pth(const std::string& path, const std::string& top, const std::string& pickle, uint64_t data_bytes,
               const std::function<void(std::ostream&)>& fill) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) throw std::runtime_error(path + ": cannot create");
  write_members(f, top, pickle, data_bytes, fill);
  f.close();
  if (!f) throw std::runtime_error(path + ": write failed");
}

std::string pth_bytes(const std::string& top, const std::string& pickle, const std::string& data) {
  std::ostringstream out;
  write_members(out, top, pickle, data.size(),
                [&](std::ostream& o) { o.write(data.data(), static_cast<std::streamsize>(data.size())); });
  return out.str();
}

}  // namespace dumpgen
