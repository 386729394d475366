// Planted side files of summary stores, looked at again each second and named once a minute.
#include "daemon/refused_stores.h"

#include <sys/stat.h>

#include "common/io/derived_names.h"

namespace msit::daemon {
namespace {

// The side file's owner and its store's owner, or false when the file is gone or no longer
// another owner's (nothing to report any more).
bool still_foreign(const std::string& file, RefusedStoreFile& f) {
  struct stat side {
  }, db{};
  const size_t slash = file.rfind('/');
  if (slash == std::string::npos || ::lstat(file.c_str(), &side) != 0) return false;
  const std::string store = file.substr(0, slash + 1) + std::string(kStoreFileName);
  if (::lstat(store.c_str(), &db) != 0 || side.st_uid == db.st_uid) return false;
  f.owner = side.st_uid;
  f.store_owner = db.st_uid;
  return true;
}

}  // namespace

void RefusedStores::note(const std::string& file) {
  if (files_.count(file) != 0) return;
  if (files_.size() >= kMaxFiles) {
    ++not_named_;
    return;
  }
  Entry e;
  e.f.file = file;
  if (still_foreign(file, e.f)) files_.emplace(file, std::move(e));
}

std::vector<std::string> RefusedStores::tick(int64_t now_ns) {
  std::vector<std::string> lines;
  for (auto it = files_.begin(); it != files_.end();) {
    Entry& e = it->second;
    if (!still_foreign(it->first, e.f)) {
      lines.push_back(it->first + ": gone or the store's owner's now; its store is written again");
      it = files_.erase(it);
      continue;
    }
    if (e.logged_ns < 0 || now_ns - e.logged_ns >= kLogEveryNs) {
      e.logged_ns = now_ns;
      lines.push_back(it->first + ": belongs to uid " + std::to_string(e.f.owner) + ", not to uid " +
                      std::to_string(e.f.store_owner) +
                      " that owns the summary store beside it: the store is refused (its rows could be forged) and "
                      "every raw file it would take is kept. Find out who made this file, then remove it (said "
                      "once a minute while it is there)");
    }
    ++it;
  }
  return lines;
}

std::vector<RefusedStoreFile> RefusedStores::files() const {
  std::vector<RefusedStoreFile> out;
  for (const auto& [path, e] : files_) out.push_back(e.f);
  return out;
}

}  // namespace msit::daemon
