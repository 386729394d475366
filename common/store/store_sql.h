// The SQL text of each summary store version (docs/store.md "Tables"): the statements the store
// prepares, built once from the field tables, and the one way a view is bound as text.
#pragma once

#include <sqlite3.h>

#include <string>
#include <string_view>

namespace msit::store {

// The statements of each store version. Column order of the file and tensor reads:
// store_codec.h (file_column_list(), kFilePathColumn; tensor columns found by name). Bind order
// of the inserts: store_codec.h (version 2 binds the file's name where version 1 binds its path,
// its directory as ?kFileDirParam, and makes the tensor's key of ?1 and ?2). The file columns
// are those of the version's rows of kFileFields (common/summary/file_fields.h), the tensor
// columns those of its rows of kTensorFields (common/summary/tensor_fields.h).
struct StoreSql {
  std::string insert_file, insert_tensor, find_file, select_file, select_tensors_range, select_tensors_in, list,
      list_dir;
};

const StoreSql& sql_of(int version);
// The extra_blocks statements, both versions (kBlockFields, common/summary/block_fields.h).
const std::string& insert_block_sql();
const std::string& select_blocks_sql();

// ?1 .. ?kInListIds of select_tensors_in: load_many binds a group's ids, repeating the last one in
// the spare slots.
constexpr int kInListIds = 32;

// Text, never NULL: an empty view's data() may be a null pointer, which SQLite binds as NULL.
inline void bind_view(sqlite3_stmt* s, int col, std::string_view v) {
  sqlite3_bind_text(s, col, v.empty() ? "" : v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
}

}  // namespace msit::store
