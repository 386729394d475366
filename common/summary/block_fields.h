// Every field of a summary's extra block (a block of a GE dump that is no tensor: buffer,
// workspace; docs/formats/ge-dump.md), described once (docs/architecture.md, "One home per
// rule"): the JSON writer and reader (summary_json.cpp, summary_parse.cpp), the store's
// extra_blocks columns, statements and codec (common/store/store_schema.cpp, store_sql.cpp,
// store_codec.cpp) walk this table (inspect's sentence, cli/inspect.cpp, names the block by its
// role and index and spells its size for people). A row of a new
// kind fails to compile (static_assert) in each consumer until that consumer handles it;
// tests/unit/block_fields_test.cpp round-trips every row through every form. The file-level
// fields: file_fields.h; the tensors: tensor_fields.h.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string_view>
#include <type_traits>

#include "common/summary/summary.h"

namespace msit {

enum class BlockFieldKind : uint8_t {
  kText,  // std::string; JSON key optional (absent: empty)
  kU32,   // uint32_t; JSON key optional (absent: 0)
  kU64,   // uint64_t (SQLite integers are signed: stored as its bit pattern)
};

struct BlockField {
  std::string_view name;  // the store's column name
  BlockFieldKind kind;
  std::string_view json_key;
  std::string_view sql_type;  // the column's declaration after its name, NOT NULL included
};

// X(column name, member of ExtraBlock, kind, JSON key, SQL type), the store's columns in their
// order after (file_id, ord): stores exist on disk with exactly these columns in this order
// (both store versions); never reorder, only append with a new store version.
// clang-format off
#define MSIT_BLOCK_FIELDS(X)                                            \
  X(role,       role,       kText, "role",       "TEXT NOT NULL")       \
  X(idx,        index,      kU32,  "index",      "INTEGER NOT NULL")    \
  X(size_bytes, size_bytes, kU64,  "size_bytes", "INTEGER NOT NULL")    \
  X(xxh3_64,    xxh3_64,    kText, "xxh3_64",    "TEXT NOT NULL")
// clang-format on

#define MSIT_BLOCK_FIELD_ROW(name, member, kind, key, sql) BlockField{#name, BlockFieldKind::kind, key, sql},
inline constexpr BlockField kBlockFields[] = {MSIT_BLOCK_FIELDS(MSIT_BLOCK_FIELD_ROW)};
#undef MSIT_BLOCK_FIELD_ROW
inline constexpr size_t kBlockFieldCount = std::size(kBlockFields);

constexpr size_t block_field_index(std::string_view name) {
  for (size_t i = 0; i < kBlockFieldCount; ++i)
    if (kBlockFields[i].name == name) return i;
  return kBlockFieldCount;
}

// Calls f(std::integral_constant<size_t, I>, member) for every row I in table order, with a
// reference to the member of `b` (const when `b` is).
template <class Block, class F>
void for_each_block_field(Block& b, F&& f) {
#define MSIT_BLOCK_FIELD_VISIT(name, member, ...) \
  f(std::integral_constant<size_t, block_field_index(#name)>{}, b.member);
  MSIT_BLOCK_FIELDS(MSIT_BLOCK_FIELD_VISIT)
#undef MSIT_BLOCK_FIELD_VISIT
}

}  // namespace msit
