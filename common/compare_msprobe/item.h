// One row of msProbe's compare before matching: a leaf of a dump.json entry (a tensor, a
// scalar argument, a None) as msProbe's compare names and shows it (docs/formats/msprobe-compare.md
// §2). The cells keep msProbe's own texts (dtype "torch.float32" or "<class 'int'>", shape
// "[2, 3]"), so the report is msProbe's row for row.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace msit {

// A statistic cell (Max / Min / Mean / Norm) as msProbe's table holds it: a number (an integer
// stays one: "423", not "423.0"), or a text (None, True, False, a string argument).
struct MsCell {
  enum class Kind : uint8_t { kNone, kNumber, kText };
  Kind kind = Kind::kNone;
  double number = 0;
  bool is_integer = false;
  std::string text;

  static MsCell none() { return {}; }
  static MsCell of(double v, bool integer = false) { return {Kind::kNumber, v, integer, {}}; }
  static MsCell of_text(std::string t) { return {Kind::kText, 0, false, std::move(t)}; }
  // The cell's text as msProbe writes it: Python's str() of the value ("None" for kNone).
  std::string shown() const;
  bool operator==(const MsCell&) const = default;
};

// Which part of the entry a leaf is (msProbe's "state"): args and kwargs are both inputs.
enum class MsState : uint8_t { kInput, kOutput, kParameters, kParametersGrad, kDebug };

struct MsprobeItem {
  std::string name;   // NPU Name / Bench Name: the data_name without extension, or entry + path
  std::string entry;  // the dump.json key it belongs to (msProbe's api_origin_name)
  MsState state = MsState::kInput;
  std::string dtype;                  // as msProbe shows it: torch.float32, BFloat16, <class 'int'>, torch.Size
  std::string shape;                  // "[2, 3]", "[]"
  std::optional<bool> requires_grad;  // absent: N/A
  std::array<MsCell, 4> stats;        // Max, Min, Mean, Norm
  std::string md5;                    // the CRC-32 text ("" when the dump has none)
  std::string data_name;              // the tensor file, "-1" when none
  uint64_t order = 0;                 // parse order within its side
};

// The four statistic names in msProbe's column order.
inline constexpr std::array<std::string_view, 4> kMsStatNames = {"max", "min", "mean", "l2norm"};

// CRC-32 (zlib's) of `text` as 8 lowercase hex digits: msProbe's md5 of a scalar argument.
std::string ms_crc32_hex(std::string_view text);

}  // namespace msit
