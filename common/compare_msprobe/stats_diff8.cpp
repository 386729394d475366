// msProbe 8.x's statistics-mode cells (docs/formats/msprobe-compare.md §7), written for 8.x's
// `-i compare.json`: 8.x had none of 26.x's value-class table (stats_diff.cpp); it subtracts
// whatever reads as a number and says N/A for the rest and for a zero bench.
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "common/compare_msprobe/row.h"
#include "common/report/csv.h"

namespace msit {
namespace {

// pandas' to_numeric of the cell's text (coerce), or "nan" in any case: 8.x's "a number or NaN".
std::optional<double> number_or_nan(const MsCell& c) {
  if (c.kind == MsCell::Kind::kNumber) return c.number;
  if (c.kind != MsCell::Kind::kText || c.text.empty()) return std::nullopt;
  const char* s = c.text.c_str();
  char* end = nullptr;
  double v = std::strtod(s, &end);
  if (end != s + c.text.size()) return std::nullopt;
  return v;  // "Nan", "nan", "inf" and number texts
}

// The difference as the table holds it: integers stay integers (pandas keeps int64 columns).
std::string diff_text(const MsCell& n, const MsCell& b, double d) {
  if (n.kind == MsCell::Kind::kNumber && b.kind == MsCell::Kind::kNumber && n.is_integer && b.is_integer &&
      std::fabs(d) < 9.2e18) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(d));
    return buf;
  }
  return python_float_repr(d);
}

}  // namespace

std::array<std::string, 8> ms_summary_cells8(const MsprobeItem& npu, const MsprobeItem* bench) {
  std::array<std::string, 8> out;
  for (size_t i = 0; i < 4; ++i) {
    std::string& diff = out[i];
    std::string& rel = out[4 + i];
    const MsCell n = ms_table_cell(npu.stats[i]);
    const MsCell b = bench ? ms_table_cell(bench->stats[i]) : MsCell::of_text("N/A");
    auto nv = number_or_nan(n), bv = number_or_nan(b);
    if (!bench || !nv || !bv) {  // a None, a bool, a string, no bench: nothing to subtract
      diff = rel = "N/A";
      continue;
    }
    const double d = *nv - *bv;
    if (std::isnan(d)) {  // a NaN on either side, or inf - inf
      diff = rel = "Nan";
      continue;
    }
    diff = diff_text(n, b, d);
    // A zero bench has no relative error in 8.x (26.x says inf); an infinite one gives nan%.
    rel = *bv == 0 ? "N/A" : python_float_repr(std::fabs(d / *bv * 100)) + "%";
  }
  return out;
}

}  // namespace msit
