// Readers' view of the summary stores in the trees they walk (compare, inspect, export): for
// any directory, the raw files that the stores covering it record there (every store at or
// above it, store_locator.h; the nearest wins for a path several hold), so that a stored
// summary stands in for its raw file exactly where a NAME.summary.json would. Names are read
// from a store directory by directory when asked: a reader's memory follows the directories it
// holds, not the size of the stores (docs/store.md "Reading").
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/base/result.h"
#include "common/store/summary_store.h"

namespace msit::store {

struct StoredName {
  std::string_view name;            // the raw file's base name, held by the StoredList it is in
  int64_t id = 0;                   // its row in the store's files table
  const std::string* db = nullptr;  // that store's path, kept by the catalog (see forget_all)
};
// The raw files the stores record in one directory, sorted by name. The list holds its names'
// bytes; nothing else keeps them.
using StoredList = std::shared_ptr<const std::vector<StoredName>>;

// One stored raw file: its row and its store.
struct StoredFile {
  int64_t id = 0;
  const std::string* db = nullptr;  // kept by the catalog (see forget_all)
};

class StoreCatalog {
 public:
  // One per process: stores are opened once and their connections shared by all walks.
  static StoreCatalog& instance();
  // Forgets every store and connection, so that the next walk sees the stores as they are now.
  // Only for a process that holds nothing from earlier walks: every store path pointer
  // (StoredName::db, StoredFile::db, a SourceFile's) from before is invalid after.
  void forget_all();
  // Between two passes of the live comparer (daemon/live_root_compare.h) over a dump still being
  // summarised: a store whose files (database and WAL: size and mtime) are as they were is kept
  // with its read snapshots; a changed one gets new snapshots (its next reads see it as it is
  // now); one gone or no longer readable is forgotten. Store path pointers of kept and changed
  // stores stay valid.
  void forget_changed();
  // Closes every store's idle read connections (each with up to 2 MB of SQLite's page cache) and
  // keeps the rest: a walk that needs a store again opens a connection with a new snapshot.
  // Between the independent parts of one run (compare's msProbe rank folders: a store per step
  // and rank, never read again), while no connection is in use.
  void close_idle();
  // The same for the stores no reader took a connection of in the last kUnusedCalls calls (the
  // live comparer after each pass: an msProbe step's stores once it is answered), so that the
  // stores the passes keep reading keep their connections and page caches.
  void close_unused();
  static constexpr unsigned kUnusedCalls = 8;

  // The raw files recorded directly in directory `dir` by the stores at or above it, sorted by
  // name, each with its store (StoredName::db); `db_path` (if given) receives the nearest of
  // those stores' path, valid as long as the catalog keeps the store. nullptr when none.
  StoredList stored_in(const std::string& dir, const std::string** db_path = nullptr);
  // The stored entry of raw file `raw_path`, if a store covering its directory has one (the
  // nearest store's, when several do).
  std::optional<StoredFile> find(const std::string& raw_path);
  // The names of the sub-directories of `dir` that the stores covering it record files below,
  // sorted: a store copied without its dump's directories, or a compacted tree whose emptied
  // directories were removed, still shows its tree to a walk (docs/store.md "A store alone").
  // Read from the stores' directory tables (a row per directory holding stored files).
  std::vector<std::string> stored_subdirs(const std::string& dir);
  // The summary of file `id` of store `db_path`; safe from several threads at once.
  Result<FileSummary> load(const std::string& db_path, int64_t id);
  // load() of many files of one store, out[i] for ids[i], mostly in one statement.
  void load_many(const std::string& db_path, const std::vector<int64_t>& ids,
                 std::vector<std::optional<Result<FileSummary>>>& out);
  // The size of the raw file that file `id` of store `db_path` summarises (listings leave it
  // out: only duplicated GE op names need it).
  Result<uint64_t> raw_size(const std::string& db_path, int64_t id);
  // Stores that could not be opened or read (each once): compare reports them.
  std::vector<Error> take_errors();

 private:
  struct Store {
    std::string db_path;
    std::string dir;  // the store's directory
    std::mutex mu;
    std::vector<std::unique_ptr<SummaryStore>> idle;  // read connections (one snapshot each), one per concurrent reader
    std::string stamp;     // the database's and its WAL's size and mtime when its snapshots were taken
    unsigned untaken = 0;  // close_unused() calls since a connection was last taken (under mu)
  };
  // A store file found in a walk: opened once, by the first walk that needs it, and outside the
  // catalog's lock, so that compare's two trees open their stores in parallel.
  struct Slot {
    std::once_flag once;
    std::unique_ptr<Store> store;  // nullptr: could not be opened (its error is in errors_)
  };
  // The stores at `dir` and its ancestors, nearest first (store_locator.h); each readable one.
  // Takes mu_ itself, and releases it while a store is opened.
  // A copy: the answers kept are bounded (kMaxCoveringDirs) and may be dropped meanwhile.
  std::vector<Store*> covering(const std::string& dir);
  static constexpr size_t kMaxCoveringDirs = 16384;
  Store* open_slot(const std::string& store_dir);
  // Opens one store (a first read connection, its snapshot); nullptr after recording why it
  // cannot be read.
  std::unique_ptr<Store> open_store(const std::string& dir, const std::string& db_path);
  // The names store `s` records in `dir` (absolute), nullptr when none; a read error is recorded.
  StoredList names_of(Store& s, const std::string& dir);
  // A read connection of store `s` or `db_path` (idle or new, with its snapshot) and back.
  Result<std::unique_ptr<SummaryStore>> take_connection(Store& s);
  Result<std::unique_ptr<SummaryStore>> take_connection(const std::string& db_path, Store** store);
  static void give_back(Store* s, std::unique_ptr<SummaryStore> conn);
  // fn(connection) on a read connection of `db_path` taken for the call (defined in the .cpp).
  template <class T, class Fn>
  Result<T> with_connection(const std::string& db_path, Fn&& fn);
  void record(const Error& e);
  void close_idle_of(bool unused_only);

  std::mutex mu_;
  std::unordered_map<std::string, std::vector<Store*>> covering_;  // directory -> stores, nearest first
  std::map<std::string, Slot> stores_;                             // by db path
  std::vector<Error> errors_;
};

}  // namespace msit::store
