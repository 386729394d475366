#include "common/store/store_schema.h"

#include <sqlite3.h>

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/store/sqlite_handle.h"
#include "common/store/summary_store.h"
#include "common/summary/block_fields.h"
#include "common/summary/file_fields.h"
#include "common/summary/tensor_fields.h"

namespace msit::store {
namespace {

// Version 1 (stores written before version 2; still read and appended to in this form).
// Column meanings and units: docs/store.md. Paths are relative to the store's directory.
constexpr const char* kSchemaV1 = R"sql(
CREATE TABLE meta(
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE files(
  id INTEGER PRIMARY KEY,
  path TEXT NOT NULL UNIQUE,@file_columns@
);
CREATE TABLE tensors(
  file_id INTEGER NOT NULL REFERENCES files(id),
  ord INTEGER NOT NULL,@tensor_columns@,
  PRIMARY KEY(file_id, ord)
) WITHOUT ROWID;
CREATE TABLE extra_blocks(
  file_id INTEGER NOT NULL REFERENCES files(id),
  ord INTEGER NOT NULL,@block_columns@,
  PRIMARY KEY(file_id, ord)
) WITHOUT ROWID;
CREATE VIEW tensor_stats AS
  SELECT f.path, f.op_type, f.op_name, t.role, t.idx, t.sub_index, t.dtype, t.shape, t.count,
         coalesce(t.min_int, t.min) AS min, coalesce(t.max_int, t.max) AS max, t.mean, t.std,
         t.abs_max, t.l2norm, t.nan_count, t.posinf_count, t.neginf_count, t.zero_count, t.xxh3_64
  FROM tensors t JOIN files f ON f.id = t.file_id;
)sql";

// Version 2: the same values in less space (docs/store.md, "Versioning"). A file's directory
// is stored once in `dirs`; a tensor's row is keyed by one integer (files.id * 2^20 + ord) in
// a rowid table, whose interior pages hold only keys: in version 1's WITHOUT ROWID table every
// interior cell was a whole row (~700 bytes with its sketch, fan-out 6) and rows above ~1,000
// bytes (float64 elements) spilled into an overflow page of their own, 85% empty. On 31,063
// small GE/FX files the two stores went from 11.9% to about 8% of the raw tree.
constexpr const char* kSchemaV2 = R"sql(
CREATE TABLE meta(
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE dirs(
  id INTEGER PRIMARY KEY,
  path TEXT NOT NULL UNIQUE
);
CREATE TABLE files(
  id INTEGER PRIMARY KEY,
  dir_id INTEGER NOT NULL REFERENCES dirs(id),
  name TEXT NOT NULL,@file_columns@,
  UNIQUE(dir_id, name)
);
CREATE TABLE tensors(
  key INTEGER PRIMARY KEY,@tensor_columns@
);
CREATE TABLE extra_blocks(
  file_id INTEGER NOT NULL REFERENCES files(id),
  ord INTEGER NOT NULL,@block_columns@,
  PRIMARY KEY(file_id, ord)
) WITHOUT ROWID;
CREATE VIEW tensor_stats AS
  SELECT iif(d.path = '', f.name, d.path || '/' || f.name) AS path, f.op_type, f.op_name, t.role, t.idx,
         t.sub_index, t.dtype, t.shape, t.count, coalesce(t.min_int, t.min) AS min,
         coalesce(t.max_int, t.max) AS max, t.mean, t.std, t.abs_max, t.l2norm, t.nan_count, t.posinf_count,
         t.neginf_count, t.zero_count, t.xxh3_64
  FROM tensors t JOIN files f ON f.id = t.key >> 20 JOIN dirs d ON d.id = f.dir_id;
)sql";

// The tensors table's columns of `version`: the rows of kTensorFields since that version
// (common/summary/tensor_fields.h), each "\n  name TYPE", comma-separated.
std::string tensor_column_defs(int version) {
  std::string out;
  for (const TensorField& f : kTensorFields) {
    if (f.since_store_version > version) continue;
    if (!out.empty()) out += ',';
    out.append("\n  ").append(f.name).append(" ").append(f.sql_type);
  }
  return out;
}

// The files table's columns of `version` after its path or name: the rows of kFileFields
// (common/summary/file_fields.h) that have a column, in the same form.
std::string file_column_defs(int version) {
  std::string out;
  for (const FileField& f : kFileFields) {
    if (!has_column(f) || f.since_store_version > version) continue;
    if (!out.empty()) out += ',';
    out.append("\n  ").append(f.name).append(" ").append(f.sql_type);
  }
  return out;
}

// The extra_blocks table's columns after (file_id, ord): the rows of kBlockFields
// (common/summary/block_fields.h), the same in both versions, in the same form.
std::string block_column_defs() {
  std::string out;
  for (const BlockField& f : kBlockFields) {
    if (!out.empty()) out += ',';
    out.append("\n  ").append(f.name).append(" ").append(f.sql_type);
  }
  return out;
}

std::string make_schema_sql(int version) {
  std::string sql = version == 1 ? kSchemaV1 : kSchemaV2;
  constexpr std::string_view kTensorMark = "@tensor_columns@", kFileMark = "@file_columns@";
  sql.replace(sql.find(kTensorMark), kTensorMark.size(), tensor_column_defs(version));
  sql.replace(sql.find(kFileMark), kFileMark.size(), file_column_defs(version));
  constexpr std::string_view kBlockMark = "@block_columns@";
  sql.replace(sql.find(kBlockMark), kBlockMark.size(), block_column_defs());
  return sql;
}

const char* schema_sql(int version) {
  static const std::string v1 = make_schema_sql(1), v2 = make_schema_sql(2);
  return (version == 1 ? v1 : v2).c_str();
}

// One row of sqlite_schema: what the store defines, and how (sql is NULL for the index that
// a UNIQUE constraint makes).
struct SchemaObject {
  std::string type, name, tbl_name;
  std::optional<std::string> sql;
  bool operator==(const SchemaObject&) const = default;
};

std::string column_text(sqlite3_stmt* s, int col) {
  const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(s, col));
  return p != nullptr ? std::string(p, static_cast<size_t>(sqlite3_column_bytes(s, col))) : std::string();
}

Result<std::vector<SchemaObject>> schema_of(sqlite3* db, const std::string& path) {
  MSIT_ASSIGN_OR_RETURN(Stmt s,
                        prepare(db, path, "SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY type, name"));
  std::vector<SchemaObject> out;
  int rc;
  while ((rc = sqlite3_step(s.get())) == SQLITE_ROW) {
    SchemaObject o{column_text(s.get(), 0), column_text(s.get(), 1), column_text(s.get(), 2), std::nullopt};
    if (sqlite3_column_type(s.get(), 3) != SQLITE_NULL) o.sql = column_text(s.get(), 3);
    out.push_back(std::move(o));
    if (out.size() > 64) break;  // ours has 6; the first one too many is named below
  }
  if (rc != SQLITE_ROW && rc != SQLITE_DONE)
    return sqlite_error(db, path, Stage::kStore, "cannot read the store's schema");
  return out;
}

// The schema of `version` (1 or 2) as SQLite records it: made once in a private in-memory
// database.
std::vector<SchemaObject> make_schema(int version) {
  sqlite3* raw = nullptr;
  sqlite3_open_v2(":memory:", &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_MEMORY, nullptr);
  DbHandle db(raw);
  std::vector<SchemaObject> out;
  if (db && sqlite3_exec(db.get(), schema_sql(version), nullptr, nullptr, nullptr) == SQLITE_OK) {
    auto got = schema_of(db.get(), ":memory:");
    if (got.ok()) out = std::move(got).value();
  }
  return out;
}

const std::vector<SchemaObject>& our_schema(int version) {
  static const std::vector<SchemaObject> v1 = make_schema(1), v2 = make_schema(2);
  return version == 1 ? v1 : v2;
}

// Names come from the file: shown printable and short.
std::string shown(const std::string& name) {
  std::string out;
  for (char c : name.substr(0, 80)) out += (c >= 0x20 && c < 0x7f) ? c : '?';
  return "\"" + out + (name.size() > 80 ? "...\"" : "\"");
}

Result<int64_t> pragma_int(sqlite3* db, const std::string& path, const char* sql) {
  MSIT_ASSIGN_OR_RETURN(Stmt s, prepare(db, path, sql));
  if (sqlite3_step(s.get()) != SQLITE_ROW)
    return sqlite_error(db, path, Stage::kStore, "cannot read the store's header");
  return sqlite3_column_int64(s.get(), 0);
}

}  // namespace

Result<bool> is_empty_database(sqlite3* db, const std::string& path) {
  MSIT_ASSIGN_OR_RETURN(int64_t n, pragma_int(db, path, "SELECT count(*) FROM sqlite_schema"));
  return n == 0;
}

Status create_schema(sqlite3* db, const std::string& path, int version) {
  MSIT_TRY(exec(db, path, "BEGIN IMMEDIATE"));
  auto body = [&]() -> Status {
    MSIT_ASSIGN_OR_RETURN(bool empty, is_empty_database(db, path));
    if (!empty) return ok_status();  // another writer created it first
    MSIT_TRY(exec(db, path, schema_sql(version)));
    const std::string stamp = "PRAGMA application_id = " + std::to_string(kStoreApplicationId) +
                              "; PRAGMA user_version = " + std::to_string(version) + ";";
    MSIT_TRY(exec(db, path, stamp.c_str()));
    const std::string meta = "INSERT INTO meta VALUES ('created_by', '" + created_by_string() + "')";
    return exec(db, path, meta.c_str());
  };
  Status st = body();
  if (!st.ok()) {
    (void)exec(db, path, "ROLLBACK");
    return st;
  }
  return exec(db, path, "COMMIT");
}

Status check_schema(sqlite3* db, const std::string& path, int version) {
  const std::vector<SchemaObject>& ours = our_schema(version);
  if (ours.empty())
    return make_error(path, Stage::kStore, "cannot build the reference schema to check the store against");
  MSIT_ASSIGN_OR_RETURN(std::vector<SchemaObject> theirs, schema_of(db, path));
  if (theirs == ours) return ok_status();  // both in sqlite_schema order (type, name)
  // Triggers and views first: they are what would run SQL of the file's in the reader.
  auto rank = [](const SchemaObject& o) { return o.type == "trigger" ? 0 : o.type == "view" ? 1 : 2; };
  std::stable_sort(theirs.begin(), theirs.end(),
                   [&](const SchemaObject& a, const SchemaObject& b) { return rank(a) < rank(b); });
  std::string what;
  for (const SchemaObject& o : theirs) {
    auto same_name = [&](const SchemaObject& x) { return x.type == o.type && x.name == o.name; };
    auto it = std::find_if(ours.begin(), ours.end(), same_name);
    if (it == ours.end()) {
      what = "has " + std::string(o.type == "index" ? "an " : "a ") + o.type + " " + shown(o.name) +
             " that msit-compact stores never have";
    } else if (!(*it == o)) {
      what = "defines its " + o.type + " " + shown(o.name) + " otherwise than msit-compact does";
    }
    if (!what.empty()) break;
  }
  if (what.empty()) {
    for (const SchemaObject& o : ours) {
      if (std::find(theirs.begin(), theirs.end(), o) == theirs.end()) {
        what = "lacks the " + o.type + " " + shown(o.name) + " of msit-compact stores";
        break;
      }
    }
  }
  return make_error(path, Stage::kStore,
                    what +
                        ": a crafted or modified store (its views, triggers, tables and indexes must be exactly "
                        "those msit-compact makes for its store version " +
                        std::to_string(version) +
                        "); nothing is read from it or written to it. Move it aside and "
                        "summarise the raw files again, or read it with sqlite3 at your own risk");
}

Result<int> check_existing(sqlite3* db, const std::string& path, bool writable) {
  MSIT_ASSIGN_OR_RETURN(int64_t app, pragma_int(db, path, "PRAGMA application_id"));
  if (app != kStoreApplicationId) {
    return make_error(path, Stage::kStore,
                      "is an SQLite database of another application (application_id " + std::to_string(app) +
                          "), not an msit-compact summary store; left alone");
  }
  MSIT_ASSIGN_OR_RETURN(int64_t version, pragma_int(db, path, "PRAGMA user_version"));
  if (version > kStoreVersion) {
    return make_error(path, Stage::kStore,
                      "was written by a newer msit-compact (store version " + std::to_string(version) +
                          "; this build reads up to " + std::to_string(kStoreVersion) +
                          "): upgrade msit-compact to read or extend it");
  }
  if (version < 1)
    return make_error(path, Stage::kStore, "has no store version (user_version 0): not a finished store");
  MSIT_TRY(check_schema(db, path, static_cast<int>(version)));
  if (!writable) return static_cast<int>(version);
  MSIT_ASSIGN_OR_RETURN(Stmt s, prepare(db, path, "PRAGMA quick_check"));
  if (sqlite3_step(s.get()) != SQLITE_ROW) return sqlite_error(db, path, Stage::kStore, "quick_check failed to run");
  const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(s.get(), 0));
  std::string verdict = text != nullptr ? text : "";
  if (verdict != "ok") {
    return make_error(path, Stage::kStore,
                      "failed PRAGMA quick_check (" + verdict.substr(0, 200) +
                          "): the store is damaged; no raw file is removed into it and it is not "
                          "rebuilt. Move it aside (its rows may still be read with sqlite3) and rerun");
  }
  return static_cast<int>(version);
}

}  // namespace msit::store
