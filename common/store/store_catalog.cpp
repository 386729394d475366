#include "common/store/store_catalog.h"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <utility>

namespace msit::store {
namespace {

std::string parent_of(const std::string& dir) {
  size_t slash = dir.rfind('/');
  if (slash == std::string::npos) return {};
  return slash == 0 ? std::string("/") : dir.substr(0, slash);
}

std::string db_in(const std::string& dir) {
  return dir == "/" ? "/" + std::string(kStoreFileName) : dir + "/" + std::string(kStoreFileName);
}

}  // namespace

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

std::unique_ptr<StoreCatalog::Store> StoreCatalog::open_store(const std::string& dir, const std::string& db_path) {
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
  // Rows come in path order, so a directory's names mostly come in one run: its list is looked
  // up once per run of them, not once per row (a store lists 100,000s of files).
  std::string last_sub;
  std::vector<StoredName>* last = nullptr;
  Status listed = (*s)->list([&](int64_t id, std::string_view rel) {
    size_t slash = rel.rfind('/');
    std::string_view sub = slash == std::string_view::npos ? std::string_view() : rel.substr(0, slash);
    if (last == nullptr || sub != last_sub) {
      last_sub = sub;
      last = &store->by_dir[last_sub];
    }
    last->push_back(StoredName{store->names.keep(slash == std::string_view::npos ? rel : rel.substr(slash + 1)), id});
  });

  if (!listed.ok()) return failed(listed.error());
  auto by_name = [](const StoredName& a, const StoredName& b) { return a.name < b.name; };
  for (auto& [sub, names] : store->by_dir) {  // in order already, unless the index is damaged
    if (!std::is_sorted(names.begin(), names.end(), by_name)) std::sort(names.begin(), names.end(), by_name);
  }
  store->idle.push_back(std::move(s).value());
  return store;
}

StoreCatalog::Store* StoreCatalog::covering(const std::string& dir) {
  std::vector<std::string> walked;  // directories answered by what the walk up finds
  Slot* slot = nullptr;
  std::string store_dir;
  std::unique_lock lock(mu_);
  for (std::string d = dir;;) {
    auto it = covering_.find(d);
    if (it != covering_.end()) {
      for (auto& w : walked) covering_.emplace(std::move(w), it->second);
      return it->second;
    }
    walked.push_back(d);
    const std::string db = db_in(d);
    struct stat st {};
    if (::lstat(db.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
      slot = &stores_[db];
      store_dir = d;
      break;
    }
    std::string up = parent_of(d);
    if (up.empty() || up == d) break;
    d = std::move(up);
  }
  if (slot != nullptr) {
    lock.unlock();  // listing a store of 100,000s of files takes tens of ms
    std::call_once(slot->once, [&] {
      auto opened = open_store(store_dir, db_in(store_dir));
      std::lock_guard published(mu_);
      slot->store = std::move(opened);
    });
    lock.lock();
  }
  Store* found = slot != nullptr ? slot->store.get() : nullptr;
  for (auto& w : walked) covering_.emplace(std::move(w), found);
  return found;
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
  Store* s = covering(dir);  // a listed store's by_dir no longer changes: read without the lock
  if (s == nullptr) return nullptr;
  std::string sub;
  if (dir.size() > s->dir.size()) sub = dir.substr(s->dir == "/" ? 1 : s->dir.size() + 1);
  auto it = s->by_dir.find(sub);
  if (it == s->by_dir.end()) return nullptr;
  if (db_path != nullptr) *db_path = &s->db_path;
  return &it->second;
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
  return it != names->end() && it->name == name ? &*it : nullptr;
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
