// Recursive inotify watches over the dump roots: new directories are watched first, then
// scanned; vanished directories drop their watches; missing roots are polled until they appear.
#include "daemon/watch_tree.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "common/base/unique_fd.h"
#include "common/io/atomic_write.h"
#include "common/io/tree_walk.h"
#include "common/safety/publish.h"

namespace msit::daemon {

namespace {
// Directories that failed to get a watch (limit, errors) and are re-listed every 2 s; beyond
// this many, they are left to the full rescans like the directories beyond the cap.
constexpr size_t kMaxUnwatchedListed = 4096;
}  // namespace

WatchTree::WatchTree(EventSource& source, Logger& log, std::vector<std::string> roots, size_t max_watches_per_root,
                     TreeHooks hooks)
    : source_(source), log_(log), roots_(std::move(roots)), root_present_(roots_.size(), false),
      root_warned_(roots_.size(), false), hooks_(std::move(hooks)), max_watches_per_root_(max_watches_per_root),
      root_watches_(roots_.size(), 0), root_capped_(roots_.size(), false) {}

int WatchTree::root_of(const std::string& dir) const {
  int best = -1;
  for (size_t i = 0; i < roots_.size(); ++i) {
    const std::string& r = roots_[i];
    const bool in =
        dir == r || (dir.size() > r.size() && dir.compare(0, r.size(), r) == 0 && (dir[r.size()] == '/' || r == "/"));
    if (in && (best < 0 || r.size() > roots_[best].size())) best = static_cast<int>(i);
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
    if (r->second >= 0 && root_watches_[r->second] > 0) {
      --root_watches_[r->second];
      if (root_watches_[r->second] < max_watches_per_root_) root_capped_[r->second] = false;
    }
    wd_root_.erase(r);
  }
  wd_path_.erase(w);
}

// A directory without a watch yet, in a root that has all the watches it may have.
bool WatchTree::at_cap(const std::string& dir) {
  const int r = root_of(dir);
  if (r < 0 || root_watches_[r] < max_watches_per_root_ || path_wd_.count(dir) != 0) return false;
  if (!root_capped_[r]) {
    root_capped_[r] = true;
    log_.warning(roots_[r] + ": " + std::to_string(max_watches_per_root_) +
                 " directories watched, the cap (max_watches_per_root): directories beyond it get no "
                 "inotify watch and are found by the full rescan (rescan_interval_s) instead. Said once "
                 "until the tree shrinks below the cap.");
  }
  return true;
}

static bool is_real_dir(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

int WatchTree::root_index(const std::string& dir) const {
  for (size_t i = 0; i < roots_.size(); ++i)
    if (roots_[i] == dir) return static_cast<int>(i);
  return -1;
}

size_t WatchTree::missing_roots() const {
  size_t n = 0;
  for (bool p : root_present_) n += p ? 0 : 1;
  return n;
}

void WatchTree::scan_all() {
  for (size_t i = 0; i < roots_.size(); ++i) {
    root_present_[i] = is_real_dir(roots_[i]);
    if (root_present_[i]) establish(roots_[i]);
  }
}

void WatchTree::poll_roots() {
  for (size_t i = 0; i < roots_.size(); ++i) {
    if (root_present_[i]) continue;
    if (!is_real_dir(roots_[i])) {
      if (!root_warned_[i]) {
        log_.info(roots_[i] + ": not a directory yet; waiting for it to appear");
        root_warned_[i] = true;
      }
      continue;
    }
    log_.info(roots_[i] + ": directory appeared; watching it");
    root_present_[i] = true;
    root_warned_[i] = false;
    establish(roots_[i]);
  }
}

void WatchTree::rescan_unwatched() {
  std::set<std::string> dirs;
  dirs.swap(unwatched_);
  for (const auto& d : dirs)
    if (is_real_dir(d)) establish(d);
}

void WatchTree::watch_one(const std::string& dir) {
  if (at_cap(dir)) return;
  Result<int> wd = source_.add_watch(dir);
  if (!wd.ok()) {
    int err = wd.error().sys_errno;
    if (err == ENOSPC) {
      if (unwatched_.size() < kMaxUnwatchedListed) unwatched_.insert(dir);
      if (!limit_warned_) {
        limit_warned_ = true;
        log_.warning(dir +
                     ": watch: the inotify watch limit is reached; raise it with "
                     "`sysctl fs.inotify.max_user_watches=1048576` (persist it in "
                     "/etc/sysctl.d/). Until then directories without a watch are rescanned "
                     "periodically.");
      }
    } else if (err != ENOENT && err != ENOTDIR && err != ELOOP) {
      if (unwatched_.size() < kMaxUnwatchedListed) unwatched_.insert(dir);
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
void WatchTree::establish(const std::string& top) {
  std::vector<std::string> stack{top};
  while (!stack.empty()) {
    std::string dir = std::move(stack.back());
    stack.pop_back();
    watch_one(dir);
    scan_entries(dir, stack);
  }
}

void WatchTree::scan_entries(const std::string& dir, std::vector<std::string>& subdirs) {
  // O_NOFOLLOW: a directory swapped for a symlink since it was seen is not entered.
  UniqueFd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd.valid()) return;
  (void)list_dir_fd(fd.get(), dir, [&](std::string_view name, EntryType type) {
    std::string path = dir + "/" + std::string(name);
    if (type == EntryType::kDirectory) {
      subdirs.push_back(std::move(path));
    } else if (type == EntryType::kFile) {
      if (is_temp_name(name)) {
        if (hooks_.temp_file) hooks_.temp_file(path);
      } else if (is_claim_name(name)) {
        if (hooks_.claim_file) hooks_.claim_file(path);
      } else if (hooks_.is_candidate(dir, name)) {
        hooks_.candidate(path, false);
      }
    }  // symlinks, sockets, fifos: never followed, never touched
  });  // an unlistable directory is retried by the next rescan
}

void WatchTree::drop_subtree(const std::string& dir) {
  std::string prefix = dir + "/";
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
    if (r >= 0 && root_present_[r]) {
      drop_subtree(dir);
      root_present_[r] = false;
      log_.info(dir + ": root directory removed or moved away; waiting for it to reappear");
    }
    return;
  }
  if (e.name.empty()) return;
  std::string path = dir + "/" + e.name;
  if (e.mask & IN_ISDIR) {
    if (e.mask & (IN_DELETE | IN_MOVED_FROM)) drop_subtree(path);
    if (e.mask & (IN_CREATE | IN_MOVED_TO)) establish(path);
    return;
  }
  if ((e.mask & (IN_CLOSE_WRITE | IN_MOVED_TO)) && !is_temp_name(e.name) && !is_claim_name(e.name) &&
      hooks_.is_candidate(dir, e.name))
    hooks_.candidate(path, true);
}

}  // namespace msit::daemon
