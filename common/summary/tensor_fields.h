// Every field of a summary's tensor entry, described once (docs/architecture.md, "One home per
// rule"): the JSON writer and reader (summary_json.cpp, summary_parse.cpp), the store's schema,
// statements and codec (common/store/store_schema.cpp, store_sql.cpp, store_codec.cpp),
// export's CSV (common/store/store_export.cpp) and inspect's statistics lines (cli/inspect.cpp)
// walk this table. Adding a statistic is a member in TensorStats and one row here; a row of a
// new kind fails to compile (static_assert) in each consumer until that consumer handles it, and
// tests/unit/tensor_fields_test.cpp round-trips every row through every form.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <type_traits>
#include <utility>

#include "common/summary/summary.h"

namespace msit {

// How a field is held and encoded. A kind names the C++ type and the rule of its cells; the
// extremes and the sketch are one value kept in three store columns (an owner row and parts).
enum class FieldKind : uint8_t {
  kText,         // std::string, never empty in a valid summary
  kOptText,      // std::string; empty: JSON key absent, SQL NULL
  kU32,          // uint32_t
  kOptU32,       // std::optional<uint32_t>: JSON key absent, SQL NULL
  kDims,         // std::vector<uint64_t>: JSON array, SQL and CSV text "[1,4096]"
  kU64,          // uint64_t (SQLite integers are signed: stored as its bit pattern)
  kFlag,         // bool: JSON true/false, SQL 0/1
  kOptReal,      // std::optional<double>: a non-finite or absent value is JSON null, SQL NULL, CSV ""
  kReal,         // double: a non-finite value is written as 0
  kExtreme,      // min or max (ExtremeRef): exact int64, exact uint64, or a finite double / null
  kExtremeInt,   // store part of an extreme: its exact int64, or NULL
  kExtremeUint,  // store part of an extreme: its exact uint64 as decimal text, or NULL
  kElements,     // std::optional<std::vector<double>>: every element, non-finite kept
  kSketch,       // std::optional<Sketch>: JSON object; store part: the bucket blob
  kSketchWidth,  // store part of the sketch: its width
  kSketchSeed,   // store part of the sketch: its seed
};

// When the JSON form holds the key: always (and the reader requires it), only when the value
// is not its default (the reader takes the default when it is absent), or never.
enum class JsonRule : uint8_t { kRequired, kOptional, kNone };

// When export's CSV cell holds the value: always, only when the tensor has statistics, only
// when it has statistics and an l2norm (a GE stats CSV may lack the column).
enum class CsvGate : uint8_t { kAlways, kIfStats, kIfL2norm };

struct TensorField {
  std::string_view name;  // the store's column name
  FieldKind kind;
  std::string_view unit;      // what the number counts (docs/store.md)
  std::string_view json_key;  // "" when the JSON form has no key of its own (a store part)
  JsonRule json;
  std::string_view sql_type;    // the column's declaration after its name, NOT NULL included
  std::string_view csv_column;  // "" when export's CSV has no column for it
  CsvGate csv_gate;
  bool compare_reads;  // selected by compare's batched reads (each column stepped costs time)
  int since_store_version;
  // `inspect`'s statistics lines: the label, and where (line * 10 + position; 0: not shown).
  std::string_view inspect_label;
  int inspect_slot;
};

// One of a tensor's two extremes, by reference (const for writers): the double every reader
// uses and the exact 64-bit integer a 64-bit integer tensor also has.
template <bool kConst>
struct ExtremeRefOf {
  template <class T>
  using Ref = std::conditional_t<kConst, const T&, T&>;
  Ref<std::optional<double>> real;
  Ref<std::optional<int64_t>> i64;
  Ref<std::optional<uint64_t>> u64;
};
using ExtremeRef = ExtremeRefOf<false>;
using ConstExtremeRef = ExtremeRefOf<true>;
inline ExtremeRef min_end(TensorSummary& t) { return {t.stats.min, t.stats.min_i64, t.stats.min_u64}; }
inline ExtremeRef max_end(TensorSummary& t) { return {t.stats.max, t.stats.max_i64, t.stats.max_u64}; }
inline ConstExtremeRef min_end(const TensorSummary& t) { return {t.stats.min, t.stats.min_i64, t.stats.min_u64}; }
inline ConstExtremeRef max_end(const TensorSummary& t) { return {t.stats.max, t.stats.max_i64, t.stats.max_u64}; }

// X(name, access on TensorSummary& t, kind, unit, json key, json rule, sql type, csv column,
//   csv gate, read by compare, since store version, inspect label, inspect slot), in the store's column order (version
//   1 and
// 2 stores exist on disk with exactly these columns in this order: never reorder, only append
// with a new store version). The CSV's columns are in this order too.
// clang-format off
#define MSIT_TENSOR_FIELDS(X)                                                                                       \
  X(role,             t.role,             kText,        "",         "role",             kRequired, "TEXT NOT NULL",    "role",      kAlways,   true,  1, "", 0) \
  X(idx,              t.index,            kU32,         "",         "index",            kRequired, "INTEGER NOT NULL", "index",     kAlways,   true,  1, "", 0) \
  X(sub_index,        t.sub_index,        kOptU32,      "",         "sub_index",        kOptional, "INTEGER",          "sub_index", kAlways,   false, 1, "", 0) \
  X(dtype,            t.dtype,            kText,        "",         "dtype",            kRequired, "TEXT NOT NULL",    "dtype",     kAlways,   true,  1, "", 0) \
  X(shape,            t.shape,            kDims,        "elements", "shape",            kRequired, "TEXT NOT NULL",    "shape",     kAlways,   true,  1, "", 0) \
  X(format,           t.format,           kText,        "",         "format",           kRequired, "TEXT NOT NULL",    "",          kAlways,   true,  1, "", 0) \
  X(original_shape,   t.original_shape,   kDims,        "elements", "original_shape",   kRequired, "TEXT NOT NULL",    "",          kAlways,   true,  1, "", 0) \
  X(count,            t.count,            kU64,         "elements", "count",            kRequired, "INTEGER NOT NULL", "count",     kAlways,   true,  1, "", 0) \
  X(padding_included, t.padding_included, kFlag,        "",         "padding_included", kRequired, "INTEGER NOT NULL", "",          kAlways,   true,  1, "", 0) \
  X(stats_available,  t.stats_available,  kFlag,        "",         "stats_available",  kOptional, "INTEGER NOT NULL", "",          kAlways,   true,  1, "", 0) \
  X(l2norm_available, t.l2norm_available, kFlag,        "",         "",                 kNone,     "INTEGER NOT NULL", "",          kAlways,   true,  1, "", 0) \
  X(note,             t.note,             kOptText,     "",         "note",             kOptional, "TEXT",             "",          kAlways,   true,  1, "", 0) \
  X(min,              min_end(t),         kExtreme,     "value",    "min",              kRequired, "REAL",             "min",       kIfStats,  true,  1, "min", 11) \
  X(max,              max_end(t),         kExtreme,     "value",    "max",              kRequired, "REAL",             "max",       kIfStats,  true,  1, "max", 12) \
  X(min_int,          min_end(t),         kExtremeInt,  "value",    "",                 kNone,     "INTEGER",          "",          kAlways,   true,  1, "", 0) \
  X(max_int,          max_end(t),         kExtremeInt,  "value",    "",                 kNone,     "INTEGER",          "",          kAlways,   true,  1, "", 0) \
  X(min_uint,         min_end(t),         kExtremeUint, "value",    "",                 kNone,     "TEXT",             "",          kAlways,   true,  1, "", 0) \
  X(max_uint,         max_end(t),         kExtremeUint, "value",    "",                 kNone,     "TEXT",             "",          kAlways,   true,  1, "", 0) \
  X(mean,             t.stats.mean,       kOptReal,     "value",    "mean",             kRequired, "REAL",             "mean",      kIfStats,  true,  1, "mean", 13) \
  X(std,              t.stats.std,        kOptReal,     "value",    "std",              kRequired, "REAL",             "std",       kIfStats,  false, 1, "std", 14) \
  X(abs_max,          t.stats.abs_max,    kOptReal,     "value",    "abs_max",          kRequired, "REAL",             "abs_max",   kIfStats,  false, 1, "abs_max", 16) \
  X(l2norm,           t.stats.l2norm,     kReal,        "value",    "l2norm",           kRequired, "REAL NOT NULL",    "l2norm",    kIfL2norm, true,  1, "l2norm", 15) \
  X(sum,              t.stats.sum,        kReal,        "value",    "",                 kNone,     "REAL NOT NULL",    "",          kAlways,   false, 1, "", 0) \
  X(finite_count,     t.stats.finite_count, kU64,       "elements", "",                 kNone,     "INTEGER NOT NULL", "",          kAlways,   false, 1, "", 0) \
  X(nan_count,        t.stats.nan_count,  kU64,         "elements", "nan_count",        kRequired, "INTEGER NOT NULL", "nan_count", kAlways,   true,  1, "nan", 21) \
  X(posinf_count,     t.stats.posinf_count, kU64,       "elements", "posinf_count",     kRequired, "INTEGER NOT NULL", "posinf_count", kAlways, true, 1, "+inf", 22) \
  X(neginf_count,     t.stats.neginf_count, kU64,       "elements", "neginf_count",     kRequired, "INTEGER NOT NULL", "neginf_count", kAlways, true, 1, "-inf", 23) \
  X(zero_count,       t.stats.zero_count, kU64,         "elements", "zero_count",       kRequired, "INTEGER NOT NULL", "zero_count", kAlways,  false, 1, "zero", 24) \
  X(elements,         t.stats.values,     kElements,    "value",    "values",           kOptional, "BLOB",             "",          kAlways,   true,  1, "", 0) \
  X(sketch_width,     t.stats.sketch,     kSketchWidth, "buckets",  "",                 kNone,     "INTEGER",          "",          kAlways,   true,  1, "", 0) \
  X(sketch_seed,      t.stats.sketch,     kSketchSeed,  "",         "",                 kNone,     "INTEGER",          "",          kAlways,   true,  1, "", 0) \
  X(sketch,           t.stats.sketch,     kSketch,      "value",    "sketch",           kOptional, "BLOB",             "",          kAlways,   true,  1, "", 0) \
  X(xxh3_64,          t.xxh3_64,          kText,        "",         "xxh3_64",          kRequired, "TEXT NOT NULL",    "xxh3_64",   kAlways,   true,  1, "xxh3_64", 25)
// clang-format on

#define MSIT_TENSOR_FIELD_ROW(name, access, kind, unit, key, rule, sql, csv, gate, cmp, since, label, slot) \
  TensorField{#name, FieldKind::kind, unit, key, JsonRule::rule, sql, csv, CsvGate::gate, cmp, since, label, slot},
inline constexpr TensorField kTensorFields[] = {MSIT_TENSOR_FIELDS(MSIT_TENSOR_FIELD_ROW)};
#undef MSIT_TENSOR_FIELD_ROW
inline constexpr size_t kTensorFieldCount = std::size(kTensorFields);

// The row of `name` (a compile-time lookup for the owner of a store part).
constexpr size_t tensor_field_index(std::string_view name) {
  for (size_t i = 0; i < kTensorFieldCount; ++i)
    if (kTensorFields[i].name == name) return i;
  return kTensorFieldCount;
}

// The store part of kind `part` of the owner row `owner` ("min" -> "min_int", "sketch" ->
// "sketch_width"): the part's name is the owner's, an underscore, and more.
constexpr size_t tensor_field_part(size_t owner, FieldKind part) {
  const std::string_view stem = kTensorFields[owner].name;
  for (size_t i = 0; i < kTensorFieldCount; ++i) {
    const std::string_view n = kTensorFields[i].name;
    if (kTensorFields[i].kind == part && n.size() > stem.size() && n.substr(0, stem.size()) == stem &&
        n[stem.size()] == '_')
      return i;
  }
  return kTensorFieldCount;
}

// Calls f(std::integral_constant<size_t, I>, value) for every row I in table order, `value`
// being the row's access on `t` (a reference, or an ExtremeRef). Consumers read the row as
// kTensorFields[I] in `if constexpr`, so each field compiles to the code written for it by hand.
template <class Summary, class F>
void for_each_tensor_field(Summary& t, F&& f) {
#define MSIT_TENSOR_FIELD_VISIT(name, access, ...) \
  f(std::integral_constant<size_t, tensor_field_index(#name)>{}, access);
  MSIT_TENSOR_FIELDS(MSIT_TENSOR_FIELD_VISIT)
#undef MSIT_TENSOR_FIELD_VISIT
}

}  // namespace msit
