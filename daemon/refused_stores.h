// Summary stores refused because another user put a side file beside them (a planted -wal):
// still refused, but loud: named with its owner in the status file, `status` and one log line
// a minute each, rather than a pile of raw files nobody notices (docs/safety.md R6).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace msit::daemon {

struct RefusedStoreFile {
  std::string file;       // the side file (absolute path)
  uid_t owner = 0;        // its owner
  uid_t store_owner = 0;  // the store's owner
};

class RefusedStores {
 public:
  static constexpr size_t kMaxFiles = 64;  // more are counted, not named
  static constexpr int64_t kLogEveryNs = 60'000'000'000;

  // A job failed at Stage::kStoreOwner on `file`.
  void note(const std::string& file);
  // Looks at each noted file again (lstat, no link followed): one that is gone or has the
  // store's owner now is forgotten (the store is taken again by the next attempt). Returns the
  // log lines due at `now_ns`: one per file and minute.
  std::vector<std::string> tick(int64_t now_ns);
  std::vector<RefusedStoreFile> files() const;
  uint64_t not_named() const { return not_named_; }

 private:
  struct Entry {
    RefusedStoreFile f;
    int64_t logged_ns = -1;
  };
  std::map<std::string, Entry> files_;
  uint64_t not_named_ = 0;
};

}  // namespace msit::daemon
