// Escaping of control characters and invalid UTF-8 for log and terminal lines.
#include "common/base/printable.h"

#include <cstdint>

namespace msit {
namespace {

// Length of the valid UTF-8 sequence starting at s[i] (1 for ASCII), 0 when it is invalid
// (overlong forms, surrogates and code points above U+10FFFF are invalid, as in RFC 3629).
size_t utf8_length(std::string_view s, size_t i) {
  const auto b = static_cast<uint8_t>(s[i]);
  if (b < 0x80) return 1;
  size_t n = 0;
  uint32_t cp = 0;
  if ((b & 0xE0) == 0xC0) n = 2, cp = b & 0x1F;
  else if ((b & 0xF0) == 0xE0) n = 3, cp = b & 0x0F;
  else if ((b & 0xF8) == 0xF0) n = 4, cp = b & 0x07;
  else return 0;
  if (i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    const auto c = static_cast<uint8_t>(s[i + k]);
    if ((c & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (c & 0x3F);
  }
  static constexpr uint32_t kMinOf[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < kMinOf[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  if (cp >= 0x80 && cp <= 0x9F) return 0;  // C1 controls (U+0080..U+009F): CSI is U+009B
  return n;
}

bool is_control(uint8_t b) { return b < 0x20 || b == 0x7F; }

void append_hex(std::string& out, uint8_t b) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += "\\x";
  out += kHex[b >> 4];
  out += kHex[b & 0xF];
}

}  // namespace

bool is_printable(std::string_view text) {
  for (size_t i = 0; i < text.size();) {
    const auto b = static_cast<uint8_t>(text[i]);
    if (is_control(b)) return false;
    const size_t n = utf8_length(text, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

std::string printable(std::string_view text) {
  if (is_printable(text)) return std::string(text);
  std::string out;
  out.reserve(text.size() + 16);
  for (size_t i = 0; i < text.size();) {
    const auto b = static_cast<uint8_t>(text[i]);
    const size_t n = is_control(b) ? 0 : utf8_length(text, i);
    if (n == 0) {
      append_hex(out, b);  // one byte at a time: the rest may still be valid
      ++i;
      continue;
    }
    out.append(text.substr(i, n));
    i += n;
  }
  return out;
}

std::string printable_lines(std::string_view text) {
  std::string out;
  size_t pos = 0;
  while (pos <= text.size()) {
    const size_t nl = text.find('\n', pos);
    out += printable(text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos));
    if (nl == std::string_view::npos) break;
    out += '\n';
    pos = nl + 1;
  }
  return out;
}

}  // namespace msit
