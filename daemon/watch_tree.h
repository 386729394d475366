// Recursive inotify watches over the dump roots: new directories are watched first, then
// scanned; vanished directories drop their watches. Roots are pinned (common/safety/pinned_root.h):
// every directory is reached from the root's fd without following symlinks, a root that moves
// or is replaced is dropped with everything below it, and missing roots are polled until a
// directory is at the path again (docs/safety.md, P1-P3).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/safety/beneath.h"
#include "common/safety/pinned_root.h"
#include "daemon/event_source.h"
#include "daemon/log.h"

namespace msit::daemon {

struct TreeHooks {
  // A file that may be a raw dump: from an event (closed or renamed into place) or a scan.
  std::function<void(const std::string& path, bool from_event)> candidate;
  // A `.msit-tmp.*` or `.msit-claim.*` name found by a scan (the watcher decides what to do).
  std::function<void(const std::string& path)> leftover;
  std::function<bool(const std::string& dir, std::string_view name)> is_candidate;
  // A root was pinned (at start, or a directory is at its path again): false refuses it (its
  // fd is let go; it is tried again at the next poll). May be empty: every root is accepted.
  std::function<bool(const std::shared_ptr<const RootHandle>& root)> root_attached;
  // A pinned root was let go (moved away, removed, replaced, or by request).
  std::function<void(const RootHandle& root, const std::string& why)> root_dropped;
};

// Asked between two files of a scan: true ends the scan there (the daemon is stopping).
using ScanStopFn = std::function<bool()>;

// A path below an attached root: the root's handle and the path relative to it.
struct Located {
  std::shared_ptr<const RootHandle> root;
  std::string rel;
};

// How many watches all roots together may take: a share of the user's inotify watch limit, so
// a user who makes thousands of directories cannot take the watches another service of the
// same user (root's, in a container) needs (docs/daemon.md "Limits").
struct WatchShare {
  size_t max_watches = SIZE_MAX;
  uint32_t percent = 100;
  uint64_t user_limit = 0;  // fs.inotify.max_user_watches; 0: unknown (no share taken)
};
WatchShare watch_share_of(uint32_t percent, std::optional<uint64_t> user_limit);

class WatchTree {
 public:
  // At most `max_watches_per_root` directory watches per root: a user creating millions of
  // directories cannot use up root's inotify budget or the daemon's memory. Beyond the cap a
  // root is "degraded": further directories are listed by the periodic full rescans only.
  WatchTree(EventSource& source, Logger& log, std::vector<std::string> roots, size_t max_watches_per_root,
            TreeHooks hooks);

  void set_share(const WatchShare& share) { share_ = share; }

  // Pins every root that is not attached and is at its path now; false when a hook refused one.
  bool attach_roots();
  // Checks that every attached root is still in place (dropping those that are not), watches
  // and scans the attached ones, and attaches those that appeared. A `stop` that turns true
  // ends the scan before the next file (the start-up scan of a stopping daemon): what is not
  // listed yet is found by the next scan.
  void scan_all(const ScanStopFn& stop = {});
  void handle(const FsEvent& e);
  // Drops roots that moved; attaches roots that have appeared since the last call.
  void poll_roots();
  // Lists again the directories that could not be watched (watch limit reached).
  void rescan_unwatched();
  // Lets the root at `path` go (the service lost its lock); it is attached again by poll_roots().
  void drop_root(const std::string& path, const std::string& why);

  // The attached root enclosing `path` (innermost) and the rest of the path, or nullopt.
  std::optional<Located> locate(const std::string& path) const;
  // `path` reached from its pinned root without following symlinks.
  Result<FileRef> file_ref(const std::string& path) const;

  size_t watch_count() const { return wd_path_.size(); }
  size_t unwatched_count() const { return unwatched_.size(); }
  size_t capped_roots() const;  // roots at the watch cap or beyond the share
  bool share_reached() const { return share_warned_; }
  size_t missing_roots() const;
  uint64_t overflows() const { return overflows_; }

 private:
  void establish(size_t root, const std::string& rel_top, const ScanStopFn& stop = {});
  void scan_entries(int dir_fd, const std::string& dir, const std::string& rel, std::vector<std::string>& subdirs,
                    const ScanStopFn& stop);
  void watch_one(int dir_fd, const std::string& dir);
  void drop_subtree(const std::string& dir);
  void drop(size_t root, const std::string& why);
  bool attach(size_t root);
  int root_index(const std::string& dir) const;
  std::string join(size_t root, const std::string& rel) const;
  int root_of(const std::string& dir) const;  // the root `dir` is in (longest match), or -1
  // Drops one watch from the maps and its root's count.
  void forget_wd(std::unordered_map<int, std::string>::iterator w);
  bool at_cap(const std::string& dir);
  void remember_unwatched(const std::string& dir);  // bounded: kMaxUnwatchedListed

  EventSource& source_;
  Logger& log_;
  std::vector<PinnedRoot> roots_;
  std::vector<std::string> root_warned_;  // the last "not attached" reason logged, per root
  TreeHooks hooks_;
  std::map<std::string, int> path_wd_;  // ordered: a subtree is one key range
  std::unordered_map<int, std::string> wd_path_;
  std::unordered_map<int, int> wd_root_;  // which root's count each watch is in
  size_t max_watches_per_root_;
  std::vector<size_t> root_watches_;
  std::vector<bool> root_capped_;    // at the cap (logged once per episode)
  std::set<std::string> unwatched_;  // bounded (kMaxUnwatchedListed); the rest wait for full rescans
  bool limit_warned_ = false;
  WatchShare share_;
  bool share_warned_ = false;  // at the share (logged once per episode)
  uint64_t overflows_ = 0;
};

}  // namespace msit::daemon
