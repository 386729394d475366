// Parsing the .npy preamble and its header, a Python dict literal, tolerantly but bounded.
#include <cctype>
#include <cstring>
#include <optional>
#include <string_view>

#include "common/formats/npy_internal.h"

namespace msit::npy_internal {
namespace {

constexpr std::string_view kMagic = "\x93NUMPY";
constexpr int kMaxDepth = 8;

// The subset of Python literals that can appear in an npy header.
struct PyValue {
  enum class Kind { kStr, kBool, kNone, kInt, kSeq, kDict } kind = Kind::kNone;
  std::string str;
  bool b = false;
  bool negative = false;
  bool overflow = false;
  uint64_t magnitude = 0;
  std::vector<PyValue> items;
  std::vector<std::string> keys;  // dict: keys[i] maps to items[i]
};

class LiteralParser {
 public:
  explicit LiteralParser(std::string_view s) : s_(s) {}

  std::optional<PyValue> parse_top() {
    auto v = value(0);
    skip_ws();
    if (!v || i_ != s_.size()) return std::nullopt;
    return v;
  }

 private:
  void skip_ws() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\t' || s_[i_] == '\r')) ++i_;
  }
  bool eat(char c) {
    skip_ws();
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }

  std::optional<PyValue> value(int depth) {
    if (depth > kMaxDepth) return std::nullopt;
    skip_ws();
    if (i_ >= s_.size()) return std::nullopt;
    char c = s_[i_];
    if (c == '{') return dict(depth);
    if (c == '(') return seq(depth, ')');
    if (c == '[') return seq(depth, ']');
    if (c == '\'' || c == '"') return string();
    if (c == '-' || (c >= '0' && c <= '9')) return integer();
    return word();
  }

  std::optional<PyValue> string() {
    char q = s_[i_++];
    PyValue v;
    v.kind = PyValue::Kind::kStr;
    while (i_ < s_.size() && s_[i_] != q) {
      if (s_[i_] == '\\' && i_ + 1 < s_.size()) ++i_;  // keep escaped char literally
      v.str.push_back(s_[i_++]);
    }
    if (i_ >= s_.size()) return std::nullopt;
    ++i_;
    return v;
  }

  std::optional<PyValue> integer() {
    PyValue v;
    v.kind = PyValue::Kind::kInt;
    if (s_[i_] == '-') {
      v.negative = true;
      ++i_;
    }
    size_t start = i_;
    while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') {
      uint64_t d = static_cast<uint64_t>(s_[i_] - '0');
      if (v.magnitude > (UINT64_MAX - d) / 10) v.overflow = true;
      else v.magnitude = v.magnitude * 10 + d;
      ++i_;
    }
    if (i_ == start) return std::nullopt;
    if (i_ < s_.size() && (s_[i_] == 'L' || s_[i_] == 'l')) ++i_;  // Python 2 longs
    return v;
  }

  std::optional<PyValue> word() {
    size_t start = i_;
    while (i_ < s_.size() && std::isalpha(static_cast<unsigned char>(s_[i_]))) ++i_;
    std::string_view w = s_.substr(start, i_ - start);
    PyValue v;
    if (w == "True" || w == "False") {
      v.kind = PyValue::Kind::kBool;
      v.b = w == "True";
      return v;
    }
    if (w == "None") return v;
    return std::nullopt;
  }

  std::optional<PyValue> seq(int depth, char close) {
    ++i_;
    PyValue v;
    v.kind = PyValue::Kind::kSeq;
    for (;;) {
      if (eat(close)) return v;
      auto item = value(depth + 1);
      if (!item) return std::nullopt;
      v.items.push_back(std::move(*item));
      if (eat(close)) return v;
      if (!eat(',')) return std::nullopt;
    }
  }

  std::optional<PyValue> dict(int depth) {
    ++i_;
    PyValue v;
    v.kind = PyValue::Kind::kDict;
    for (;;) {
      if (eat('}')) return v;
      auto key = value(depth + 1);
      if (!key || key->kind != PyValue::Kind::kStr || !eat(':')) return std::nullopt;
      auto val = value(depth + 1);
      if (!val) return std::nullopt;
      v.keys.push_back(std::move(key->str));
      v.items.push_back(std::move(*val));
      if (eat('}')) return v;
      if (!eat(',')) return std::nullopt;
    }
  }

  std::string_view s_;
  size_t i_ = 0;
};

uint64_t load_le(const std::byte* p, size_t n) {
  uint64_t v = 0;
  for (size_t i = 0; i < n; ++i) v |= uint64_t{std::to_integer<uint8_t>(p[i])} << (8 * i);
  return v;
}

Error header_error(const std::string& path, const std::string& what) {
  return make_error(path, Stage::kHeader, "npy header: " + what);
}

// Applies the dict's keys (any order, last duplicate wins, unknown keys ignored).
Status apply_dict(const PyValue& dict, NpyHeader& h, const std::string& path) {
  bool have_descr = false, have_fortran = false, have_shape = false;
  for (size_t i = 0; i < dict.keys.size(); ++i) {
    const std::string& key = dict.keys[i];
    const PyValue& v = dict.items[i];
    if (key == "descr") {
      if (v.kind != PyValue::Kind::kStr) {
        return header_error(path, "unsupported dtype: structured descr (record arrays cannot be summarised)");
      }
      h.descr = v.str;
      have_descr = true;
    } else if (key == "fortran_order") {
      if (v.kind != PyValue::Kind::kBool) return header_error(path, "fortran_order is not True/False");
      h.fortran_order = v.b;
      have_fortran = true;
    } else if (key == "shape") {
      if (v.kind != PyValue::Kind::kSeq) return header_error(path, "shape is not a tuple");
      h.shape.clear();
      for (const PyValue& d : v.items) {
        if (d.kind != PyValue::Kind::kInt) return header_error(path, "shape has a non-integer dim");
        if (d.negative && d.magnitude != 0) return header_error(path, "shape has a negative dim");
        if (d.overflow) return header_error(path, "shape has a dim that overflows 64 bits");
        h.shape.push_back(d.magnitude);
      }
      have_shape = true;
    }
  }
  if (!have_descr || !have_fortran || !have_shape) {
    return header_error(path, "dict lacks one of 'descr', 'fortran_order', 'shape'");
  }
  return ok_status();
}

}  // namespace

size_t npy_preamble_size(std::span<const std::byte> first8) {
  if (first8.size() < 8 || std::memcmp(first8.data(), kMagic.data(), kMagic.size()) != 0) return 0;
  return std::to_integer<uint8_t>(first8[6]) == 1 ? 10 : 12;
}

Result<NpyHeader> parse_npy_header(std::span<const std::byte> prefix, const std::string& path) {
  if (prefix.size() < 8 || std::memcmp(prefix.data(), kMagic.data(), kMagic.size()) != 0) {
    return header_error(path, "bad magic (not an .npy file)");
  }
  NpyHeader h;
  h.major_version = std::to_integer<uint8_t>(prefix[6]);
  if (h.major_version < 1 || h.major_version > 3) {
    return header_error(path, "unsupported format version " + std::to_string(h.major_version));
  }
  size_t len_bytes = h.major_version == 1 ? 2 : 4;
  if (prefix.size() < 8 + len_bytes)
    return make_error(path, Stage::kIncomplete, "npy header: file ends in the preamble");
  uint64_t header_len = load_le(prefix.data() + 8, len_bytes);
  if (header_len > kMaxNpyHeaderBytes) {
    return header_error(path, "header length " + std::to_string(header_len) + " exceeds the limit");
  }
  h.data_offset = 8 + len_bytes + header_len;
  if (prefix.size() < h.data_offset) {
    return make_error(path, Stage::kIncomplete,
                      "npy header: file ends inside the " + std::to_string(header_len) + "-byte header");
  }
  std::string_view text(reinterpret_cast<const char*>(prefix.data()) + 8 + len_bytes, static_cast<size_t>(header_len));
  auto dict = LiteralParser(text).parse_top();
  if (!dict || dict->kind != PyValue::Kind::kDict) { return header_error(path, "header is not a Python dict literal"); }
  MSIT_TRY(apply_dict(*dict, h, path));
  return h;
}

}  // namespace msit::npy_internal
