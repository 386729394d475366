// The JSON pull tokenizer: RFC 8259 plus NaN / Infinity / -Infinity, which Python's json.dump
// writes by default and msProbe's dump.json carries (docs/formats/msprobe.md §3, §9).
#include "common/formats/json_stream.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

namespace msit {
namespace {

bool word_char(int c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '+' || c == '-' || c == '.';
}

// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
bool json_number_syntax(std::string_view s, bool& integral) {
  size_t i = 0;
  auto digits = [&] {
    const size_t from = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    return i - from;
  };
  if (i < s.size() && s[i] == '-') ++i;
  if (i < s.size() && s[i] == '0') {
    ++i;
  } else if (digits() == 0) {
    return false;
  }
  integral = true;
  if (i < s.size() && s[i] == '.') {
    ++i;
    integral = false;
    if (digits() == 0) return false;
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    integral = false;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    if (digits() == 0) return false;
  }
  return i == s.size();
}

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

}  // namespace

JsonStream::JsonStream(ByteSource& src, JsonLimits limits) : src_(src), limits_(limits) {
  limits_.chunk_bytes = std::max<size_t>(limits_.chunk_bytes, 16);
  buf_.resize(limits_.chunk_bytes);
}

Error JsonStream::syntax(const std::string& what) const {
  return make_error(src_.path(), Stage::kParse, "not JSON at byte " + std::to_string(consumed_) + ": " + what);
}

Error JsonStream::truncated() const {
  return make_error(src_.path(), Stage::kIncomplete,
                    "ends at byte " + std::to_string(src_.size()) +
                        " before its JSON text does (still being written? it is read again when it changes)");
}

Status JsonStream::fill() {
  buf_start_ += len_;
  pos_ = len_ = 0;
  const uint64_t total = src_.size();
  if (buf_start_ >= total) return ok_status();
  const size_t n = static_cast<size_t>(std::min<uint64_t>(buf_.size(), total - buf_start_));
  MSIT_TRY(src_.read_at(buf_start_, std::span<std::byte>(buf_.data(), n), Stage::kRead));
  len_ = n;
  return ok_status();
}

Result<int> JsonStream::peek_byte() {
  if (pos_ == len_) MSIT_TRY(fill());
  if (pos_ == len_) return -1;
  return static_cast<int>(static_cast<unsigned char>(buf_[pos_]));
}

Result<int> JsonStream::take_byte() {
  MSIT_ASSIGN_OR_RETURN(int c, peek_byte());
  if (c >= 0) {
    ++pos_;
    consumed_ = buf_start_ + pos_;
  }
  return c;
}

Status JsonStream::skip_space() {
  for (;;) {
    MSIT_ASSIGN_OR_RETURN(int c, peek_byte());
    if (c != ' ' && c != '\n' && c != '\r' && c != '\t') return ok_status();
    MSIT_TRY(take_byte());
  }
}

void JsonStream::after_value() { expect_ = stack_.empty() ? Expect::kDone : Expect::kCommaOrEnd; }

Status JsonStream::read_escape() {
  MSIT_ASSIGN_OR_RETURN(int e, take_byte());
  switch (e) {
    case -1: return truncated();
    case '"': text_ += '"'; return ok_status();
    case '\\': text_ += '\\'; return ok_status();
    case '/': text_ += '/'; return ok_status();
    case 'b': text_ += '\b'; return ok_status();
    case 'f': text_ += '\f'; return ok_status();
    case 'n': text_ += '\n'; return ok_status();
    case 'r': text_ += '\r'; return ok_status();
    case 't': text_ += '\t'; return ok_status();
    case 'u': break;
    default: return syntax("unknown escape in a string");
  }
  auto hex4 = [&]() -> Result<uint32_t> {
    uint32_t v = 0;
    for (int k = 0; k < 4; ++k) {
      MSIT_ASSIGN_OR_RETURN(int h, take_byte());
      if (h < 0) return truncated();
      const int d = (h >= '0' && h <= '9')   ? h - '0'
                    : (h >= 'a' && h <= 'f') ? h - 'a' + 10
                    : (h >= 'A' && h <= 'F') ? h - 'A' + 10
                                             : -1;
      if (d < 0) return syntax("bad \\u escape");
      v = v * 16 + static_cast<uint32_t>(d);
    }
    return v;
  };
  MSIT_ASSIGN_OR_RETURN(uint32_t cp, hex4());
  if (cp >= 0xD800 && cp < 0xDC00) {  // a high surrogate: its pair follows as \uDC00-\uDFFF
    MSIT_ASSIGN_OR_RETURN(int b1, peek_byte());
    if (b1 == '\\') {
      MSIT_TRY(take_byte());
      MSIT_ASSIGN_OR_RETURN(int b2, take_byte());
      if (b2 < 0) return truncated();
      if (b2 != 'u') return syntax("a high surrogate not followed by \\u");
      MSIT_ASSIGN_OR_RETURN(uint32_t lo, hex4());
      cp = (lo >= 0xDC00 && lo < 0xE000) ? 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00) : 0xFFFD;
    } else {
      cp = 0xFFFD;
    }
  } else if (cp >= 0xDC00 && cp < 0xE000) {
    cp = 0xFFFD;
  }
  append_utf8(text_, cp);
  return ok_status();
}

Status JsonStream::read_string() {
  MSIT_TRY(take_byte());  // the opening quote
  text_.clear();
  for (;;) {
    // Copy the run of plain bytes in the buffer at once.
    size_t run = pos_;
    while (run < len_) {
      const auto b = static_cast<unsigned char>(buf_[run]);
      if (b == '"' || b == '\\' || b < 0x20) break;
      ++run;
    }
    text_.append(reinterpret_cast<const char*>(buf_.data() + pos_), run - pos_);
    pos_ = run;
    consumed_ = buf_start_ + pos_;
    if (text_.size() > limits_.max_string)
      return syntax("a string longer than " + std::to_string(limits_.max_string) + " bytes");
    MSIT_ASSIGN_OR_RETURN(int c, take_byte());
    if (c < 0) return truncated();
    if (c == '"') return ok_status();
    if (c == '\\') {
      MSIT_TRY(read_escape());
    } else if (c < 0x20) {
      return syntax("a control character inside a string");  // json.dump escapes them all
    } else {
      text_ += static_cast<char>(c);  // the run ended at the buffer's end, not at this byte
    }
  }
}

Status JsonStream::read_number_or_word() {
  text_.clear();
  bool at_end = false;
  for (;;) {
    MSIT_ASSIGN_OR_RETURN(int c, peek_byte());
    if (c < 0) {
      at_end = true;
      break;
    }
    if (!word_char(c)) break;
    text_ += static_cast<char>(c);
    MSIT_TRY(take_byte());
    if (text_.size() > 64) return syntax("a number or word longer than 64 characters");
  }
  const std::string_view w = text_;
  is_integer_ = false;
  number_ = 0;
  if (w == "true" || w == "false" || w == "null") return ok_status();
  if (w == "NaN") {
    number_ = std::numeric_limits<double>::quiet_NaN();
    return ok_status();
  }
  if (w == "Infinity" || w == "-Infinity") {
    number_ = w[0] == '-' ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
    return ok_status();
  }
  bool integral = false;
  if (!json_number_syntax(w, integral)) {
    // A literal cut short by the end of the file ("tru", "1e", "-Infin") is a file still growing.
    if (at_end) return truncated();
    return syntax("'" + text_ + "' is no JSON value");
  }
  const char* b = w.data();
  const char* e = b + w.size();
  if (integral) {
    auto [p, ec] = std::from_chars(b, e, integer_);
    is_integer_ = ec == std::errc() && p == e;
  }
  auto [p, ec] = std::from_chars(b, e, number_);
  if (ec == std::errc::result_out_of_range) {
    // Beyond double's range: a huge magnitude is infinite, a tiny one zero (as Python reads them).
    const size_t exp = w.find_first_of("eE");
    const bool tiny = exp != std::string_view::npos && exp + 1 < w.size() && w[exp + 1] == '-';
    const double sign = w[0] == '-' ? -1.0 : 1.0;
    number_ = tiny ? sign * 0.0 : sign * std::numeric_limits<double>::infinity();
  } else if (ec != std::errc() || p != e) {
    return syntax("'" + text_ + "' is no number");
  }
  return ok_status();
}

Result<JsonToken> JsonStream::value_token(int c) {
  if (c == '{' || c == '[') {
    if (stack_.size() >= limits_.max_depth)
      return syntax("nested deeper than " + std::to_string(limits_.max_depth) + " levels");
    MSIT_TRY(take_byte());
    stack_.push_back(c == '{');
    expect_ = c == '{' ? Expect::kKeyOrEnd : Expect::kValueOrEnd;
    return c == '{' ? JsonToken::kBeginObject : JsonToken::kBeginArray;
  }
  if (c == '"') {
    MSIT_TRY(read_string());
    after_value();
    return JsonToken::kString;
  }
  if (!word_char(c)) return syntax(std::string("unexpected character '") + static_cast<char>(c) + "'");
  MSIT_TRY(read_number_or_word());
  after_value();
  if (text_ == "true") return JsonToken::kTrue;
  if (text_ == "false") return JsonToken::kFalse;
  if (text_ == "null") return JsonToken::kNull;
  return JsonToken::kNumber;
}

Result<JsonToken> JsonStream::next() {
  for (;;) {
    MSIT_TRY(skip_space());
    MSIT_ASSIGN_OR_RETURN(int c, peek_byte());
    if (expect_ == Expect::kDone) {
      if (c < 0) return JsonToken::kEnd;
      return syntax("text after the end of the JSON value");
    }
    if (c < 0) return truncated();
    switch (expect_) {
      case Expect::kKeyOrEnd:
      case Expect::kKey:
        if (c == '}' && expect_ == Expect::kKeyOrEnd) {
          MSIT_TRY(take_byte());
          stack_.pop_back();
          after_value();
          return JsonToken::kEndObject;
        }
        if (c != '"') return syntax("expected a member name");
        MSIT_TRY(read_string());
        expect_ = Expect::kColon;
        return JsonToken::kKey;
      case Expect::kColon:
        if (c != ':') return syntax("expected ':' after a member name");
        MSIT_TRY(take_byte());
        expect_ = Expect::kValue;
        continue;
      case Expect::kCommaOrEnd: {
        const bool object = stack_.back();
        if (c == ',') {
          MSIT_TRY(take_byte());
          expect_ = object ? Expect::kKey : Expect::kValue;
          continue;
        }
        if (c != (object ? '}' : ']')) return syntax(object ? "expected ',' or '}'" : "expected ',' or ']'");
        MSIT_TRY(take_byte());
        stack_.pop_back();
        after_value();
        return object ? JsonToken::kEndObject : JsonToken::kEndArray;
      }
      case Expect::kValueOrEnd:
        if (c == ']') {
          MSIT_TRY(take_byte());
          stack_.pop_back();
          after_value();
          return JsonToken::kEndArray;
        }
        return value_token(c);
      case Expect::kValue: return value_token(c);
      case Expect::kDone: break;
    }
    return syntax("internal state");
  }
}

Result<JsonToken> JsonStream::skip_value() {
  MSIT_ASSIGN_OR_RETURN(JsonToken first, next());
  if (first != JsonToken::kBeginObject && first != JsonToken::kBeginArray) return first;
  const uint32_t outer = depth() - 1;
  while (depth() > outer) MSIT_TRY(next());
  return first;
}

}  // namespace msit
