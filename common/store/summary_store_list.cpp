// A store's names: every entry, one directory's files or sub-directories, and the walk over
// every entry with its summary (export), in bounded memory.
#include <sqlite3.h>

#include <string>
#include <utility>
#include <vector>

#include "common/store/store_sql.h"
#include "common/store/summary_store.h"

namespace msit::store {

Status SummaryStore::list(const std::function<void(int64_t, std::string_view)>& visit) {
  std::lock_guard lock(mu_);
  MSIT_ASSIGN_OR_RETURN(Stmt s, prepare(db_.get(), path_, sql_of(version_).list.c_str()));
  MSIT_TRY(list_rows(s.get(), visit));
  return ok_status();
}

Status SummaryStore::list_dir(std::string_view dir, const std::function<void(int64_t, std::string_view)>& visit) {
  std::lock_guard lock(mu_);
  sqlite3_stmt* s = list_dir_.get();
  sqlite3_reset(s);
  std::string prefix;  // version 1: the paths' part before the name
  if (version_ >= 2) {
    bind_view(s, 1, dir);
  } else {
    if (!dir.empty()) prefix.assign(dir).append("/");
    bind_view(s, 1, prefix);
    // Above every path of the directory: "dir0" ('0' follows '/'), or for the store's own
    // directory a blob, which SQLite orders after all text.
    if (dir.empty()) sqlite3_bind_zeroblob(s, 2, 0);
    else bind_view(s, 2, std::string(dir) + '0');
  }
  int rc;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(s, 1));
    std::string_view name(p != nullptr ? p : "", static_cast<size_t>(sqlite3_column_bytes(s, 1)));
    if (version_ < 2) {
      if (!name.starts_with(prefix)) continue;
      name.remove_prefix(prefix.size());
      if (name.find('/') != std::string_view::npos) continue;  // below a sub-directory
    }
    visit(sqlite3_column_int64(s, 0), name);
  }
  sqlite3_reset(s);
  if (rc != SQLITE_DONE) return sqlite_error(db_.get(), path_, Stage::kStore, "cannot list the files");
  return ok_status();
}

Status SummaryStore::list_subdirs(std::string_view dir, const std::function<void(std::string_view name)>& visit) {
  std::lock_guard lock(mu_);
  // The paths below `dir`, in [dir/, dir0) (everything for the store's own directory, ""): in a
  // version 2 store the directories' path index (a row per directory holding files, so a few per
  // token), in a version 1 store the files' path index (every file below: O(files)).
  const char* sql = version_ >= 2 ? "SELECT path FROM dirs WHERE path >= ?1 AND path < ?2 ORDER BY path"
                                  : "SELECT path FROM files WHERE path >= ?1 AND path < ?2 ORDER BY path";
  MSIT_ASSIGN_OR_RETURN(Stmt s, prepare(db_.get(), path_, sql));
  const std::string prefix = dir.empty() ? std::string() : std::string(dir) + '/';
  bind_view(s.get(), 1, prefix);
  if (dir.empty()) sqlite3_bind_zeroblob(s.get(), 2, 0);  // a blob orders after all text
  else bind_view(s.get(), 2, std::string(dir) + '0');     // '0' follows '/'
  std::string last;
  int rc;
  while ((rc = sqlite3_step(s.get())) == SQLITE_ROW) {
    const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(s.get(), 0));
    std::string_view rest(p != nullptr ? p : "", static_cast<size_t>(sqlite3_column_bytes(s.get(), 0)));
    if (!rest.starts_with(prefix)) continue;
    rest.remove_prefix(prefix.size());
    const size_t slash = rest.find('/');
    // Version 2: a path is a directory (the child itself, or below it); version 1: a file, whose
    // directory is a child only when it lies below one.
    if (rest.empty() || (version_ < 2 && slash == std::string_view::npos)) continue;
    const std::string_view child = rest.substr(0, slash);
    if (child == last) continue;
    last.assign(child);
    visit(child);
  }
  if (rc != SQLITE_DONE) return sqlite_error(db_.get(), path_, Stage::kStore, "cannot list the directories");
  return ok_status();
}

Result<std::optional<int64_t>> SummaryStore::find_id(std::string_view rel) {
  std::lock_guard lock(mu_);
  MSIT_ASSIGN_OR_RETURN(auto row, find_locked(rel));
  if (!row) return std::optional<int64_t>();
  return std::optional<int64_t>(row->id);
}

Result<bool> SummaryStore::list_rows(sqlite3_stmt* stmt, const std::function<void(int64_t, std::string_view)>& visit,
                                     size_t max_rows) {
  auto text = [&](int col) {
    const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt, col));
    return std::string_view(p != nullptr ? p : "", static_cast<size_t>(sqlite3_column_bytes(stmt, col)));
  };
  std::string rel;
  int rc = SQLITE_DONE;
  for (size_t n = 0; n < max_rows && (rc = sqlite3_step(stmt)) == SQLITE_ROW; ++n) {
    const std::string_view dir = text(1);
    if (dir.empty()) {
      visit(sqlite3_column_int64(stmt, 0), text(2));
      continue;
    }
    rel.assign(dir);
    rel += '/';
    rel += text(2);
    visit(sqlite3_column_int64(stmt, 0), rel);
  }
  if (rc == SQLITE_ROW) return true;  // stopped at max_rows
  if (rc != SQLITE_DONE) return sqlite_error(db_.get(), path_, Stage::kStore, "cannot list the files");
  return false;
}

// A window of names at a time (5,004,000 entries: all names at once held 852 MB of export's RSS).
Status SummaryStore::for_each(const std::function<Status(std::string_view, const FileSummary&)>& visit,
                              std::string_view under) {
  Stmt s;
  {
    std::lock_guard lock(mu_);
    MSIT_ASSIGN_OR_RETURN(s, prepare(db_.get(), path_, sql_of(version_).list.c_str()));
  }
  std::vector<std::pair<int64_t, std::string>> files;
  for (bool more = true; more;) {
    files.clear();
    {
      std::lock_guard lock(mu_);
      MSIT_ASSIGN_OR_RETURN(more, list_rows(
                                      s.get(),
                                      [&](int64_t id, std::string_view rel) {
                                        if (under.empty() || (rel.size() > under.size() && rel.starts_with(under) &&
                                                              rel[under.size()] == '/'))
                                          files.emplace_back(id, std::string(rel));
                                      },
                                      kForEachWindow));
    }
    for (const auto& [id, rel] : files) {
      Result<FileSummary> f = [&] {
        std::lock_guard lock(mu_);
        return load_locked(id, rel);
      }();
      if (!f.ok()) return f.take_error();
      MSIT_TRY(visit(rel, *f));
    }
  }
  return ok_status();
}

Result<size_t> SummaryStore::file_count() {
  std::lock_guard lock(mu_);
  MSIT_ASSIGN_OR_RETURN(Stmt s, prepare(db_.get(), path_, "SELECT count(*) FROM files"));
  if (sqlite3_step(s.get()) != SQLITE_ROW)
    return sqlite_error(db_.get(), path_, Stage::kStore, "cannot count the files");
  return static_cast<size_t>(sqlite3_column_int64(s.get(), 0));
}

}  // namespace msit::store
