// Readers' view of the summary stores in the trees they walk (compare, inspect, export): for
// any directory, the raw files that the stores covering it record there (every store at or
// above it, store_locator.h; the nearest wins for a path several hold), so that a stored
// summary stands in for its raw file exactly where a NAME.summary.json would.
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
  std::string_view name;            // the raw file's base name, kept by the catalog for the process
  int64_t id = 0;                   // its row in the store's files table
  const std::string* db = nullptr;  // that store's path, kept by the catalog for the process
};

class StoreCatalog {
 public:
  // One per process: stores are opened once and their listings shared by all walks.
  static StoreCatalog& instance();
  // Forgets every store listing and connection, so that the next walk sees the stores as they
  // are now (the live comparer, daemon/live_compare.h, between two passes over a dump still
  // being summarised). Only for a process that holds nothing from earlier walks: every
  // StoredName, store path pointer and SourceFile of a stored file from before is invalid after.
  void forget_all();
  // forget_all, except the stores whose files (database and WAL: size and mtime) are as they
  // were when listed: those are not listed again, and pointers into them stay valid (the live
  // comparer's golden, written once, is listed once: daemon/live_compare.h). A store that
  // changed only by new files (the watched root's, written all the time) keeps its listing and
  // lists the new rows only (list_appended); its StoredName pointers are invalid after.
  void forget_changed();

  // The raw files recorded directly in directory `dir` by the stores at or above it, sorted by
  // name, each with its store (StoredName::db); `db_path` receives the nearest of those stores'
  // path. nullptr when none.
  const std::vector<StoredName>* stored_in(const std::string& dir, std::string* db_path);
  // As above, with the store's path as a pointer valid as long as the catalog (the process):
  // indexes of 100,000s of stored files keep one pointer each instead of a copy of the path.
  const std::vector<StoredName>* stored_in(const std::string& dir, const std::string** db_path);
  // The names of the sub-directories of `dir` that the stores covering it record files below,
  // sorted: a store copied without its dump's directories, or a compacted tree whose emptied
  // directories were removed, still shows its tree to a walk (docs/store.md "A store alone").
  std::vector<std::string> stored_subdirs(const std::string& dir);
  // The stored entry of raw file `raw_path`, if a store covering its directory has one.
  const StoredName* find(const std::string& raw_path, std::string* db_path);
  const StoredName* find(const std::string& raw_path, const std::string** db_path);  // see stored_in
  // The summary of file `id` of store `db_path`; safe from several threads at once.
  Result<FileSummary> load(const std::string& db_path, int64_t id);
  // load() of many files of one store, out[i] for ids[i], mostly in one statement.
  void load_many(const std::string& db_path, const std::vector<int64_t>& ids,
                 std::vector<std::optional<Result<FileSummary>>>& out);
  // The size of the raw file that file `id` of store `db_path` summarises (listings leave it
  // out: only duplicated GE op names need it).
  Result<uint64_t> raw_size(const std::string& db_path, int64_t id);
  // Stores that could not be opened (each once): compare reports them.
  std::vector<Error> take_errors();

 private:
  // Names of 100,000s of stored files, packed in large blocks instead of a string each.
  class NameArena {
   public:
    std::string_view keep(std::string_view s);

   private:
    std::vector<std::unique_ptr<char[]>> blocks_;
    char* next_ = nullptr;
    size_t left_ = 0;
  };
  struct Store {
    std::string db_path;
    std::string dir;  // the store's directory
    NameArena names;
    std::unordered_map<std::string, std::vector<StoredName>> by_dir;  // relative dir -> names
    // relative dir -> the names of its sub-directories on the way to a by_dir entry
    std::unordered_map<std::string, std::set<std::string>> subdirs;
    std::mutex mu;
    std::vector<std::unique_ptr<SummaryStore>> idle;  // read connections, one per concurrent loader
    std::string stamp;  // the database's and its WAL's size and mtime before it was listed
    // What was listed, for list_appended: how many rows, the largest id, and the sum of a
    // keyed hash of each row's (id, path) (row_hash).
    int64_t rows = 0, max_id = 0;
    uint64_t digest = 0;
    void add(int64_t id, std::string_view rel);  // one listed row: names, by_dir and the above
    void add_subdirs(std::string_view rel);      // a new by_dir entry: its ancestors in subdirs
    void sort_names();                           // the directories add() left out of name order
    std::string last_sub_;                       // add(): the directory of the row before
    std::vector<StoredName>* last_list_ = nullptr;
    std::vector<std::vector<StoredName>*> unsorted_;
  };
  // A store file found in a walk: opened and listed once, by the first walk that needs it, and
  // outside the catalog's lock, so that compare's two trees list their stores in parallel.
  struct Slot {
    std::once_flag once;
    std::unique_ptr<Store> store;  // nullptr: could not be opened (its error is in errors_)
  };
  // The stores at `dir` and its ancestors, nearest first (store_locator.h); each readable one.
  // Takes mu_ itself, and releases it while a store is opened.
  const std::vector<Store*>& covering(const std::string& dir);
  Store* open_slot(const std::string& store_dir);
  const std::vector<StoredName>* merged(const std::string& dir,
                                        const std::vector<std::pair<Store*, const std::vector<StoredName>*>>& lists);
  // Opens and lists one store; nullptr after recording why it cannot be read.
  std::unique_ptr<Store> open_store(const std::string& dir, const std::string& db_path);
  // Brings a changed store's listing up to date by its new rows only, through a new connection
  // (a new snapshot): true when the rows listed before are all there unchanged (same count,
  // same digest of (id, path) over ids up to the largest listed) and the rows past that id
  // were added. False (the store is then listed afresh) on anything else: rows deleted,
  // renamed or inserted below that id, another database put in its place, an error.
  bool list_appended(Store& s);
  // A read connection of `db_path` (idle or new, with its snapshot) and back.
  Result<std::unique_ptr<SummaryStore>> take_connection(const std::string& db_path, Store** store);
  static void give_back(Store* s, std::unique_ptr<SummaryStore> conn);
  // fn(connection) on a read connection of `db_path` taken for the call (defined in the .cpp).
  template <class T, class Fn>
  Result<T> with_connection(const std::string& db_path, Fn&& fn);

  std::mutex mu_;
  std::unordered_map<std::string, std::vector<Store*>> covering_;  // directory -> stores, nearest first
  std::map<std::string, Slot> stores_;                             // by db path
  // Directories that several stores record files in: their names merged once, kept for good.
  std::unordered_map<std::string, std::unique_ptr<std::vector<StoredName>>> merged_;
  std::vector<Error> errors_;
};

}  // namespace msit::store
