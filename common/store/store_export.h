// Getting entries out of summary stores (`msit-compact export`): every store below a tree,
// each entry as today's NAME.summary.json (never replacing a file), or all statistics of all
// tensors as one CSV.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "common/base/result.h"
#include "common/safety/beneath.h"
#include "common/summary/summary.h"

namespace msit::store {

// Every msit-summary.db at or below `root` (itself a store file, or a directory walked without
// following symlinks), in path order, each as `root` + "/" + its relative path. Directories
// that cannot be read are reported in `problems` and skipped.
std::vector<std::string> find_stores(const std::string& root, std::vector<Error>* problems);

// The stores above directory `root` that may hold summaries of files below it (a compact of
// one rank writes into its dump's home, store_locator.h): each store's path and `root`
// relative to the store's directory, nearest first.
struct StoreAbove {
  std::string db_path;
  std::string under;
};
std::vector<StoreAbove> stores_above(const std::string& root);

struct JsonExportResult {
  size_t written = 0;
  std::vector<std::string> conflicts;  // paths that already existed (kept, nothing written)
  std::vector<Error> errors;           // entries that were not written, by path
};

// Writes each entry of store `db_path` as `<sub>/<rel>.summary.json` below directory `base`,
// creating directories as needed (never through a symlink) and never replacing a file: a name
// that is taken is a conflict. A store that cannot be read is an error naming it.
// With `under` (a directory relative to the store), only the entries below it, with paths
// relative to it.
Status export_store_json(const std::string& db_path, const DirRef& base, const std::string& sub,
                         JsonExportResult& result, const std::string& under = {});

// The CSV's header line (with its newline) and the rows of one entry: one per tensor,
// `store` naming the store in the first column. Text cells are quoted as CSV needs and
// guarded against spreadsheet formulas; unavailable statistics are empty cells.
std::string_view csv_header();
std::string csv_rows(std::string_view store, std::string_view rel, const FileSummary& summary);

// Every entry of store `db_path` as CSV rows handed to `sink` (one call per entry); `rows`
// counts them. Stops at, and returns, the first error of the store or of `sink`.
Status export_store_csv(const std::string& db_path, const std::string& store_label,
                        const std::function<Status(std::string_view)>& sink, size_t* rows,
                        const std::string& under = {});

// True for a path a store may record: relative, no empty, "." or ".." component.
bool is_safe_rel(std::string_view rel);

}  // namespace msit::store
