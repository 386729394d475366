// A double or nothing in 8 bytes, where std::optional<double> takes 16: a report row holds 23
// of them, and a compare holds 100,000s of rows.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>

namespace msit {

class OptDouble {
 public:
  // Implicit conversions both ways, as std::optional<double> has: rows are filled from metric
  // structs of optionals, and cells are read as optionals.
  constexpr OptDouble() = default;
  constexpr OptDouble(std::nullopt_t) {}
  OptDouble(double v) : bits_(bits_of(v)) {}
  OptDouble(const std::optional<double>& v) : bits_(v ? bits_of(*v) : kNone) {}

  bool has_value() const { return bits_ != kNone; }
  explicit operator bool() const { return has_value(); }
  double operator*() const { return std::bit_cast<double>(bits_); }
  double value() const {
    if (!has_value()) throw std::bad_optional_access();
    return **this;
  }
  double value_or(double fallback) const { return has_value() ? **this : fallback; }
  void reset() { bits_ = kNone; }
  operator std::optional<double>() const { return has_value() ? std::optional<double>(**this) : std::nullopt; }

  // As std::optional: nothing equals nothing, values compare as doubles (NaN unequal).
  friend bool operator==(OptDouble a, OptDouble b) {
    return a.has_value() == b.has_value() && (!a.has_value() || *a == *b);
  }
  friend bool operator==(OptDouble a, std::nullopt_t) { return !a.has_value(); }

 private:
  // Nothing is a signalling NaN with a payload that no double stored here keeps: every NaN
  // value is stored as the default quiet NaN (its payload means nothing to a report).
  static constexpr uint64_t kNone = 0x7ff4'6d73'6974'0000ull;
  static uint64_t bits_of(double v) {
    return std::bit_cast<uint64_t>(std::isnan(v) ? std::numeric_limits<double>::quiet_NaN() : v);
  }
  uint64_t bits_ = kNone;
};

}  // namespace msit
