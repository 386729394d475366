// The summary store of one dump root: an SQLite database (WAL) holding one row per raw file
// and one per tensor, written in batches whose commit is durable before any raw file of the
// batch is removed. Schema and versioning: docs/store.md. The JSON form of docs/formats/summary.md stays
// the public view of one entry (export, inspect).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/base/result.h"
#include "common/formats/dump_name.h"
#include "common/io/file.h"
#include "common/safety/beneath.h"
#include "common/store/sqlite_handle.h"
#include "common/store/store_open.h"
#include "common/store/store_version.h"
#include "common/store/store_vfs.h"
#include "common/store/tensor_columns.h"
#include "common/summary/summary.h"

namespace msit::store {

// Sketch buckets are summed in double; stored as float32 they take half the space (the
// estimates move by far less than 1%, docs/benchmarks.md), as float64 they are bit-exact.
enum class SketchPrecision : uint8_t { kFloat32, kFloat64 };

struct StoreEntry {
  std::string rel;        // raw file's path relative to the store's directory
  FileIdentity identity;  // of the raw file as read
  const FileSummary* summary = nullptr;
  // Per entry, not per store: a daemon's reload (SIGHUP) changes it for the next batches of
  // stores it already holds open. Readers tell the two apart by the blob's length.
  SketchPrecision sketch = SketchPrecision::kFloat32;
};

class SummaryStore {
 public:
  // Opens the store in `dir` for writing, creating it when absent. Refuses (by path, never
  // rebuilding) a store that is not ours: a link, a file owned by another user, another
  // application's database, a newer version, or one failing PRAGMA quick_check.
  static Result<std::unique_ptr<SummaryStore>> open_for_write(const DirRef& dir);
  // Opens an existing store read-only (compare, inspect, export); readable while a writer
  // commits. The same checks and the same way in as a writer (store_open.h), and nothing in
  // the directory is created, written, truncated or re-owned.
  static Result<std::unique_ptr<SummaryStore>> open_read_only(const std::string& db_path);
  // The store file `name` in `dir` (`db_path` names it in messages).
  static Result<std::unique_ptr<SummaryStore>> open_read_only(const DirRef& dir, const std::string& name,
                                                              const std::string& db_path);

  ~SummaryStore();
  SummaryStore(const SummaryStore&) = delete;
  SummaryStore& operator=(const SummaryStore&) = delete;

  const std::string& path() const { return path_; }
  // The store's version (store_version.h): new stores are kStoreVersion, older ones keep theirs.
  int version() const { return version_; }
  // The directory the store's files were opened in.
  const DirRef& dir() const { return dir_; }
  // The connection, for aggregate queries of a read-only store on one thread (store_overview).
  sqlite3* connection() { return db_.get(); }
  // Read connections: pins one snapshot for the rest of the connection's life (a compare
  // during a dump sees one consistent state), and with it reads take no lock per query.
  Status begin_snapshot();

  // One transaction for the whole batch; durable (WAL fsynced) when this returns ok.
  Status put(const std::vector<StoreEntry>& batch);
  // The summary stored for raw path `rel`, if any. On a writer, as of the last commit, read
  // through a connection of its own: lookups never wait for a batch's commit.
  Result<std::optional<FileSummary>> find(std::string_view rel);
  // Identity recorded for `rel` (size, mtime) without reading its tensors; likewise.
  Result<std::optional<FileIdentity>> find_identity(std::string_view rel);
  // Every (file id, relative raw path): in path order in a version 1 store, by directory and
  // then name in a version 2 store (docs/store.md).
  Status list(const std::function<void(int64_t id, std::string_view rel)>& visit);
  // The (file id, name) of the files directly in directory `dir` (relative to the store's, ""
  // for its own), in name order: a few index pages, whatever the store's size (version 1
  // stores read every path for their own directory).
  Status list_dir(std::string_view dir, const std::function<void(int64_t id, std::string_view name)>& visit);
  // The names of the sub-directories of `dir` (as list_dir) that hold stored files at any depth,
  // in order, each at least once.
  Status list_subdirs(std::string_view dir, const std::function<void(std::string_view name)>& visit);
  // The id of the entry for raw path `rel`, if any (read connections).
  Result<std::optional<int64_t>> find_id(std::string_view rel);
  // The size of the raw file that entry `file_id` summarises.
  Result<uint64_t> raw_size(int64_t file_id);
  Result<FileSummary> load(int64_t file_id);
  // Compare's read of many files, out[i] for ids[i]: the tensors of each as load() gives them,
  // with what compare reads only. The file row's fields, the extra blocks, and the tensors'
  // sub_index, std, abs_max, sum, finite_count and zero_count are left empty. Files whose
  // ids lie close together (neighbouring raw files) come from one range statement, scattered
  // ones from IN lists; a file without tensors or an id not in the store is left to load(),
  // which says which.
  void load_many(const std::vector<int64_t>& ids, std::vector<std::optional<Result<FileSummary>>>& out);
  // Every entry in path order with its summary (export); with `under` (a relative directory),
  // only the entries below it. Holds kForEachWindow names at a time, never the store's: the
  // listing's statement (and its read snapshot) stays open from one window to the next.
  Status for_each(const std::function<Status(std::string_view rel, const FileSummary&)>& visit,
                  std::string_view under = {});
  Result<size_t> file_count();
  static constexpr size_t kForEachWindow = 4096;

 private:
  SummaryStore() = default;
  Status init_schema(bool writable);
  // A writer's second connection, for find() and find_identity(): the same file, reached the
  // same way, that only ever reads.
  // `written`: the file the writer's connection opened; any other is refused.
  static Result<std::unique_ptr<SummaryStore>> open_lookups(const DirRef& dir, const std::string& path,
                                                            const std::optional<FileKey>& written,
                                                            const StoreFiles& files);
  Status prepare_statements(bool writable);
  Status insert_one(const StoreEntry& e, int64_t now_ns);
  // Version 2: the id of directory `dir` in `dirs`, inserted when new (in the open transaction).
  Result<int64_t> dir_id_locked(std::string_view dir);
  Result<FileSummary> load_locked(int64_t file_id, std::string_view rel);
  // Steps a listing statement (id, directory, name) for at most max_rows rows, mu_ held; true
  // when it stopped there (rows may remain), false at the end.
  Result<bool> list_rows(sqlite3_stmt* stmt, const std::function<void(int64_t id, std::string_view rel)>& visit,
                         size_t max_rows = SIZE_MAX);
  Result<FileSummary> read_group(sqlite3_stmt* f, int& rc, int64_t file_id, std::string_view rel_hint);
  Result<FileSummary> read_tensors_of(sqlite3_stmt* f, int& rc, int64_t file_id);
  struct FileRow {
    int64_t id = 0;
    FileIdentity identity;
  };
  Result<std::optional<FileRow>> find_locked(std::string_view rel);

  DirRef dir_;  // keeps the directory fd that the connection's file names refer to (declared before db_)
  std::string path_;
  std::mutex mu_;
  DbHandle db_;
  int version_ = kStoreVersion;
  // Writers of version 2 stores: directory ids known to this connection (committed, or
  // inserted by the open transaction: cleared when one is rolled back).
  std::unordered_map<std::string, int64_t> dir_ids_;
  Stmt insert_file_, insert_tensor_, insert_block_, insert_dir_, find_dir_, find_file_, list_dir_, select_file_,
      select_tensors_range_, select_tensors_in_, select_blocks_;
  TensorColumns file_columns_;     // where select_file_ holds the tensor columns
  TensorColumns compare_columns_;  // the same for select_tensors_range_ and select_tensors_in_
  // Writers only: lookups by path. In the writer's connection, a worker's lookup of the next
  // raw file waited for the batch commit that held mu_, fsync included: ~0.1 s of the two
  // workers' time while compacting 512 files of 2 MiB. WAL lets this reader run meanwhile.
  std::unique_ptr<SummaryStore> lookups_;
};

// Where stores live, for writers and readers alike: common/store/store_locator.h.

}  // namespace msit::store
