// Recursive inotify watches over pinned roots: new directories are watched first, then
// scanned; vanished directories drop their watches; a root that moves is dropped, and a root
// that is missing is polled until a directory (never a symlink) is at its path.
#include "daemon/watch_tree.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "common/base/unique_fd.h"
#include "common/io/atomic_write.h"
#include "common/io/derived_names.h"
#include "common/io/tree_walk.h"

namespace msit::daemon {

namespace {
// Directories that failed to get a watch (limit, errors) and are re-listed every 2 s; beyond
// this many, they are left to the full rescans like the directories beyond the cap.
constexpr size_t kMaxUnwatchedListed = 4096;
}  // namespace

WatchTree::WatchTree(EventSource& source, Logger& log, std::vector<std::string> roots, size_t max_watches_per_root,
                     TreeHooks hooks)
    : source_(source), log_(log), root_warned_(roots.size()), hooks_(std::move(hooks)),
      max_watches_per_root_(max_watches_per_root), root_watches_(roots.size(), 0), root_capped_(roots.size(), false) {
  for (auto& r : roots) roots_.emplace_back(std::move(r));
}

int WatchTree::root_of(const std::string& dir) const {
  int best = -1;
  for (size_t i = 0; i < roots_.size(); ++i) {
    const std::string& r = roots_[i].path();
    const bool in =
        dir == r || (dir.size() > r.size() && dir.compare(0, r.size(), r) == 0 && (dir[r.size()] == '/' || r == "/"));
    if (in && (best < 0 || r.size() > roots_[best].path().size())) best = static_cast<int>(i);
  }
  return best;
}

size_t WatchTree::capped_roots() const {
  size_t n = 0;
  for (bool c : root_capped_) n += c ? 1 : 0;
  return n;
}

void WatchTree::forget_wd(std::unordered_map<int, std::string>::iterator w) {
  auto r = wd_root_.find(w->first);
  if (r != wd_root_.end()) {
    if (r->second >= 0 && root_watches_[r->second] > 0) --root_watches_[r->second];
    wd_root_.erase(r);
  }
  wd_path_.erase(w);
  if (wd_path_.size() < share_.max_watches) share_warned_ = false;
  for (size_t i = 0; i < roots_.size(); ++i)
    if (root_watches_[i] < max_watches_per_root_ && !share_warned_) root_capped_[i] = false;
}

WatchShare watch_share_of(uint32_t percent, std::optional<uint64_t> user_limit) {
  WatchShare s;
  s.percent = percent;
  if (!user_limit) return s;
  s.user_limit = *user_limit;
  s.max_watches = static_cast<size_t>(std::max<uint64_t>(1, *user_limit * percent / 100));
  return s;
}

// A directory without a watch yet, in a root that has all the watches it may have.
bool WatchTree::at_cap(const std::string& dir) {
  const int r = root_of(dir);
  if (r < 0 || path_wd_.count(dir) != 0) return false;
  if (root_watches_[r] < max_watches_per_root_) {
    if (wd_path_.size() < share_.max_watches) return false;
    root_capped_[r] = true;
    if (!share_warned_) {
      share_warned_ = true;
      log_.warning(dir + ": " + std::to_string(wd_path_.size()) + " inotify watches taken, max_watch_share (" +
                   std::to_string(share_.percent) + "% of fs.inotify.max_user_watches, " +
                   std::to_string(share_.user_limit) +
                   "): the rest of the limit stays for this user's other services. Directories beyond it get no "
                   "watch and are found by the full rescan (rescan_interval_s) instead; raise "
                   "fs.inotify.max_user_watches or max_watch_share. Said once until watches are freed.");
    }
    return true;
  }
  if (!root_capped_[r]) {
    root_capped_[r] = true;
    log_.warning(roots_[r].path() + ": " + std::to_string(max_watches_per_root_) +
                 " directories watched, the cap (max_watches_per_root): directories beyond it get no "
                 "inotify watch and are found by the full rescan (rescan_interval_s) instead. Said once "
                 "until the tree shrinks below the cap.");
  }
  return true;
}

void WatchTree::remember_unwatched(const std::string& dir) {
  if (unwatched_.size() < kMaxUnwatchedListed) unwatched_.insert(dir);
}

int WatchTree::root_index(const std::string& dir) const {
  for (size_t i = 0; i < roots_.size(); ++i)
    if (roots_[i].attached() && roots_[i].path() == dir) return static_cast<int>(i);
  return -1;
}

std::string WatchTree::join(size_t root, const std::string& rel) const {
  const std::string& p = roots_[root].path();
  if (rel.empty()) return p;
  return p == "/" ? "/" + rel : p + "/" + rel;
}

size_t WatchTree::missing_roots() const {
  size_t n = 0;
  for (const auto& r : roots_) n += r.attached() ? 0 : 1;
  return n;
}

std::optional<Located> WatchTree::locate(const std::string& path) const {
  const PinnedRoot* best = nullptr;
  for (const auto& r : roots_) {
    if (!r.attached()) continue;
    const std::string& p = r.path();
    const bool inside = path == p || (p == "/" ? path.size() > 1 && path.front() == '/'
                                               : path.size() > p.size() + 1 && path.compare(0, p.size(), p) == 0 &&
                                                     path[p.size()] == '/');
    if (inside && (best == nullptr || p.size() > best->path().size())) best = &r;
  }
  if (best == nullptr) return std::nullopt;
  const std::string& p = best->path();
  std::string rel = path == p ? std::string() : path.substr(p == "/" ? 1 : p.size() + 1);
  return Located{best->handle(), std::move(rel)};
}

Result<FileRef> WatchTree::file_ref(const std::string& path) const {
  auto at = locate(path);
  if (!at)
    return make_error(path, Stage::kOpen, "its root was let go of (moved away, removed or replaced); never touched");
  BeneathResolver r(at->root->fd(), at->root->path());
  return r.file(at->rel);
}

bool WatchTree::attach(size_t i) {
  PinnedRoot& root = roots_[i];
  if (root.attached()) return true;
  Result<PinnedRoot::Attach> a = root.attach();
  if (!a.ok()) {
    std::string why = a.error().sys_errno == ENOENT
                          ? root.path() + ": not a directory yet; waiting for it to appear"
                          : a.error().to_string() +
                                "; waiting for a directory at this path (symbolic links at or "
                                "above a root are never followed after start)";
    if (root_warned_[i] != why) log_.info(why);
    root_warned_[i] = std::move(why);
    return false;
  }
  if (hooks_.root_attached && !hooks_.root_attached(root.handle())) {
    root.drop();
    root_warned_[i] = "refused";  // the hook said why
    return false;
  }
  if (*a == PinnedRoot::Attach::kSameAgain)
    log_.info(root.path() + ": the directory watched before is back at this path; watching it again");
  else if (*a == PinnedRoot::Attach::kNewDirectory)
    log_.info(root.path() + ": a new directory is at this path (not the one watched before); watching it");
  else if (!root_warned_[i].empty()) log_.info(root.path() + ": directory appeared; watching it");
  root_warned_[i].clear();
  return true;
}

bool WatchTree::attach_roots() {
  bool ok = true;
  for (size_t i = 0; i < roots_.size(); ++i) {
    if (!attach(i) && root_warned_[i] == "refused") ok = false;
  }
  return ok;
}

void WatchTree::drop(size_t i, const std::string& why) {
  PinnedRoot& root = roots_[i];
  if (!root.attached()) return;
  std::shared_ptr<const RootHandle> h = root.handle();
  drop_subtree(root.path());
  root.drop();
  root_warned_[i] = "dropped";
  log_.warning(root.path() + ": root directory " + why +
               "; its pending work is dropped and nothing is followed to where it went; waiting for a "
               "directory at this path (never a symbolic link)");
  if (hooks_.root_dropped) hooks_.root_dropped(*h, why);
}

void WatchTree::drop_root(const std::string& path, const std::string& why) {
  for (size_t i = 0; i < roots_.size(); ++i)
    if (roots_[i].path() == path) drop(i, why);
}

void WatchTree::scan_all(const ScanStopFn& stop) {
  for (size_t i = 0; i < roots_.size(); ++i) {
    if (stop && stop()) return;
    if (roots_[i].attached() && !roots_[i].in_place()) drop(i, "moved away, removed or replaced");
    if (!roots_[i].attached() && !attach(i)) continue;
    establish(i, "", stop);
  }
}

void WatchTree::poll_roots() {
  for (size_t i = 0; i < roots_.size(); ++i) {
    if (roots_[i].attached()) {
      if (roots_[i].in_place()) continue;
      drop(i, "moved away, removed or replaced");
    }
    if (attach(i)) establish(i, "");
  }
}

void WatchTree::rescan_unwatched() {
  std::set<std::string> dirs;
  dirs.swap(unwatched_);
  for (const auto& d : dirs) {
    auto at = locate(d);
    if (!at) continue;
    for (size_t i = 0; i < roots_.size(); ++i)
      if (roots_[i].handle() == at->root) establish(i, at->rel);
  }
}

void WatchTree::watch_one(int dir_fd, const std::string& dir) {
  if (at_cap(dir)) return;
  Result<int> wd = source_.add_watch(dir_fd, dir);
  if (!wd.ok()) {
    int err = wd.error().sys_errno;
    if (err == ENOSPC) {
      remember_unwatched(dir);
      if (!limit_warned_) {
        limit_warned_ = true;
        log_.warning(dir +
                     ": watch: the inotify watch limit is reached; raise it with "
                     "`sysctl fs.inotify.max_user_watches=1048576` (persist it in "
                     "/etc/sysctl.d/). Until then directories without a watch are rescanned "
                     "periodically.");
      }
    } else if (err != ENOENT && err != ENOTDIR && err != ELOOP) {
      remember_unwatched(dir);
      log_.warning(wd.error().to_string() + "; the directory is rescanned periodically");
    }
    return;
  }
  auto old = wd_path_.find(*wd);
  if (old != wd_path_.end() && old->second != dir) path_wd_.erase(old->second);  // moved dir
  if (old == wd_path_.end()) {
    const int r = root_of(dir);
    wd_root_[*wd] = r;
    if (r >= 0) ++root_watches_[r];
  }
  wd_path_[*wd] = dir;
  path_wd_[dir] = *wd;
}

// Watch first, then list: a file created between the two steps is seen by one or the other.
// Every directory is opened from the root's fd without following symlinks: one swapped for a
// symlink since it was seen is neither watched nor listed.
void WatchTree::establish(size_t root, const std::string& rel_top, const ScanStopFn& stop) {
  if (!roots_[root].attached()) return;
  const SharedFd root_fd = roots_[root].handle()->fd();
  std::vector<std::string> stack{rel_top};
  while (!stack.empty()) {
    if (stop && stop()) return;
    std::string rel = std::move(stack.back());
    stack.pop_back();
    const std::string dir = join(root, rel);
    auto fd = open_dir_beneath(root_fd->get(), rel, dir);
    if (!fd.ok()) {
      int err = fd.error().sys_errno;
      if (err != 0 && err != ENOENT && err != ENOTDIR) {
        remember_unwatched(dir);  // retried by rescan_unwatched()
        log_.warning(fd.error().to_string() + "; the directory is rescanned periodically");
      }
      continue;  // gone, or a symlink now: never followed
    }
    watch_one(fd->get(), dir);
    scan_entries(fd->get(), dir, rel, stack, stop);
  }
}

void WatchTree::scan_entries(int dir_fd, const std::string& dir, const std::string& rel,
                             std::vector<std::string>& subdirs, const ScanStopFn& stop) {
  bool stopped = false;
  (void)list_dir_fd(dir_fd, dir, [&](std::string_view name, EntryType type) {
    // Between two files, never inside one's handling (a leftover's recovery is one step).
    if (!stopped && stop) stopped = stop();
    if (stopped) return;  // the rest of the listing is skipped
    if (type == EntryType::kDirectory) {
      subdirs.push_back(rel.empty() ? std::string(name) : rel + "/" + std::string(name));
    } else if (type == EntryType::kFile) {
      std::string path = dir + "/" + std::string(name);
      if (is_temp_name(name) || is_claim_name(name)) {
        if (hooks_.leftover) hooks_.leftover(path);
      } else if (hooks_.is_candidate(dir, name)) {
        hooks_.candidate(path, false);
      }
    }  // symlinks, sockets, fifos: never followed, never touched
  });  // an unlistable directory is retried by the next rescan
}

void WatchTree::drop_subtree(const std::string& dir) {
  std::string prefix = dir == "/" ? dir : dir + "/";
  auto it = path_wd_.lower_bound(dir);
  while (it != path_wd_.end() && (it->first == dir || it->first.starts_with(prefix))) {
    auto w = wd_path_.find(it->second);
    if (w != wd_path_.end() && w->second == it->first) {
      source_.remove_watch(it->second);
      forget_wd(w);
    }
    it = path_wd_.erase(it);
  }
  for (auto u = unwatched_.lower_bound(dir); u != unwatched_.end() && (*u == dir || u->starts_with(prefix));)
    u = unwatched_.erase(u);
}

void WatchTree::handle(const FsEvent& e) {
  if (e.mask & IN_Q_OVERFLOW) {
    ++overflows_;
    log_.warning("inotify: event queue overflowed; rescanning every root");
    scan_all();
    return;
  }
  auto it = wd_path_.find(e.wd);
  if (it == wd_path_.end()) return;  // a watch we already dropped
  const std::string dir = it->second;
  if (e.mask & IN_IGNORED) {
    forget_wd(it);
    auto p = path_wd_.find(dir);
    if (p != path_wd_.end() && p->second == e.wd) path_wd_.erase(p);
  }
  if (e.mask & (IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF)) {
    int r = root_index(dir);
    if (r >= 0) drop(static_cast<size_t>(r), (e.mask & IN_MOVE_SELF) ? "moved away" : "removed");
    return;
  }
  if (e.name.empty()) return;
  std::string path = dir + "/" + e.name;
  if (e.mask & IN_ISDIR) {
    if (e.mask & (IN_DELETE | IN_MOVED_FROM)) drop_subtree(path);
    if (e.mask & (IN_CREATE | IN_MOVED_TO)) {
      auto at = locate(path);
      for (size_t i = 0; at && i < roots_.size(); ++i)
        if (roots_[i].handle() == at->root) establish(i, at->rel);
    }
    return;
  }
  if ((e.mask & (IN_CLOSE_WRITE | IN_MOVED_TO)) && !is_temp_name(e.name) && !is_claim_name(e.name) &&
      hooks_.is_candidate(dir, e.name))
    hooks_.candidate(path, true);
}

}  // namespace msit::daemon
