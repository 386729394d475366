// Python json.dump's text (gen_json.h).
#include "tests/tools/dumpgen/gen_json.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace dumpgen {

Json Json::boolean(bool b) {
  Json j;
  j.kind_ = Kind::kBool;
  j.b_ = b;
  return j;
}
Json Json::integer(int64_t v) {
  Json j;
  j.kind_ = Kind::kInt;
  j.i_ = v;
  return j;
}
Json Json::real(double v) {
  Json j;
  j.kind_ = Kind::kReal;
  j.d_ = v;
  return j;
}
Json Json::str(std::string s) {
  Json j;
  j.kind_ = Kind::kStr;
  j.s_ = std::move(s);
  return j;
}
Json Json::array() {
  Json j;
  j.kind_ = Kind::kArr;
  return j;
}
Json Json::object() {
  Json j;
  j.kind_ = Kind::kObj;
  return j;
}
Json& Json::add(Json v) {
  arr_.push_back(std::move(v));
  return *this;
}
Json& Json::set(std::string key, Json v) {
  obj_.emplace_back(std::move(key), std::move(v));
  return *this;
}

std::string py_float(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  // repr: fixed notation for 1e-4 <= |v| < 1e16, else scientific with a signed 2-digit exponent.
  char buf[64];
  const double a = std::fabs(v);
  if (a != 0 && (a < 1e-4 || a >= 1e16)) {
    auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
    std::string s(buf, r.ptr);
    const size_t e = s.find('e');
    std::string mant = s.substr(0, e), exp = s.substr(e + 1);
    const char sign = exp[0] == '-' ? '-' : '+';
    if (exp[0] == '-' || exp[0] == '+') exp.erase(0, 1);
    while (exp.size() > 2 && exp[0] == '0') exp.erase(0, 1);
    if (exp.size() < 2) exp = "0" + exp;
    return mant + "e" + sign + exp;
  }
  auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed);
  std::string s(buf, r.ptr);
  if (s.find('.') == std::string::npos) s += ".0";
  return s;
}

namespace {

void write_string(std::string& out, const std::string& s) {
  out += '"';
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c < 0x20 || c >= 0x7f) {  // ensure_ascii: bytes beyond ASCII as \u00XX (our strings are ASCII)
      char b[8];
      std::snprintf(b, sizeof b, "\\u%04x", c);
      out += b;
    } else {
      out += static_cast<char>(c);
    }
  }
  out += '"';
}

void newline(std::string& out, int indent, int level) {
  out += '\n';
  out.append(static_cast<size_t>(indent * level), ' ');
}

}  // namespace

void Json::write(std::string& out, int indent, int level) const {
  switch (kind_) {
    case Kind::kNull: out += "null"; return;
    case Kind::kBool: out += b_ ? "true" : "false"; return;
    case Kind::kInt: out += std::to_string(i_); return;
    case Kind::kReal: out += py_float(d_); return;
    case Kind::kStr: write_string(out, s_); return;
    case Kind::kArr:
    case Kind::kObj: break;
  }
  const bool obj = kind_ == Kind::kObj;
  const size_t n = obj ? obj_.size() : arr_.size();
  if (n == 0) {
    out += obj ? "{}" : "[]";
    return;
  }
  out += obj ? '{' : '[';
  for (size_t i = 0; i < n; ++i) {
    if (i) out += indent ? "," : ", ";
    if (indent) newline(out, indent, level + 1);
    if (obj) {
      write_string(out, obj_[i].first);
      out += ": ";
      obj_[i].second.write(out, indent, level + 1);
    } else {
      arr_[i].write(out, indent, level + 1);
    }
  }
  if (indent) newline(out, indent, level);
  out += obj ? '}' : ']';
}

std::string Json::dump(int indent) const {
  std::string out;
  write(out, indent, 0);
  return out;
}

}  // namespace dumpgen
