// MsCell's Python texts and the CRC-32 of scalar arguments (docs/formats/msprobe-compare.md §2).
#include "common/compare_msprobe/item.h"

#include <zlib.h>

#include <cmath>
#include <cstdio>

#include "common/report/csv.h"

namespace msit {

std::string MsCell::shown() const {
  switch (kind) {
    case Kind::kNone: return "None";
    case Kind::kText: return text;
    case Kind::kNumber: break;
  }
  if (is_integer && std::isfinite(number) && std::fabs(number) < 9.2e18) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(number));
    return buf;
  }
  return python_float_repr(number);
}

std::string ms_crc32_hex(std::string_view text) {
  uLong crc = crc32(0L, Z_NULL, 0);
  crc = crc32(crc, reinterpret_cast<const Bytef*>(text.data()), static_cast<uInt>(text.size()));
  char buf[16];
  std::snprintf(buf, sizeof buf, "%08lx", static_cast<unsigned long>(crc));
  return buf;
}

}  // namespace msit
