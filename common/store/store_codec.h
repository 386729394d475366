// One FileSummary as rows of the store and back: a files row, one tensors row per tensor and
// one extra_blocks row per non-tensor block. Values read back equal what summary_from_json()
// gives for the JSON of the same summary, so compare's report does not depend on the format.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/base/result.h"
#include "common/store/summary_store.h"
#include "common/store/tensor_columns.h"
#include "common/summary/block_fields.h"
#include "common/summary/file_fields.h"

namespace msit::store {

// Binds the files row (?1 path or name, then the store columns of kFileFields, file_fields.h,
// as ?file_param(row)) in the order of the INSERTs in store_sql.cpp: `path` is e.rel in a
// version 1 store, its name in version 2, whose directory id is ?kFileDirParam.
void bind_file(sqlite3_stmt* s, std::string_view path, const StoreEntry& e, int64_t now_ns);
constexpr int file_param(size_t row) { return 2 + file_column_ordinal(row); }
inline constexpr int kFileDirParam = 2 + file_column_count();
// The files table's columns of `version` after its path or name, for the statements: "f.kind,
// f.size_bytes, ..." with `prefix` "f." (read_back_only: those a read of the file selects, in
// the order read_file_row() takes them; the path follows them, at kFilePathColumn).
std::string file_column_list(std::string_view prefix, int version, bool read_back_only = false);
inline constexpr int kFilePathColumn = file_read_count();
// ?1 and ?2 make the tensor's key (file id, ordinal); row i of kTensorFields (tensor_fields.h)
// is bound as ?tensor_param(i).
void bind_tensor(sqlite3_stmt* s, int64_t file_id, int ord, const TensorSummary& t, SketchPrecision precision);
constexpr int tensor_param(size_t row) { return 3 + static_cast<int>(row); }

// The tensor columns a store of `version` has (kTensorFields rows since that version), for the
// statements: "t.role, t.idx, ..." with `prefix` "t." (compare_only: the rows compare reads),
// and the matching "?3,?4,..." of an INSERT.
std::string tensor_column_list(std::string_view prefix, int version, bool compare_only = false);
std::string tensor_param_list(int version);
// The extra_blocks columns after (file_id, ord), "role, idx, ..." (kBlockFields,
// block_fields.h); ?1 and ?2 are the file id and the block's ordinal, row i is ?block_param(i).
std::string block_column_list();
constexpr int block_param(size_t row) { return 3 + static_cast<int>(row); }
void bind_block(sqlite3_stmt* s, int64_t file_id, int ord, const ExtraBlock& b);

// Reading back; `where` names errors (store path and raw path).
// Reads the file columns of select_file (store_sql.cpp); returns its extra-block count.
int64_t read_file_row(sqlite3_stmt* s, FileSummary& out);

// Finds the tensor columns of a prepared statement by their names.
TensorColumns tensor_columns_of(sqlite3_stmt* s);
// The row holds a tensor (LEFT JOIN: not for a file without tensors).
bool has_tensor(sqlite3_stmt* s, const TensorColumns& c);
Result<TensorSummary> read_tensor_row(sqlite3_stmt* s, const TensorColumns& c, const std::string& where);
// The columns of block_column_list(), in that order from column 0.
ExtraBlock read_block_row(sqlite3_stmt* s);

// "[1,4096]" and back.
std::string dims_text(const std::vector<uint64_t>& dims);
Result<std::vector<uint64_t>> parse_dims(std::string_view text, const std::string& where);

}  // namespace msit::store
