// Internals of the dump.json reader (docs/formats/msprobe.md §9): one entry's JSON value held
// in memory (bounded by MsprobeJsonLimits) and its decoding into leaves.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/base/result.h"
#include "common/formats/json_stream.h"
#include "common/formats/msprobe_dump_json.h"

namespace msit::msprobe_internal {

struct JsonValue {
  JsonToken kind = JsonToken::kNull;  // kBeginObject / kBeginArray for containers
  std::string text;                   // a string, or a number as written
  double number = 0;
  bool is_integer = false;
  int64_t integer = 0;
  std::vector<std::string> keys;  // an object's member names, parallel to items
  std::vector<JsonValue> items;   // an object's member values or an array's items

  bool is_object() const { return kind == JsonToken::kBeginObject; }
  bool is_array() const { return kind == JsonToken::kBeginArray; }
  const JsonValue* find(std::string_view key) const;
};

struct ValueBudget {
  uint64_t values_left = 0;
  uint64_t bytes_left = 0;
};

// Reads the value whose first token is `first` (already taken from js).
Result<JsonValue> read_json_value(JsonStream& js, JsonToken first, ValueBudget& budget, const std::string& path);

// Compact JSON text of a value (scalars' value_text).
std::string json_text(const JsonValue& v);

// One entry of "data" as leaves; errors name `path` and the entry.
Status decode_entry(const JsonValue& body, const std::string& path, MsprobeEntry& entry);

}  // namespace msit::msprobe_internal
