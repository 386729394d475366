// Recursive inotify watches over the dump roots: new directories are watched first, then
// scanned; vanished directories drop their watches; missing roots are polled until they appear.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "daemon/event_source.h"
#include "daemon/log.h"

namespace msit::daemon {

struct TreeHooks {
  // A file that may be a raw dump: from an event (closed or renamed into place) or a scan.
  std::function<void(const std::string& path, bool from_event)> candidate;
  // One of our own temp or claim files, found by a scan (the watcher decides what to do).
  std::function<void(const std::string& path)> temp_file;
  std::function<void(const std::string& path)> claim_file;
  std::function<bool(const std::string& dir, std::string_view name)> is_candidate;
};

class WatchTree {
 public:
  // At most `max_watches_per_root` directory watches per root: a user creating millions of
  // directories cannot use up root's inotify budget or the daemon's memory. Beyond the cap a
  // root is "degraded": further directories are listed by the periodic full rescans only.
  WatchTree(EventSource& source, Logger& log, std::vector<std::string> roots, size_t max_watches_per_root,
            TreeHooks hooks);

  // Watches and scans every root that exists now; the others wait for poll_roots().
  void scan_all();
  void handle(const FsEvent& e);
  // Establishes roots that have appeared since the last call.
  void poll_roots();
  // Lists again the directories that could not be watched (watch limit reached).
  void rescan_unwatched();

  size_t watch_count() const { return wd_path_.size(); }
  size_t unwatched_count() const { return unwatched_.size(); }
  size_t capped_roots() const;  // roots at the watch cap
  size_t missing_roots() const;
  uint64_t overflows() const { return overflows_; }
  const std::vector<std::string>& roots() const { return roots_; }

 private:
  void establish(const std::string& dir);
  void scan_entries(const std::string& dir, std::vector<std::string>& subdirs);
  void watch_one(const std::string& dir);
  void drop_subtree(const std::string& dir);
  int root_index(const std::string& dir) const;
  int root_of(const std::string& dir) const;  // the root `dir` is in (longest match), or -1
  // Drops one watch from the maps and its root's count.
  void forget_wd(std::unordered_map<int, std::string>::iterator w);
  bool at_cap(const std::string& dir);

  EventSource& source_;
  Logger& log_;
  std::vector<std::string> roots_;
  std::vector<bool> root_present_;
  std::vector<bool> root_warned_;
  TreeHooks hooks_;
  std::map<std::string, int> path_wd_;  // ordered: a subtree is one key range
  std::unordered_map<int, std::string> wd_path_;
  std::unordered_map<int, int> wd_root_;  // which root's count each watch is in
  size_t max_watches_per_root_;
  std::vector<size_t> root_watches_;
  std::vector<bool> root_capped_;    // at the cap (logged once per episode)
  std::set<std::string> unwatched_;  // bounded (kMaxUnwatchedListed); the rest wait for full rescans
  bool limit_warned_ = false;
  uint64_t overflows_ = 0;
};

}  // namespace msit::daemon
