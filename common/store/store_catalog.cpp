// The store catalog: which stores cover a directory, their read connections, and the names they
// record in a directory, read from the store when asked (docs/store.md "Reading").
#include "common/store/store_catalog.h"

#include "common/store/store_locator.h"

#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <ctime>
#include <filesystem>
#include <iterator>
#include <set>
#include <utility>

namespace msit::store {
namespace {

std::string db_in(const std::string& dir) { return join_dir(dir, kStoreFileName); }

// A directory's names as one store (or several, merged) gave them: the bytes in one buffer, the
// parts a merged list's names point into kept alive.
struct OwnedNames {
  std::vector<StoredName> names;
  std::string bytes;
  std::vector<StoredList> parts;
};

StoredList view_of(std::shared_ptr<OwnedNames> owned) {
  const std::vector<StoredName>* names = &owned->names;
  return StoredList(std::move(owned), names);  // aliasing: owns the whole, points at the names
}

// What changes when a store is written: its database file or its write-ahead log. A file
// written in the last second or two gets a stamp that matches no other: the kernel stamps
// mtime from a coarse clock (a tick of up to 10 ms, a second on some filesystems), so a second
// write in the same tick that leaves the size as it was (a WAL rewritten from its start after
// a checkpoint) would keep the stamp taken between the two, and its rows would never be read
// (docs/live-divergence.md "Cost": a summary missed for good).
std::string store_stamp(const std::string& db_path) {
  static std::atomic<uint64_t> recent{0};
  struct timespec now {};
  ::clock_gettime(CLOCK_REALTIME, &now);
  std::string out;
  for (const std::string& p : {db_path, db_path + "-wal"}) {
    struct stat st {};
    if (::lstat(p.c_str(), &st) != 0) {
      out += "-;";
      continue;
    }
    if (now.tv_sec - st.st_mtim.tv_sec <= 1) return "recent:" + std::to_string(++recent);
    out += std::to_string(st.st_size) + ':' + std::to_string(st.st_mtim.tv_sec) + '.' +
           std::to_string(st.st_mtim.tv_nsec) + ':' + std::to_string(st.st_ino) + ';';
  }
  return out;
}

// A read connection with its snapshot pinned.
Result<std::unique_ptr<SummaryStore>> open_snapshot(const std::string& db_path) {
  MSIT_ASSIGN_OR_RETURN(std::unique_ptr<SummaryStore> conn, SummaryStore::open_read_only(db_path));
  MSIT_TRY(conn->begin_snapshot());
  return conn;
}

std::string normal_dir(const std::string& given) {
  std::error_code ec;
  std::string dir = std::filesystem::absolute(given, ec).lexically_normal().string();
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  return ec ? std::string() : dir;
}

// `dir` (absolute, normal) relative to a store's directory at or above it.
std::string relative_to(const std::string& store_dir, const std::string& dir) {
  if (dir.size() <= store_dir.size()) return {};
  return dir.substr(store_dir == "/" ? 1 : store_dir.size() + 1);
}

}  // namespace

StoreCatalog& StoreCatalog::instance() {
  static StoreCatalog catalog;
  return catalog;
}

void StoreCatalog::record(const Error& e) {
  std::lock_guard lock(mu_);
  // A store that fails to read fails in every directory: said once.
  const std::string text = e.to_string();
  if (std::none_of(errors_.begin(), errors_.end(), [&](const Error& x) { return x.to_string() == text; }))
    errors_.push_back(e);
}

void StoreCatalog::forget_all() {
  std::lock_guard<std::mutex> lock(mu_);
  covering_.clear();
  stores_.clear();  // closes their read connections
  errors_.clear();
}

void StoreCatalog::close_idle() { close_idle_of(false); }

void StoreCatalog::close_unused() { close_idle_of(true); }

void StoreCatalog::close_idle_of(bool unused_only) {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& [db_path, slot] : stores_) {
    if (!slot.store) continue;
    std::lock_guard idle(slot.store->mu);
    Store& st = *slot.store;
    if (!unused_only || ++st.untaken >= kUnusedCalls) st.idle.clear();
  }
}

void StoreCatalog::forget_changed() {
  std::lock_guard<std::mutex> lock(mu_);
  covering_.clear();
  errors_.clear();
  for (auto it = stores_.begin(); it != stores_.end();) {
    Store* s = it->second.store.get();
    if (s == nullptr) {
      it = stores_.erase(it);  // unreadable: tried afresh (and its error said) by the next walk
      continue;
    }
    std::string stamp = store_stamp(s->db_path);
    if (s->stamp == stamp) {
      ++it;
      continue;
    }
    // Changed: new snapshots (the stamp was taken first: a write meanwhile shows next time).
    auto conn = open_snapshot(s->db_path);
    if (!conn.ok()) {
      it = stores_.erase(it);  // gone or no longer readable: as above
      continue;
    }
    std::lock_guard idle(s->mu);
    s->idle.clear();
    s->idle.push_back(std::move(conn).value());
    s->stamp = std::move(stamp);
    ++it;
  }
}

std::unique_ptr<StoreCatalog::Store> StoreCatalog::open_store(const std::string& dir, const std::string& db_path) {
  std::string stamp = store_stamp(db_path);  // before the snapshot: a write after it shows next time
  auto conn = open_snapshot(db_path);
  if (!conn.ok()) {
    record(conn.error());
    return nullptr;
  }
  auto store = std::make_unique<Store>();
  store->db_path = db_path;
  store->dir = dir;
  store->stamp = std::move(stamp);
  store->idle.push_back(std::move(conn).value());
  return store;
}

StoreCatalog::Store* StoreCatalog::open_slot(const std::string& store_dir) {
  Slot* slot = nullptr;
  {
    std::lock_guard lock(mu_);
    slot = &stores_[db_in(store_dir)];
  }
  // Opening a store checks its files and schema: outside the catalog's lock.
  std::call_once(slot->once, [&] {
    auto opened = open_store(store_dir, db_in(store_dir));
    std::lock_guard published(mu_);
    slot->store = std::move(opened);
  });
  std::lock_guard lock(mu_);
  return slot->store.get();
}

std::vector<StoreCatalog::Store*> StoreCatalog::covering(const std::string& dir) {
  {
    std::lock_guard lock(mu_);
    if (auto it = covering_.find(dir); it != covering_.end()) return it->second;
  }
  // Every store at or above the directory (store_locator.h): the parent's answer plus this
  // directory's own store, nearest first.
  std::vector<Store*> found;
  struct stat st {};
  if (::lstat(db_in(dir).c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
    if (Store* s = open_slot(dir)) found.push_back(s);
  }
  const std::vector<std::string> up = reader_store_dirs(dir);
  if (up.size() > 1) {
    const std::vector<Store*> above = covering(up[1]);
    found.insert(found.end(), above.begin(), above.end());
  }
  std::lock_guard lock(mu_);
  // A walk asks once per directory (an ATB token is ~1,000 of them): the answers kept are
  // bounded, so that a long walk's memory does not grow with its directories. Forgotten ones
  // are found again from their parents (an lstat each).
  if (covering_.size() >= kMaxCoveringDirs) covering_.clear();
  covering_.emplace(dir, found);
  return found;
}

StoredList StoreCatalog::names_of(Store& s, const std::string& dir) {
  auto conn = take_connection(s);
  if (!conn.ok()) {
    record(conn.error());
    return nullptr;
  }
  auto owned = std::make_shared<OwnedNames>();
  std::vector<std::pair<size_t, size_t>> at;  // each name's offset and size in owned->bytes
  Status listed = (*conn)->list_dir(relative_to(s.dir, dir), [&](int64_t id, std::string_view name) {
    at.emplace_back(owned->bytes.size(), name.size());
    owned->bytes.append(name);
    owned->names.push_back(StoredName{{}, id, &s.db_path});
  });
  give_back(&s, std::move(conn).value());
  if (!listed.ok()) {
    record(listed.error());
    return nullptr;
  }
  if (owned->names.empty()) return nullptr;
  for (size_t i = 0; i < at.size(); ++i)
    owned->names[i].name = std::string_view(owned->bytes).substr(at[i].first, at[i].second);
  auto by_name = [](const StoredName& a, const StoredName& b) { return a.name < b.name; };
  if (!std::is_sorted(owned->names.begin(), owned->names.end(), by_name))  // a damaged index
    std::sort(owned->names.begin(), owned->names.end(), by_name);
  return view_of(std::move(owned));
}

StoredList StoreCatalog::stored_in(const std::string& given, const std::string** db_path) {
  const std::string dir = normal_dir(given);
  if (dir.empty()) return nullptr;
  std::vector<StoredList> lists;  // nearest store first
  for (Store* s : covering(dir)) {
    if (StoredList names = names_of(*s, dir)) lists.push_back(std::move(names));
  }
  if (lists.empty()) return nullptr;
  if (db_path != nullptr) *db_path = lists.front()->front().db;
  if (lists.size() == 1) return lists.front();
  // Several stores record files here: for a name more than one holds, the nearest store's entry
  // (the one writers keep adding to, store_locator.h). set_union keeps the first range's of equals.
  auto merged = std::make_shared<OwnedNames>();
  auto by_name = [](const StoredName& a, const StoredName& b) { return a.name < b.name; };
  for (const StoredList& names : lists) {
    std::vector<StoredName> next;
    next.reserve(merged->names.size() + names->size());
    std::set_union(merged->names.begin(), merged->names.end(), names->begin(), names->end(), std::back_inserter(next),
                   by_name);
    merged->names = std::move(next);
  }
  merged->parts = std::move(lists);
  return view_of(std::move(merged));
}

std::optional<StoredFile> StoreCatalog::find(const std::string& raw_path) {
  const size_t slash = raw_path.rfind('/');
  const std::string dir = normal_dir(slash == std::string::npos ? "." : slash == 0 ? "/" : raw_path.substr(0, slash));
  const std::string name = slash == std::string::npos ? raw_path : raw_path.substr(slash + 1);
  if (dir.empty() || name.empty()) return std::nullopt;
  for (Store* s : covering(dir)) {  // nearest first
    std::string rel = relative_to(s->dir, dir);
    rel = rel.empty() ? name : rel + '/' + name;
    auto conn = take_connection(*s);
    if (!conn.ok()) {
      record(conn.error());
      continue;
    }
    Result<std::optional<int64_t>> id = (*conn)->find_id(rel);
    give_back(s, std::move(conn).value());
    if (!id.ok()) record(id.error());
    else if (id->has_value()) return StoredFile{**id, &s->db_path};
  }
  return std::nullopt;
}

std::vector<std::string> StoreCatalog::stored_subdirs(const std::string& given) {
  const std::string dir = normal_dir(given);
  if (dir.empty()) return {};
  std::set<std::string> names;
  for (Store* s : covering(dir)) {
    auto conn = take_connection(*s);
    if (!conn.ok()) {
      record(conn.error());
      continue;
    }
    Status listed =
        (*conn)->list_subdirs(relative_to(s->dir, dir), [&](std::string_view name) { names.emplace(name); });
    give_back(s, std::move(conn).value());
    if (!listed.ok()) record(listed.error());
  }
  return {names.begin(), names.end()};
}

Result<std::unique_ptr<SummaryStore>> StoreCatalog::take_connection(Store& s) {
  {
    std::lock_guard lock(s.mu);
    s.untaken = 0;
    if (!s.idle.empty()) {
      std::unique_ptr<SummaryStore> conn = std::move(s.idle.back());
      s.idle.pop_back();
      return conn;
    }
  }
  return open_snapshot(s.db_path);
}

Result<std::unique_ptr<SummaryStore>> StoreCatalog::take_connection(const std::string& db_path, Store** store) {
  Store* s = nullptr;
  {
    std::lock_guard lock(mu_);
    auto it = stores_.find(db_path);
    if (it != stores_.end()) s = it->second.store.get();
  }
  if (s == nullptr) return make_error(db_path, Stage::kStore, "summary store not open");
  *store = s;
  return take_connection(*s);
}

void StoreCatalog::give_back(Store* s, std::unique_ptr<SummaryStore> conn) {
  std::lock_guard lock(s->mu);
  s->idle.push_back(std::move(conn));
}

template <class T, class Fn>
Result<T> StoreCatalog::with_connection(const std::string& db_path, Fn&& fn) {
  Store* s = nullptr;
  MSIT_ASSIGN_OR_RETURN(std::unique_ptr<SummaryStore> conn, take_connection(db_path, &s));
  Result<T> out = fn(*conn);
  give_back(s, std::move(conn));
  return out;
}

Result<FileSummary> StoreCatalog::load(const std::string& db_path, int64_t id) {
  return with_connection<FileSummary>(db_path, [&](SummaryStore& conn) { return conn.load(id); });
}

void StoreCatalog::load_many(const std::string& db_path, const std::vector<int64_t>& ids,
                             std::vector<std::optional<Result<FileSummary>>>& out) {
  Store* s = nullptr;
  auto conn = take_connection(db_path, &s);
  if (!conn.ok()) {
    out.assign(ids.size(), Result<FileSummary>(conn.error()));
    return;
  }
  (*conn)->load_many(ids, out);
  give_back(s, std::move(conn).value());
}

Result<uint64_t> StoreCatalog::raw_size(const std::string& db_path, int64_t id) {
  return with_connection<uint64_t>(db_path, [&](SummaryStore& conn) { return conn.raw_size(id); });
}

std::vector<Error> StoreCatalog::take_errors() {
  std::lock_guard lock(mu_);
  return std::exchange(errors_, {});
}

}  // namespace msit::store
