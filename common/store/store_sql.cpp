// The statements of each summary store version, built from the field tables (store_sql.h).
#include "common/store/store_sql.h"

#include "common/store/store_codec.h"
#include "common/store/store_schema.h"

namespace msit::store {
namespace {

// "?,?,...": one parameter per files column of `version` (kFileFields, common/summary/file_fields.h)
// and `extra` more (the path, or the name and the directory).
std::string file_params(int version, int extra) {
  int n = extra;
  for (const FileField& f : kFileFields) n += has_column(f) && f.since_store_version <= version ? 1 : 0;
  std::string out;
  for (int i = 0; i < n; ++i) out += i ? ",?" : "?";
  return out;
}
// Version 2: a file's tensors are the keys [id * 2^20, id * 2^20 + 2^20) (store_version.h).
#define MSIT_STORE_KEY_SCALE "1048576"
#define MSIT_STORE_TENSORS_OF(id)                                                                                 \
  "t.key BETWEEN " id " * " MSIT_STORE_KEY_SCALE " AND " id " * " MSIT_STORE_KEY_SCALE " + " MSIT_STORE_KEY_SCALE \
  " -"                                                                                                            \
  " 1"
#define MSIT_STORE_PATH_V2 "iif(d.path = '', f.name, d.path || '/' || f.name) AS path"
static_assert(int64_t{1} << 20 == kTensorKeyScale, "MSIT_STORE_KEY_SCALE is kTensorKeyScale");

std::string in_list() {
  std::string ids;
  for (int p = 1; p <= kInListIds; ++p) ids += (p > 1 ? ",?" : "?") + std::to_string(p);
  return ids;
}

// Compare's batched reads: the tensors alone (one walk along the tensors table's primary key
// instead of a lookup into it per file row: on 100,000 stored pairs compare's evaluate phase
// went from 0.53-0.56 s to 0.38-0.41 s), and only the columns compare reads. Stepping a column
// costs ~4 ms per 100,000 rows: these 28 of 33 read 100,000 rows in ~130 ms instead of ~195.
// A file without tensors, or an id not in the store, has no rows here: load_locked() says which.
StoreSql make_sql_v1() {
  const std::string cols = tensor_column_list("", 1), all = tensor_column_list("t.", 1),
                    compare = tensor_column_list("t.", 1, true);
  return {
      "INSERT INTO files(path, " + file_column_list("", 1) + ") VALUES (" + file_params(1, 1) + ")",
      "INSERT INTO tensors(file_id, ord, " + cols + ") VALUES (?1,?2," + tensor_param_list(1) + ")",
      "SELECT id, size_bytes, mtime_ns, dev, ino FROM files WHERE path = ?1",
      // One statement per file: its row and its tensors (LEFT JOIN: a file without tensors
      // still gives its row).
      "SELECT " + file_column_list("f.", 1, true) + ", f.path, " + all +
          " FROM files f LEFT JOIN tensors t ON t.file_id = f.id WHERE f.id = ? ORDER BY t.ord",
      "SELECT t.file_id, " + compare + " FROM tensors t WHERE t.file_id BETWEEN ?1 AND ?2 ORDER BY t.file_id, t.ord",
      "SELECT t.file_id, " + compare + " FROM tensors t WHERE t.file_id IN (" + in_list() +
          ") ORDER BY t.file_id, t.ord",
      // Id and path only: the path index holds both, so the scan reads that index alone, already
      // in path order (100,000 files: 12 ms, against 17 ms for a scan of the table and a sort).
      "SELECT id, '', path FROM files ORDER BY path",
      // One directory: the paths in [dir/, dir0) from the path index (deeper ones skipped by the
      // caller); the store's own directory reads them all (no directory table in version 1).
      "SELECT id, path FROM files WHERE path >= ?1 AND path < ?2 ORDER BY path",
  };
}

StoreSql make_sql_v2() {
  const std::string cols = tensor_column_list("", 2), all = tensor_column_list("t.", 2),
                    compare = tensor_column_list("t.", 2, true);
  return {
      "INSERT INTO files(name, " + file_column_list("", 2) + ", dir_id) VALUES (" + file_params(2, 2) + ")",
      "INSERT INTO tensors(key, " + cols + ") VALUES (?1 * " MSIT_STORE_KEY_SCALE " + ?2," + tensor_param_list(2) + ")",
      "SELECT f.id, f.size_bytes, f.mtime_ns, f.dev, f.ino FROM dirs d JOIN files f ON f.dir_id = d.id AND f.name = "
      "?2 WHERE d.path = ?1",
      "SELECT " + file_column_list("f.", 2, true) + ", " MSIT_STORE_PATH_V2 ", " + all +
          " FROM files f JOIN dirs d ON d.id = f.dir_id LEFT JOIN tensors t ON " MSIT_STORE_TENSORS_OF(
              "f.id") " WHERE f.id = ?1 ORDER BY t.key",
      "SELECT t.key >> 20 AS file_id, " + compare +
          " FROM tensors t WHERE t.key BETWEEN ?1 * " MSIT_STORE_KEY_SCALE " AND ?2 * " MSIT_STORE_KEY_SCALE
          " + " MSIT_STORE_KEY_SCALE " - 1 ORDER BY t.key",
      // Each id is a seek in files, then a walk of its tensors' keys: in key order, no sort.
      "SELECT t.key >> 20 AS file_id, " + compare +
          " FROM files f JOIN tensors t ON " MSIT_STORE_TENSORS_OF("f.id") " WHERE f.id IN (" + in_list() +
          ") ORDER BY f.id, t.key",
      // By directory, then name: the directories' path index, and per directory the (dir_id, name)
      // index, both covering: no table row is read and nothing is sorted.
      "SELECT f.id, d.path, f.name FROM dirs d JOIN files f ON f.dir_id = d.id ORDER BY d.path, f.name",
      // One directory: a seek in the directories' path index, then its run of the (dir_id, name)
      // index (covering, in name order).
      "SELECT f.id, f.name FROM dirs d JOIN files f ON f.dir_id = d.id WHERE d.path = ?1 ORDER BY f.name",
  };
}

}  // namespace

const StoreSql& sql_of(int version) {
  static const StoreSql v1 = make_sql_v1(), v2 = make_sql_v2();
  return version == 1 ? v1 : v2;
}
#undef MSIT_STORE_KEY_SCALE
#undef MSIT_STORE_TENSORS_OF
#undef MSIT_STORE_PATH_V2
const std::string& insert_block_sql() {
  static const std::string sql = [] {
    std::string params = "?1,?2";
    for (size_t i = 0; i < kBlockFieldCount; ++i) params += ",?" + std::to_string(block_param(i));
    return "INSERT INTO extra_blocks(file_id, ord, " + block_column_list() + ") VALUES (" + params + ")";
  }();
  return sql;
}
const std::string& select_blocks_sql() {
  static const std::string sql = "SELECT " + block_column_list() + " FROM extra_blocks WHERE file_id = ? ORDER BY ord";
  return sql;
}

}  // namespace msit::store
