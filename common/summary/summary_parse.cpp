// Reading summary JSON: every key summary.md requires must be there with the right type;
// unknown keys are ignored so newer writers stay readable. A small strict JSON parser of our
// own (flat DOM, std::from_chars numbers) because compare reads 100,000s of these.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <deque>
#include <limits>

#include "common/base/unique_fd.h"
#include "common/io/file.h"
#include "common/summary/summary.h"

namespace msit {
namespace {

// Summaries are small (a sketch is 128 doubles); anything far larger is not ours.
constexpr size_t kMaxSummaryBytes = 64u << 20;
constexpr int kMaxDepth = 64;  // ours nest 4 deep; bounds recursion on hostile input

// ---- JSON: a flat DOM over the input text ----------------------------------------------------

enum class JType : uint8_t { kNull, kBool, kNumber, kString, kArray, kObject };

struct JNode {
  JType type = JType::kNull;
  bool boolean = false;
  bool is_uint = false;  // non-negative integer literal that fits uint64 (nlohmann: unsigned)
  bool is_int = false;   // negative integer literal that fits int64 (nlohmann: integer)
  uint64_t u = 0;
  int64_t i = 0;
  double num = 0;
  std::string_view text;  // string value (unescaped), or a number's literal text
  std::string_view key;   // member name inside an object
  uint32_t first = 0, count = 0;  // children: kids[first, first + count)
};

// Reused per thread: parsing a summary then allocates almost nothing.
struct Dom {
  std::vector<JNode> nodes;
  std::vector<uint32_t> kids, scratch;
  std::deque<std::string> owned;  // unescaped strings (stable addresses)
  void clear() {
    nodes.clear();
    kids.clear();
    scratch.clear();
    owned.clear();
  }
  const JNode& kid(const JNode& n, uint32_t k) const { return nodes[kids[n.first + k]]; }
};

class Parser {
 public:
  Parser(std::string_view s, Dom& d) : s_(s), d_(d) {}

  // Index of the root node, or false for anything that is not exactly one JSON value.
  bool parse(uint32_t& root) {
    skip_ws();
    if (!value(root, 0)) return false;
    skip_ws();
    return p_ == s_.size();
  }

 private:
  void skip_ws() {
    while (p_ < s_.size() && (s_[p_] == ' ' || s_[p_] == '\n' || s_[p_] == '\r' || s_[p_] == '\t')) ++p_;
  }
  bool eat(char c) {
    if (p_ < s_.size() && s_[p_] == c) { ++p_; return true; }
    return false;
  }
  bool literal(std::string_view w) {
    if (s_.substr(p_, w.size()) != w) return false;
    p_ += w.size();
    return true;
  }

  bool value(uint32_t& out, int depth) {
    if (p_ >= s_.size() || depth > kMaxDepth) return false;
    out = static_cast<uint32_t>(d_.nodes.size());
    d_.nodes.emplace_back();
    char c = s_[p_];
    if (c == '{' || c == '[') return container(out, depth, c == '{');
    if (c == '"') {
      std::string_view sv;
      if (!string(sv)) return false;
      d_.nodes[out].type = JType::kString;
      d_.nodes[out].text = sv;
      return true;
    }
    if (c == 't' || c == 'f') {
      d_.nodes[out].type = JType::kBool;
      d_.nodes[out].boolean = c == 't';
      return literal(c == 't' ? "true" : "false");
    }
    if (c == 'n') return literal("null");
    return number(d_.nodes[out]);
  }

  bool container(uint32_t self, int depth, bool object) {
    ++p_;
    const size_t base = d_.scratch.size();
    skip_ws();
    if (!eat(object ? '}' : ']')) {
      do {
        skip_ws();
        std::string_view key;
        if (object) {
          if (p_ >= s_.size() || s_[p_] != '"' || !string(key)) return false;
          skip_ws();
          if (!eat(':')) return false;
          skip_ws();
        }
        uint32_t child = 0;
        if (!value(child, depth + 1)) return false;
        d_.nodes[child].key = key;
        d_.scratch.push_back(child);
        skip_ws();
      } while (eat(','));
      if (!eat(object ? '}' : ']')) return false;
    }
    JNode& n = d_.nodes[self];
    n.type = object ? JType::kObject : JType::kArray;
    n.first = static_cast<uint32_t>(d_.kids.size());
    n.count = static_cast<uint32_t>(d_.scratch.size() - base);
    d_.kids.insert(d_.kids.end(), d_.scratch.begin() + static_cast<ptrdiff_t>(base), d_.scratch.end());
    d_.scratch.resize(base);
    return true;
  }

  static int hex(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  }
  bool hex4(uint32_t& v) {
    if (s_.size() - p_ < 4) return false;
    v = 0;
    for (int k = 0; k < 4; ++k) {
      int h = hex(s_[p_++]);
      if (h < 0) return false;
      v = v << 4 | static_cast<uint32_t>(h);
    }
    return true;
  }
  static void put_utf8(std::string& o, uint32_t cp) {
    if (cp < 0x80) {
      o.push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
      o.push_back(static_cast<char>(0xC0 | cp >> 6));
      o.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
      o.push_back(static_cast<char>(0xE0 | cp >> 12));
      o.push_back(static_cast<char>(0x80 | (cp >> 6 & 0x3F)));
      o.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
      o.push_back(static_cast<char>(0xF0 | cp >> 18));
      o.push_back(static_cast<char>(0x80 | (cp >> 12 & 0x3F)));
      o.push_back(static_cast<char>(0x80 | (cp >> 6 & 0x3F)));
      o.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
  }

  // At the opening quote. Strings without escapes stay views into the input.
  bool string(std::string_view& out) {
    const size_t start = ++p_;
    while (p_ < s_.size() && s_[p_] != '"' && s_[p_] != '\\') {
      if (static_cast<unsigned char>(s_[p_]) < 0x20) return false;
      ++p_;
    }
    if (p_ >= s_.size()) return false;
    if (s_[p_] == '"') {
      out = s_.substr(start, p_++ - start);
      return true;
    }
    std::string& o = d_.owned.emplace_back(s_.substr(start, p_ - start));
    while (p_ < s_.size()) {
      char c = s_[p_++];
      if (c == '"') {
        out = o;
        return true;
      }
      if (static_cast<unsigned char>(c) < 0x20) return false;
      if (c != '\\') {
        o.push_back(c);
        continue;
      }
      if (p_ >= s_.size()) return false;
      switch (char e = s_[p_++]) {
        case '"': case '\\': case '/': o.push_back(e); break;
        case 'b': o.push_back('\b'); break;
        case 'f': o.push_back('\f'); break;
        case 'n': o.push_back('\n'); break;
        case 'r': o.push_back('\r'); break;
        case 't': o.push_back('\t'); break;
        case 'u': {
          uint32_t cp = 0;
          if (!hex4(cp)) return false;
          if (cp >= 0xD800 && cp <= 0xDBFF) {  // a surrogate pair must follow
            uint32_t lo = 0;
            if (!literal("\\u") || !hex4(lo) || lo < 0xDC00 || lo > 0xDFFF) return false;
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
            return false;
          }
          put_utf8(o, cp);
          break;
        }
        default: return false;
      }
    }
    return false;
  }

  size_t digits() {
    size_t n = 0;
    while (p_ < s_.size() && s_[p_] >= '0' && s_[p_] <= '9') ++p_, ++n;
    return n;
  }

  // JSON number grammar, then std::from_chars; strtod only for out-of-range literals, so that
  // 1e-400 reads as strtod / nlohmann read it, and 1e400 is rejected as nlohmann rejects it.
  bool number(JNode& n) {
    const size_t start = p_;
    bool neg = eat('-');
    const size_t int_start = p_;
    size_t nd = digits();
    if (nd == 0 || (nd > 1 && s_[int_start] == '0')) return false;
    bool integral = true;
    if (eat('.')) {
      integral = false;
      if (digits() == 0) return false;
    }
    if (eat('e') || eat('E')) {
      integral = false;
      if (!eat('+')) eat('-');
      if (digits() == 0) return false;
    }
    n.type = JType::kNumber;
    n.text = s_.substr(start, p_ - start);
    const char* b = s_.data() + start;
    const char* e = s_.data() + p_;
    if (integral) {
      uint64_t mag = 0;
      auto r = std::from_chars(s_.data() + int_start, e, mag);
      if (r.ec == std::errc() && !neg) {
        n.is_uint = true;
        n.u = mag;
        n.num = static_cast<double>(mag);
        return true;
      }
      if (r.ec == std::errc() && mag <= uint64_t{1} << 63) {
        n.is_int = true;
        n.i = mag == uint64_t{1} << 63 ? std::numeric_limits<int64_t>::min() : -static_cast<int64_t>(mag);
        n.num = static_cast<double>(n.i);
        return true;
      }
    }
    auto r = std::from_chars(b, e, n.num);
    if (r.ec == std::errc::result_out_of_range) {
      n.num = std::strtod(std::string(n.text).c_str(), nullptr);
      return std::isfinite(n.num);  // nlohmann rejects overflow too; underflow reads as strtod's
    } else if (r.ec != std::errc() || r.ptr != e) {
      return false;
    }
    return true;
  }

  std::string_view s_;
  Dom& d_;
  size_t p_ = 0;
};

// ---- Summary model from the DOM --------------------------------------------------------------

struct Ctx {
  const std::string& path;
  const Dom& dom;
  Error fail(const std::string& what) const { return make_error(path, "summary", what); }
  Error wrong_type(std::string_view key) const {
    return fail("malformed summary: key \"" + std::string(key) + "\" has the wrong type");
  }
  // Last member named key (JSON parsers keep the last duplicate), or nullptr.
  const JNode* find(const JNode& obj, std::string_view key) const {
    for (uint32_t k = obj.count; k-- > 0;) {
      const JNode& v = dom.kid(obj, k);
      if (v.key == key) return &v;
    }
    return nullptr;
  }
  Result<const JNode*> member(const JNode& obj, std::string_view key) const {
    const JNode* v = find(obj, key);
    if (!v) return fail("missing key \"" + std::string(key) + "\"");
    return v;
  }
};

Result<uint64_t> as_u64(const JNode& v, std::string_view key, const Ctx& c) {
  if (!v.is_uint) return c.wrong_type(key);
  return v.u;
}
Result<uint32_t> as_u32(const JNode& v, std::string_view key, const Ctx& c) {
  if (!v.is_uint || v.u > std::numeric_limits<uint32_t>::max()) return c.wrong_type(key);
  return static_cast<uint32_t>(v.u);
}
Result<int64_t> as_i64(const JNode& v, std::string_view key, const Ctx& c) {
  if (v.is_int) return v.i;
  if (v.is_uint && v.u <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return static_cast<int64_t>(v.u);
  return c.wrong_type(key);
}
Result<std::string> as_string(const JNode& v, std::string_view key, const Ctx& c) {
  if (v.type != JType::kString) return c.wrong_type(key);
  return std::string(v.text);
}
Result<std::vector<uint64_t>> as_dims(const JNode& v, std::string_view key, const Ctx& c) {
  if (v.type != JType::kArray) return c.wrong_type(key);
  std::vector<uint64_t> out(v.count);
  for (uint32_t k = 0; k < v.count; ++k) {
    MSIT_ASSIGN_OR_RETURN(out[k], as_u64(c.dom.kid(v, k), key, c));
  }
  return out;
}

// Required keys.
template <class F>
auto required(const JNode& obj, std::string_view key, const Ctx& c, F as) -> decltype(as(obj, key, c)) {
  MSIT_ASSIGN_OR_RETURN(const JNode* v, c.member(obj, key));
  return as(*v, key, c);
}
// Optional keys: the default when absent, an error when present with the wrong type.
Result<std::string> opt_string(const JNode& obj, std::string_view key, const Ctx& c) {
  if (const JNode* v = c.find(obj, key)) return as_string(*v, key, c);
  return std::string();
}

std::optional<double> opt_number(const JNode& v) {
  if (v.type == JType::kNumber) return v.num;
  return std::nullopt;
}

Result<double> element_value(const JNode& v, const Ctx& c) {
  if (v.type == JType::kNumber) return v.num;
  if (v.type == JType::kString) {
    if (v.text == "nan") return std::numeric_limits<double>::quiet_NaN();
    if (v.text == "inf") return std::numeric_limits<double>::infinity();
    if (v.text == "-inf") return -std::numeric_limits<double>::infinity();
  }
  std::string shown = v.type == JType::kString ? "\"" + std::string(v.text.substr(0, 40)) + "\"" : "a non-number";
  return c.fail("bad element in \"values\": " + shown);
}

Status read_extreme(const JNode& t, const char* key, bool is_min, TensorStats& s, const Ctx& c) {
  MSIT_ASSIGN_OR_RETURN(const JNode* v, c.member(t, key));
  if (v->is_uint) {
    (is_min ? s.min_u64 : s.max_u64) = v->u;
    (is_min ? s.min : s.max) = static_cast<double>(v->u);
  } else if (v->is_int) {
    (is_min ? s.min_i64 : s.max_i64) = v->i;
    (is_min ? s.min : s.max) = static_cast<double>(v->i);
  } else if (v->type == JType::kNumber) {
    (is_min ? s.min : s.max) = v->num;
  } else if (v->type != JType::kNull) {
    return c.fail(std::string("\"") + key + "\" must be a number or null");
  }
  return ok_status();
}

Result<Sketch> sketch_from(const JNode& j, const Ctx& c) {
  const JNode* kind = j.type == JType::kObject ? c.find(j, "kind") : nullptr;
  if (!kind || kind->type != JType::kString || kind->text != "countsketch-rot-v1")
    return c.fail("unknown sketch kind (expected countsketch-rot-v1)");
  Sketch sk;
  if (const JNode* w = c.find(j, "width")) { MSIT_ASSIGN_OR_RETURN(sk.width, as_u32(*w, "width", c)); }
  MSIT_ASSIGN_OR_RETURN(std::string seed, opt_string(j, "seed", c));
  auto [end, ec] = std::from_chars(seed.data(), seed.data() + seed.size(), sk.seed, 16);
  if (seed.size() != 16 || ec != std::errc() || end != seed.data() + seed.size())
    return c.fail("sketch seed must be 16 hex digits");
  const JNode* vals = c.find(j, "values");
  uint32_t n = vals && vals->type == JType::kArray ? vals->count : 0;
  if ((vals && vals->type != JType::kArray) || n != sk.width || sk.width == 0 || (sk.width & (sk.width - 1)))
    return c.fail("sketch width and values disagree or width is not a power of two");
  sk.values.resize(n);
  for (uint32_t k = 0; k < n; ++k) {
    const JNode& v = c.dom.kid(*vals, k);
    if (v.type != JType::kNumber) return c.fail("sketch values must be numbers");
    sk.values[k] = v.num;
  }
  return sk;
}

Status read_stats(const JNode& t, TensorStats& s, const Ctx& c) {
  MSIT_TRY(read_extreme(t, "min", true, s, c));
  MSIT_TRY(read_extreme(t, "max", false, s, c));
  MSIT_ASSIGN_OR_RETURN(const JNode* mean, c.member(t, "mean"));
  MSIT_ASSIGN_OR_RETURN(const JNode* std_v, c.member(t, "std"));
  MSIT_ASSIGN_OR_RETURN(const JNode* abs_max, c.member(t, "abs_max"));
  s.mean = opt_number(*mean);
  s.std = opt_number(*std_v);
  s.abs_max = opt_number(*abs_max);
  MSIT_ASSIGN_OR_RETURN(const JNode* l2, c.member(t, "l2norm"));
  if (l2->type != JType::kNumber) return c.wrong_type("l2norm");
  s.l2norm = l2->num;
  MSIT_ASSIGN_OR_RETURN(s.nan_count, required(t, "nan_count", c, as_u64));
  MSIT_ASSIGN_OR_RETURN(s.posinf_count, required(t, "posinf_count", c, as_u64));
  MSIT_ASSIGN_OR_RETURN(s.neginf_count, required(t, "neginf_count", c, as_u64));
  MSIT_ASSIGN_OR_RETURN(s.zero_count, required(t, "zero_count", c, as_u64));
  if (const JNode* v = c.find(t, "values")) {
    if (v->type != JType::kArray) return c.fail("\"values\" must be an array");
    std::vector<double> vals(v->count);
    for (uint32_t k = 0; k < v->count; ++k) {
      MSIT_ASSIGN_OR_RETURN(vals[k], element_value(c.dom.kid(*v, k), c));
    }
    s.values = std::move(vals);
  }
  if (const JNode* sk = c.find(t, "sketch")) {
    MSIT_ASSIGN_OR_RETURN(s.sketch, sketch_from(*sk, c));
  }
  return ok_status();
}

Result<TensorSummary> tensor_from(const JNode& t, const Ctx& c) {
  if (t.type != JType::kObject) return c.fail("tensor entry is not an object");
  TensorSummary ts;
  MSIT_ASSIGN_OR_RETURN(ts.role, required(t, "role", c, as_string));
  MSIT_ASSIGN_OR_RETURN(ts.index, required(t, "index", c, as_u32));
  if (const JNode* v = c.find(t, "sub_index")) { MSIT_ASSIGN_OR_RETURN(ts.sub_index, as_u32(*v, "sub_index", c)); }
  MSIT_ASSIGN_OR_RETURN(ts.dtype, required(t, "dtype", c, as_string));
  MSIT_ASSIGN_OR_RETURN(ts.shape, required(t, "shape", c, as_dims));
  MSIT_ASSIGN_OR_RETURN(ts.format, required(t, "format", c, as_string));
  MSIT_ASSIGN_OR_RETURN(ts.original_shape, required(t, "original_shape", c, as_dims));
  MSIT_ASSIGN_OR_RETURN(ts.count, required(t, "count", c, as_u64));
  MSIT_ASSIGN_OR_RETURN(const JNode* pad, c.member(t, "padding_included"));
  if (pad->type != JType::kBool) return c.wrong_type("padding_included");
  ts.padding_included = pad->boolean;
  MSIT_ASSIGN_OR_RETURN(ts.xxh3_64, required(t, "xxh3_64", c, as_string));
  if (const JNode* v = c.find(t, "stats_available")) {
    if (v->type != JType::kBool) return c.wrong_type("stats_available");
    ts.stats_available = v->boolean;
  }
  MSIT_ASSIGN_OR_RETURN(ts.note, opt_string(t, "note", c));
  MSIT_TRY(read_stats(t, ts.stats, c));
  ts.stats.count = ts.count;
  return ts;
}

Status read_header(const JNode& j, FileSummary& s, const Ctx& c) {
  if (j.type != JType::kObject) return c.fail("not a JSON object");
  const JNode* schema = c.find(j, "schema");
  if (!schema || schema->type != JType::kString || schema->text != kSummarySchema)
    return c.fail("not an msit-compact summary (schema key)");
  MSIT_ASSIGN_OR_RETURN(int64_t version, required(j, "version", c, as_i64));
  if (version != kSummaryVersion) {
    return c.fail("summary version " + std::to_string(version) + " is not supported (this build reads version " +
                  std::to_string(kSummaryVersion) + ")");
  }
  MSIT_ASSIGN_OR_RETURN(const JNode* src, c.member(j, "source"));
  if (src->type != JType::kObject) return c.wrong_type("source");
  MSIT_ASSIGN_OR_RETURN(s.source_name, required(*src, "name", c, as_string));
  MSIT_ASSIGN_OR_RETURN(s.source_kind, required(*src, "kind", c, as_string));
  MSIT_ASSIGN_OR_RETURN(s.source_size, required(*src, "size_bytes", c, as_u64));
  MSIT_ASSIGN_OR_RETURN(s.source_mtime_ns, required(*src, "mtime_ns", c, as_i64));
  if (const JNode* op = c.find(j, "op"); op && op->type == JType::kObject) {
    OpInfo o;
    MSIT_ASSIGN_OR_RETURN(o.type, opt_string(*op, "type", c));
    MSIT_ASSIGN_OR_RETURN(o.name, opt_string(*op, "name", c));
    MSIT_ASSIGN_OR_RETURN(o.task_id, opt_string(*op, "task_id", c));
    MSIT_ASSIGN_OR_RETURN(o.stream_id, opt_string(*op, "stream_id", c));
    MSIT_ASSIGN_OR_RETURN(o.timestamp, opt_string(*op, "timestamp", c));
    MSIT_ASSIGN_OR_RETURN(o.dump_op_name, opt_string(*op, "dump_op_name", c));
    s.op = std::move(o);
  }
  MSIT_ASSIGN_OR_RETURN(s.created_by, opt_string(j, "created_by", c));
  return ok_status();
}

Status read_extra_blocks(const JNode& j, FileSummary& s, const Ctx& c) {
  const JNode* blocks = c.find(j, "extra_blocks");
  if (!blocks || blocks->type != JType::kArray) return ok_status();
  for (uint32_t k = 0; k < blocks->count; ++k) {
    const JNode& b = c.dom.kid(*blocks, k);
    if (b.type != JType::kObject) continue;
    ExtraBlock e;
    MSIT_ASSIGN_OR_RETURN(e.role, opt_string(b, "role", c));
    if (const JNode* v = c.find(b, "index")) { MSIT_ASSIGN_OR_RETURN(e.index, as_u32(*v, "index", c)); }
    if (const JNode* v = c.find(b, "size_bytes")) { MSIT_ASSIGN_OR_RETURN(e.size_bytes, as_u64(*v, "size_bytes", c)); }
    MSIT_ASSIGN_OR_RETURN(e.xxh3_64, opt_string(b, "xxh3_64", c));
    s.extra_blocks.push_back(std::move(e));
  }
  return ok_status();
}

Result<FileSummary> parse_summary(const JNode& j, const Ctx& c) {
  FileSummary s;
  MSIT_TRY(read_header(j, s, c));
  MSIT_ASSIGN_OR_RETURN(const JNode* tensors, c.member(j, "tensors"));
  if (tensors->type != JType::kArray) return c.fail("\"tensors\" must be an array");
  s.tensors.reserve(tensors->count);
  for (uint32_t k = 0; k < tensors->count; ++k) {
    MSIT_ASSIGN_OR_RETURN(TensorSummary ts, tensor_from(c.dom.kid(*tensors, k), c));
    s.tensors.push_back(std::move(ts));
  }
  MSIT_TRY(read_extra_blocks(j, s, c));
  return s;
}

// open + fstat + read + close: the fewest syscalls that still refuse links and non-files.
Status read_into(const std::string& path, std::string& out) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
  if (!fd.valid()) {
    int err = errno;
    if (err == ELOOP) return make_error(path, "open", "is a symbolic link; links are never followed");
    return make_sys_error(path, "open", "cannot open for reading", err);
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return make_sys_error(path, "open", "fstat failed", errno);
  if (!S_ISREG(st.st_mode)) return make_error(path, "open", "not a regular file");
  auto size = static_cast<uint64_t>(st.st_size);
  if (size > kMaxSummaryBytes) {
    return make_error(path, "read", "file is " + std::to_string(size) + " bytes, larger than the " +
                                        std::to_string(kMaxSummaryBytes) + "-byte limit for this kind of file");
  }
  out.resize(size);
  size_t done = 0;
  while (done < size) {  // O_NONBLOCK has no effect on regular files
    ssize_t n = ::read(fd.get(), out.data() + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return make_sys_error(path, "read", "read failed", errno);
    if (n == 0) return make_error(path, "read", "file shrank while being read");
    done += static_cast<size_t>(n);
  }
  return ok_status();
}

}  // namespace

Result<FileSummary> summary_from_json(std::string_view text, const std::string& path) {
  thread_local Dom dom;
  dom.clear();
  Ctx c{path, dom};
  uint32_t root = 0;
  if (!Parser(text, dom).parse(root)) return c.fail("not valid JSON (truncated or corrupt summary)");
  return parse_summary(dom.nodes[root], c);
}

Result<FileSummary> read_summary_file(const std::string& path) {
  thread_local std::string text;  // reused: one allocation per thread, not per file
  MSIT_TRY(read_into(path, text));
  auto s = summary_from_json(text, path);
  if (text.capacity() > (size_t{1} << 20)) std::string().swap(text);  // don't pin a rare big file
  return s;
}

}  // namespace msit
