// The kernel's and systemd's texts, parsed without scanf/atoi (no locale, no silent overflow).
#include "common/safety/proc_text.h"

#include <sys/sysmacros.h>

#include <algorithm>
#include <cstdint>

namespace msit {

bool parse_unsigned(std::string_view s, unsigned base, unsigned long long& out) {
  if (s.empty() || s.size() > (base == 16 ? 16U : 19U)) return false;
  out = 0;
  for (char c : s) {
    unsigned d = 0;
    if (c >= '0' && c <= '9') {
      d = static_cast<unsigned>(c - '0');
    } else if (base == 16 && c >= 'a' && c <= 'f') {
      d = static_cast<unsigned>(c - 'a' + 10);
    } else {
      return false;
    }
    out = out * base + d;
  }
  return true;
}

pid_t pid_of(std::string_view name) {
  unsigned long long v = 0;
  if (!parse_unsigned(name, 10, v) || v > static_cast<unsigned long long>(INT32_MAX)) return -1;
  return static_cast<pid_t>(v);
}

std::optional<std::pair<dev_t, ino_t>> maps_file(std::string_view line) {
  auto field = [&line]() {  // the next space-separated field, consumed
    while (!line.empty() && line.front() == ' ') line.remove_prefix(1);
    const size_t end = std::min(line.find_first_of(" \n"), line.size());
    std::string_view f = line.substr(0, end);
    line.remove_prefix(end);
    return f;
  };
  for (int skip = 0; skip < 3; ++skip) field();  // addr, perms, offset
  const std::string_view dev = field(), inode = field();
  const size_t colon = dev.find(':');
  unsigned long long maj = 0, min = 0, ino = 0;
  // The kernel's major and minor numbers are 12 and 20 bits: wider fields are no maps line.
  if (colon == std::string_view::npos || !parse_unsigned(dev.substr(0, colon), 16, maj) ||
      !parse_unsigned(dev.substr(colon + 1), 16, min) || maj > 0xfff || min > 0xfffff ||
      !parse_unsigned(inode, 10, ino) || ino == 0)
    return std::nullopt;
  return std::pair<dev_t, ino_t>{makedev(maj, min), static_cast<ino_t>(ino)};
}

std::optional<std::pair<unsigned long long, unsigned long long>> journal_stream(std::string_view value) {
  const size_t colon = value.find(':');
  unsigned long long dev = 0, ino = 0;
  if (colon == std::string_view::npos || !parse_unsigned(value.substr(0, colon), 10, dev) ||
      !parse_unsigned(value.substr(colon + 1), 10, ino))
    return std::nullopt;
  return std::pair{dev, ino};
}

}  // namespace msit
