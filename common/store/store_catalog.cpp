#include "common/store/store_catalog.h"

#include "common/store/store_locator.h"

#include <sys/stat.h>

#include <xxhash.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <ctime>
#include <filesystem>
#include <iterator>
#include <random>
#include <utility>

namespace msit::store {
namespace {

std::string db_in(const std::string& dir) { return join_dir(dir, kStoreFileName); }

// A listed row's share of a store's digest (StoreCatalog::list_appended): XXH3 of its path,
// seeded with its id and a key drawn once per process, so that a store's writer cannot make a
// changed row hash like the one it replaces; summed, so that the order of rows does not matter.
uint64_t row_hash(int64_t id, std::string_view rel) {
  static const uint64_t key = [] {
    std::random_device rd;
    return (uint64_t{rd()} << 32) ^ rd();
  }();
  return XXH3_64bits_withSeed(rel.data(), rel.size(), key ^ (static_cast<uint64_t>(id) * 0x9E3779B97F4A7C15ULL));
}

}  // namespace

void StoreCatalog::Store::add(int64_t id, std::string_view rel) {
  const size_t slash = rel.rfind('/');
  const std::string_view sub = slash == std::string_view::npos ? std::string_view() : rel.substr(0, slash);
  // Rows mostly come in runs of one directory (path order, or id order of a dump being
  // summarised): its list is looked up once per run, not once per row.
  if (last_list_ == nullptr || sub != last_sub_) {
    last_sub_ = sub;
    auto [it, fresh] = by_dir.try_emplace(last_sub_);
    last_list_ = &it->second;
    if (fresh) add_subdirs(last_sub_);
  }
  const std::string_view name = slash == std::string_view::npos ? rel : rel.substr(slash + 1);
  if (!last_list_->empty() && name < last_list_->back().name && (unsorted_.empty() || unsorted_.back() != last_list_))
    unsorted_.push_back(last_list_);  // new rows of an old directory, or a damaged index
  last_list_->push_back(StoredName{names.keep(name), id, &db_path});
  max_id = rows == 0 ? id : std::max(max_id, id);
  ++rows;
  digest += row_hash(id, rel);
}

void StoreCatalog::Store::add_subdirs(std::string_view rel) {
  // "a/b/c": c in a/b, b in a, a in "" (stop at the first already known: its ancestors are too).
  while (!rel.empty()) {
    const size_t slash = rel.rfind('/');
    const std::string parent(slash == std::string_view::npos ? std::string_view() : rel.substr(0, slash));
    const std::string_view name = slash == std::string_view::npos ? rel : rel.substr(slash + 1);
    if (!subdirs[parent].emplace(name).second) return;
    rel = rel.substr(0, slash == std::string_view::npos ? 0 : slash);
  }
}

std::string_view StoreCatalog::NameArena::keep(std::string_view s) {
  constexpr size_t kBlock = 1 << 20;
  if (s.size() > left_) {
    const size_t size = std::max(kBlock, s.size());
    blocks_.push_back(std::make_unique_for_overwrite<char[]>(size));  // not zeroed: written as filled
    next_ = blocks_.back().get();
    left_ = size;
  }
  std::copy(s.begin(), s.end(), next_);
  std::string_view kept(next_, s.size());
  next_ += s.size();
  left_ -= s.size();
  return kept;
}

StoreCatalog& StoreCatalog::instance() {
  static StoreCatalog catalog;
  return catalog;
}

void StoreCatalog::forget_all() {
  std::lock_guard<std::mutex> lock(mu_);
  merged_.clear();
  covering_.clear();
  stores_.clear();  // closes their read connections
  errors_.clear();
}

namespace {

// What changes when a store is written: its database file or its write-ahead log. A file
// written in the last second or two gets a stamp that matches no other: the kernel stamps
// mtime from a coarse clock (a tick of up to 10 ms, a second on some filesystems), so a second
// write in the same tick that leaves the size as it was (a WAL rewritten from its start after
// a checkpoint) would keep the stamp taken between the two, and its rows would never be listed
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

}  // namespace

void StoreCatalog::forget_changed() {
  std::lock_guard<std::mutex> lock(mu_);
  merged_.clear();
  covering_.clear();
  errors_.clear();
  for (auto it = stores_.begin(); it != stores_.end();) {
    Store* s = it->second.store.get();
    if (s != nullptr && (s->stamp == store_stamp(s->db_path) || list_appended(*s))) ++it;
    else it = stores_.erase(it);  // changed otherwise, gone or unreadable: opened and listed afresh
  }
}

void StoreCatalog::Store::sort_names() {
  auto by_name = [](const StoredName& a, const StoredName& b) { return a.name < b.name; };
  std::sort(unsorted_.begin(), unsorted_.end());
  unsorted_.erase(std::unique(unsorted_.begin(), unsorted_.end()), unsorted_.end());
  for (std::vector<StoredName>* list : unsorted_) std::sort(list->begin(), list->end(), by_name);
  unsorted_.clear();
}

bool StoreCatalog::list_appended(Store& s) {
  if (s.rows == 0 || s.max_id == INT64_MAX) return false;  // nothing to keep, or no room for more ids
  std::string stamp = store_stamp(s.db_path);              // before reading: a write during it shows next time
  auto conn = SummaryStore::open_read_only(s.db_path);
  if (!conn.ok() || !(*conn)->begin_snapshot().ok()) return false;
  // The rows listed before, as this snapshot has them: a walk of the id range that builds
  // nothing (a hash per row), instead of a listing of every row.
  int64_t rows = 0;
  uint64_t digest = 0;
  Status same = (*conn)->list_ids(INT64_MIN, s.max_id, [&](int64_t id, std::string_view rel) {
    ++rows;
    digest += row_hash(id, rel);
  });
  if (!same.ok() || rows != s.rows || digest != s.digest) return false;
  s.last_list_ = nullptr;
  Status added = (*conn)->list_ids(s.max_id + 1, INT64_MAX, [&](int64_t id, std::string_view rel) { s.add(id, rel); });
  if (!added.ok()) return false;  // half added: the caller drops the store
  s.sort_names();
  s.stamp = std::move(stamp);
  std::lock_guard idle(s.mu);
  s.idle.clear();  // loads read the new snapshot
  s.idle.push_back(std::move(conn).value());
  return true;
}

std::unique_ptr<StoreCatalog::Store> StoreCatalog::open_store(const std::string& dir, const std::string& db_path) {
  std::string stamp = store_stamp(db_path);  // before listing: a write during it shows next time
  auto failed = [&](const Error& e) {
    std::lock_guard lock(mu_);
    errors_.push_back(e);
    return nullptr;
  };
  auto s = SummaryStore::open_read_only(db_path);
  Status snap = s.ok() ? (*s)->begin_snapshot() : Status(s.error());
  if (!snap.ok()) return failed(snap.error());
  auto store = std::make_unique<Store>();
  store->db_path = db_path;
  store->dir = dir;
  store->stamp = std::move(stamp);
  Status listed = (*s)->list([&](int64_t id, std::string_view rel) { store->add(id, rel); });
  if (!listed.ok()) return failed(listed.error());
  store->sort_names();
  // Memory (docs/live-divergence.md "Cost"): a golden of 100,000s of files is listed once and
  // kept; grown by doubling, its per-directory lists would hold ~40% unused slots.
  for (auto& [sub, list] : store->by_dir) list.shrink_to_fit();
  store->idle.push_back(std::move(s).value());
  return store;
}

StoreCatalog::Store* StoreCatalog::open_slot(const std::string& store_dir) {
  Slot* slot = nullptr;
  {
    std::lock_guard lock(mu_);
    slot = &stores_[db_in(store_dir)];
  }
  // Listing a store of 100,000s of files takes tens of ms: outside the catalog's lock.
  std::call_once(slot->once, [&] {
    auto opened = open_store(store_dir, db_in(store_dir));
    std::lock_guard published(mu_);
    slot->store = std::move(opened);
  });
  std::lock_guard lock(mu_);
  return slot->store.get();
}

const std::vector<StoreCatalog::Store*>& StoreCatalog::covering(const std::string& dir) {
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
    const std::vector<Store*>& above = covering(up[1]);
    found.insert(found.end(), above.begin(), above.end());
  }
  std::lock_guard lock(mu_);
  return covering_.emplace(dir, std::move(found)).first->second;  // unordered_map: references stay valid
}

const std::vector<StoredName>* StoreCatalog::stored_in(const std::string& dir, std::string* db_path) {
  const std::string* db = nullptr;
  const auto* names = stored_in(dir, &db);
  if (names != nullptr && db_path != nullptr) *db_path = *db;
  return names;
}

const std::vector<StoredName>* StoreCatalog::stored_in(const std::string& given, const std::string** db_path) {
  std::error_code ec;
  std::string dir = std::filesystem::absolute(given, ec).lexically_normal().string();
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  if (ec || dir.empty()) return nullptr;
  // A listed store's by_dir no longer changes: read without the lock.
  std::vector<std::pair<Store*, const std::vector<StoredName>*>> lists;
  for (Store* s : covering(dir)) {
    std::string sub;
    if (dir.size() > s->dir.size()) sub = dir.substr(s->dir == "/" ? 1 : s->dir.size() + 1);
    auto it = s->by_dir.find(sub);
    if (it != s->by_dir.end()) lists.emplace_back(s, &it->second);
  }
  if (lists.empty()) return nullptr;
  if (db_path != nullptr) *db_path = &lists.front().first->db_path;
  if (lists.size() == 1) return lists.front().second;
  return merged(dir, lists);
}

std::vector<std::string> StoreCatalog::stored_subdirs(const std::string& given) {
  std::error_code ec;
  std::string dir = std::filesystem::absolute(given, ec).lexically_normal().string();
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  if (ec || dir.empty()) return {};
  std::set<std::string> names;
  for (Store* s : covering(dir)) {
    std::string sub;
    if (dir.size() > s->dir.size()) sub = dir.substr(s->dir == "/" ? 1 : s->dir.size() + 1);
    auto it = s->subdirs.find(sub);
    if (it != s->subdirs.end()) names.insert(it->second.begin(), it->second.end());
  }
  return {names.begin(), names.end()};
}

// The names of several stores for one directory, the nearest store's entry for a name that
// more than one holds (the one writers keep adding to, store_locator.h).
const std::vector<StoredName>* StoreCatalog::merged(
    const std::string& dir, const std::vector<std::pair<Store*, const std::vector<StoredName>*>>& lists) {
  std::lock_guard lock(mu_);
  if (auto it = merged_.find(dir); it != merged_.end()) return it->second.get();
  auto out = std::make_unique<std::vector<StoredName>>();
  auto by_name = [](const StoredName& a, const StoredName& b) { return a.name < b.name; };
  for (const auto& [store, names] : lists) {  // nearest first: set_union keeps the first range's of equals
    std::vector<StoredName> next;
    next.reserve(out->size() + names->size());
    std::set_union(out->begin(), out->end(), names->begin(), names->end(), std::back_inserter(next), by_name);
    *out = std::move(next);
  }
  return merged_.emplace(dir, std::move(out)).first->second.get();
}

const StoredName* StoreCatalog::find(const std::string& raw_path, std::string* db_path) {
  const std::string* db = nullptr;
  const StoredName* n = find(raw_path, &db);
  if (n != nullptr && db_path != nullptr) *db_path = *db;
  return n;
}

const StoredName* StoreCatalog::find(const std::string& raw_path, const std::string** db_path) {
  size_t slash = raw_path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : raw_path.substr(0, slash);
  const std::string name = slash == std::string::npos ? raw_path : raw_path.substr(slash + 1);
  const auto* names = stored_in(dir, db_path);
  if (names == nullptr) return nullptr;
  auto it = std::lower_bound(names->begin(), names->end(), name,
                             [](const StoredName& a, const std::string& n) { return a.name < n; });
  if (it == names->end() || it->name != name) return nullptr;
  if (db_path != nullptr) *db_path = it->db;  // the store holding this name, not just the nearest
  return &*it;
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
  {
    std::lock_guard lock(s->mu);
    if (!s->idle.empty()) {
      std::unique_ptr<SummaryStore> conn = std::move(s->idle.back());
      s->idle.pop_back();
      return conn;
    }
  }
  MSIT_ASSIGN_OR_RETURN(std::unique_ptr<SummaryStore> conn, SummaryStore::open_read_only(db_path));
  MSIT_TRY(conn->begin_snapshot());
  return conn;
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
