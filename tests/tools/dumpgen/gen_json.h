// JSON values written the way Python's json.dump(indent=N) writes them (docs/formats/msprobe.md
// §3: bare NaN / Infinity, ", " inside empty-free containers, one item per line), for the
// msProbe generator; independent of the library's JSON readers.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace dumpgen {

class Json {
 public:
  enum class Kind : uint8_t { kNull, kBool, kInt, kReal, kStr, kArr, kObj };
  Json() = default;
  static Json null() { return Json(); }
  static Json boolean(bool b);
  static Json integer(int64_t v);
  static Json real(double v);
  static Json str(std::string s);
  static Json array();
  static Json object();
  Json& add(Json v);                   // array
  Json& set(std::string key, Json v);  // object, insertion order kept
  bool empty() const { return arr_.empty() && obj_.empty(); }

  // json.dump(value, indent=indent) text; indent 0 = separators (", ", ": ") on one line.
  std::string dump(int indent) const;

 private:
  void write(std::string& out, int indent, int level) const;
  Kind kind_ = Kind::kNull;
  bool b_ = false;
  int64_t i_ = 0;
  double d_ = 0;
  std::string s_;
  std::vector<Json> arr_;
  std::vector<std::pair<std::string, Json>> obj_;
};

// Python's repr of a float: shortest round-trip digits, "1.0" not "1", NaN / Infinity.
std::string py_float(double v);

}  // namespace dumpgen
