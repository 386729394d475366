// Fuzzes the /proc and JOURNAL_STREAM parsers with any bytes: a maps line's file name is chosen by
// whoever created the file. An accepted maps line must name a real (non-zero) inode and a device
// the kernel can have; an accepted number must print back to the digits it came from.
#include <sys/sysmacros.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/safety/proc_text.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (auto key = msit::maps_file(text)) {
    if (key->second == 0 || major(key->first) > 0xfff || minor(key->first) > 0xfffff) __builtin_trap();
  }
  if (const pid_t pid = msit::pid_of(text); pid >= 0) {
    const std::string back = std::to_string(pid);
    // Leading zeros are digits too ("007" is pid 7): compare without them.
    const std::string_view digits = text.substr(std::min(text.find_first_not_of('0'), text.size()));
    if (back != (digits.empty() ? "0" : digits)) __builtin_trap();
  }
  if (auto id = msit::journal_stream(text)) {
    if (text.find(':') == std::string_view::npos) __builtin_trap();
  }
  return 0;
}
