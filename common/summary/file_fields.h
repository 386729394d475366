// Every file-level field of a summary (what it says about the raw file as a whole, and what a
// store keeps per file), described once (docs/architecture.md, "One home per rule"): the JSON
// writer and reader (summary_json.cpp, summary_parse.cpp), the store's files table, its
// statements and codec (common/store/store_schema.cpp, store_sql.cpp, store_codec.cpp) and
// export's CSV (common/store/store_export.cpp) walk this table. Adding a file-level field is a
// member in FileSummary (or OpInfo) and one row here (a new store column: appended, with a new
// store version); a row of a new kind fails to compile (static_assert) in each consumer until
// that consumer handles it. tests/unit/file_fields_test.cpp checks every row in every form.
// The tensors of a file: tensor_fields.h.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string_view>
#include <type_traits>

#include "common/summary/summary.h"

namespace msit {

enum class FileFieldKind : uint8_t {
  kText,        // std::string of FileSummary
  kU64,         // uint64_t (SQLite integers are signed: stored as its bit pattern)
  kI64,         // int64_t
  kOpText,      // std::string of OpInfo: with the op, always written; SQL NULL without an op
  kOpOptText,   // std::string of OpInfo: written when not empty; SQL NULL when empty or no op
  kDev,         // store only: the raw file's device (StoreEntry's identity)
  kIno,         // store only: the raw file's inode
  kStoredAt,    // store only: when the row was written (ns since the epoch)
  kBlockCount,  // store only: how many extra_blocks rows the file has
};

// Where the JSON form holds a field: in "source", in "op" (present when the file has an op),
// at the top level, or nowhere.
enum class JsonPlace : uint8_t { kSource, kOp, kTop, kNone };
// Whether the reader requires the key (kRequired) or takes the default when it is absent.
enum class FileJsonRule : uint8_t { kRequired, kOptional };

struct FileField {
  std::string_view name;  // the store's column name (when sql_type is not empty)
  FileFieldKind kind;
  JsonPlace json_place;
  std::string_view json_key;
  FileJsonRule json;
  std::string_view sql_type;    // the column's declaration after its name, NOT NULL included
  bool read_back;               // selected when a file's row is read back into a FileSummary
  std::string_view csv_column;  // export's CSV column (after store and path); "": none
  int since_store_version;
};

// X(name, access on FileSummary& s (a member of it, or a member pointer into OpInfo; store-only
// rows: nullptr), kind, JSON place, JSON key, JSON rule, SQL type, read back, CSV column, since
// store version), the store's columns in their order after the file's path (version 1) or name
// (version 2): stores exist on disk with exactly these columns in this order; never reorder,
// only append with a new store version. source_name has no column: a store derives it from the
// file's path.
// clang-format off
#define MSIT_FILE_FIELDS(X)                                                                                                 \
  X(source_name,       s.source_name,          kText,       kSource, "name",         kRequired, "",                 false, "",        1) \
  X(kind,              s.source_kind,          kText,       kSource, "kind",         kRequired, "TEXT NOT NULL",    true,  "",        1) \
  X(size_bytes,        s.source_size,          kU64,        kSource, "size_bytes",   kRequired, "INTEGER NOT NULL", true,  "",        1) \
  X(mtime_ns,          s.source_mtime_ns,      kI64,        kSource, "mtime_ns",     kRequired, "INTEGER NOT NULL", true,  "",        1) \
  X(dev,               nullptr,                kDev,        kNone,   "",             kOptional, "INTEGER NOT NULL", false, "",        1) \
  X(ino,               nullptr,                kIno,        kNone,   "",             kOptional, "INTEGER NOT NULL", false, "",        1) \
  X(op_type,           &OpInfo::type,          kOpText,     kOp,     "type",         kOptional, "TEXT",             true,  "op_type", 1) \
  X(op_name,           &OpInfo::name,          kOpText,     kOp,     "name",         kOptional, "TEXT",             true,  "op_name", 1) \
  X(task_id,           &OpInfo::task_id,       kOpText,     kOp,     "task_id",      kOptional, "TEXT",             true,  "",        1) \
  X(stream_id,         &OpInfo::stream_id,     kOpText,     kOp,     "stream_id",    kOptional, "TEXT",             true,  "",        1) \
  X(op_timestamp,      &OpInfo::timestamp,     kOpText,     kOp,     "timestamp",    kOptional, "TEXT",             true,  "",        1) \
  X(dump_op_name,      &OpInfo::dump_op_name,  kOpOptText,  kOp,     "dump_op_name", kOptional, "TEXT",             true,  "",        1) \
  X(created_by,        s.created_by,           kText,       kTop,    "created_by",   kOptional, "TEXT NOT NULL",    true,  "",        1) \
  X(stored_at_ns,      nullptr,                kStoredAt,   kNone,   "",             kOptional, "INTEGER NOT NULL", false, "",        1) \
  X(extra_block_count, nullptr,                kBlockCount, kNone,   "",             kOptional, "INTEGER NOT NULL", true,  "",        1)
// clang-format on

#define MSIT_FILE_FIELD_ROW(name, access, kind, place, key, rule, sql, read, csv, since) \
  FileField{#name, FileFieldKind::kind, JsonPlace::place, key, FileJsonRule::rule, sql, read, csv, since},
inline constexpr FileField kFileFields[] = {MSIT_FILE_FIELDS(MSIT_FILE_FIELD_ROW)};
#undef MSIT_FILE_FIELD_ROW
inline constexpr size_t kFileFieldCount = std::size(kFileFields);

constexpr bool has_column(const FileField& f) { return !f.sql_type.empty(); }

// The store's columns of the files table among the rows: how many, and row i's position among
// them (0-based).
constexpr int file_column_count() {
  int n = 0;
  for (const FileField& f : kFileFields) n += has_column(f) ? 1 : 0;
  return n;
}
constexpr int file_column_ordinal(size_t row) {
  int n = 0;
  for (size_t i = 0; i < row; ++i) n += has_column(kFileFields[i]) ? 1 : 0;
  return n;
}
// Row i's position among the columns a file's read selects (read_back rows, in table order).
constexpr int file_read_ordinal(size_t row) {
  int n = 0;
  for (size_t i = 0; i < row; ++i) n += kFileFields[i].read_back ? 1 : 0;
  return n;
}
constexpr int file_read_count() { return file_read_ordinal(kFileFieldCount); }
constexpr bool read_back_since_version_1() {
  for (const FileField& f : kFileFields)
    if (f.read_back && f.since_store_version != 1) return false;
  return true;
}
static_assert(read_back_since_version_1(),
              "read_file_row() (common/store/store_codec.cpp) takes the read-back columns by position, which "
              "every store version has: a column of a later version must be found by name there, as tensor "
              "columns are");

constexpr size_t file_field_index(std::string_view name) {
  for (size_t i = 0; i < kFileFieldCount; ++i)
    if (kFileFields[i].name == name) return i;
  return kFileFieldCount;
}

// Calls f(std::integral_constant<size_t, I>, access) for every row I in table order: a reference
// to the member of `s`, a member pointer into OpInfo (kOp rows; s.op may be absent), or nullptr
// (store-only rows, whose values the store's code has).
template <class Summary, class F>
void for_each_file_field(Summary& s, F&& f) {
#define MSIT_FILE_FIELD_VISIT(name, access, ...) f(std::integral_constant<size_t, file_field_index(#name)>{}, access);
  MSIT_FILE_FIELDS(MSIT_FILE_FIELD_VISIT)
#undef MSIT_FILE_FIELD_VISIT
}

}  // namespace msit
