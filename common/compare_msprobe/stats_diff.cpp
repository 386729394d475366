// msProbe 26.x's statistics-mode cells (docs/formats/msprobe-compare.md §5.2): each of Max, Min,
// Mean, L2norm as NPU minus bench and as |difference / bench| in percent, by value class.
#include <cmath>
#include <cstdlib>

#include "common/compare_msprobe/row.h"
#include "common/report/csv.h"

namespace msit {
namespace {

enum class ValClass : uint8_t { kNum, kNan, kInf, kNegInf, kDevice, kNa, kOther };

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// pandas' to_numeric on a text: a number written in full (Python float() syntax).
bool text_is_number(const std::string& t) {
  if (t.empty()) return false;
  char* end = nullptr;
  std::strtod(t.c_str(), &end);
  return end == t.c_str() + t.size();
}

ValClass classify(const MsCell& c, const std::string& shown) {
  std::string l = lower(shown);
  if (l == "nan") return ValClass::kNan;
  if (l == "inf") return ValClass::kInf;
  if (l == "-inf") return ValClass::kNegInf;
  if (c.kind == MsCell::Kind::kNumber) return ValClass::kNum;
  if (c.kind == MsCell::Kind::kText && l != "true" && l != "false" && text_is_number(c.text)) return ValClass::kNum;
  if (l.find("npu") != std::string::npos || l.find("cpu") != std::string::npos || l.find("cuda") != std::string::npos) {
    return ValClass::kDevice;
  }
  if (shown == "N/A") return ValClass::kNa;
  return ValClass::kOther;
}

double number_of(const MsCell& c) {
  return c.kind == MsCell::Kind::kNumber ? c.number : std::strtod(c.text.c_str(), nullptr);
}

bool is_any(ValClass v, std::initializer_list<ValClass> set) {
  for (auto s : set) {
    if (v == s) return true;
  }
  return false;
}

// The rule table for two unequal values (msProbe's build_rules): {diff, relative error}.
std::pair<std::string, std::string> unequal(ValClass n, ValClass b, double nv, double bv) {
  using V = ValClass;
  if (n == V::kNum && b == V::kNum) {
    double d = nv - bv;
    if (bv == 0) return {python_float_repr(d), "inf"};
    return {python_float_repr(d), python_float_repr(std::fabs(d / bv * 100)) + "%"};
  }
  if (n == V::kDevice && b == V::kDevice) return {"N/A", "N/A"};
  const std::initializer_list<V> diff_range = {V::kNum, V::kNan, V::kInf, V::kNegInf, V::kDevice, V::kOther};
  if ((is_any(n, {V::kDevice, V::kOther}) && is_any(b, diff_range)) ||
      (is_any(b, {V::kDevice, V::kOther}) && is_any(n, diff_range))) {
    return {"Diff", "Diff"};
  }
  if (n == V::kNa || b == V::kNa) return {"N/A", "N/A"};
  if ((n == V::kInf && is_any(b, {V::kNum, V::kNegInf})) || (n == V::kNum && b == V::kNegInf)) return {"inf", "inf"};
  if ((n == V::kNegInf && is_any(b, {V::kNum, V::kInf})) || (n == V::kNum && b == V::kInf)) return {"-inf", "-inf"};
  const std::initializer_list<V> nan_range = {V::kNum, V::kNan, V::kInf, V::kNegInf};
  if ((n == V::kNan && is_any(b, nan_range)) || (b == V::kNan && is_any(n, nan_range))) return {"Nan", "Nan"};
  return {"N/A", "N/A"};
}

}  // namespace

// What msProbe's table holds for a statistic: NaN becomes the text "Nan" before anything
// compares it.
MsCell ms_table_cell(const MsCell& c) {
  if (c.kind == MsCell::Kind::kNumber && std::isnan(c.number)) return MsCell::of_text("Nan");
  if (c.kind == MsCell::Kind::kText && lower(c.text) == "nan") return MsCell::of_text("Nan");
  return c;
}

std::array<std::string, 8> ms_summary_cells(const MsprobeItem& npu, const MsprobeItem* bench) {
  std::array<std::string, 8> out;
  for (size_t i = 0; i < 4; ++i) {
    MsCell n = ms_table_cell(npu.stats[i]);
    MsCell b = bench ? ms_table_cell(bench->stats[i]) : MsCell::of_text("N/A");
    std::string ns = n.shown(), bs = b.shown();
    if (ns == bs) {
      out[i] = out[4 + i] = "0";
      continue;
    }
    auto [d, r] = unequal(classify(n, ns), classify(b, bs), number_of(n), number_of(b));
    out[i] = std::move(d);
    out[4 + i] = std::move(r);
  }
  return out;
}

double ms_percent_value(std::string_view text) {
  size_t begin = 0, end = text.size();
  while (begin < end && text[begin] == '%') ++begin;
  while (end > begin && text[end - 1] == '%') --end;
  std::string t(text.substr(begin, end - begin));
  size_t a = t.find_first_not_of(" \t\n");
  size_t z = t.find_last_not_of(" \t\n");
  if (a == std::string::npos) return 0;
  t = t.substr(a, z - a + 1);
  if (!text_is_number(t)) return 0;
  return std::strtod(t.c_str(), nullptr) / 100;
}

}  // namespace msit
