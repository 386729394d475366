// The one OS-facing interface of the watcher: directory watches and their events.
// The real source is inotify; tests drive the watcher with a fake (including queue overflow).
#pragma once

#include <sys/inotify.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/base/result.h"

namespace msit::daemon {

// One event, with inotify's mask bits (IN_CLOSE_WRITE, IN_Q_OVERFLOW, ...) whatever the source.
struct FsEvent {
  int wd = -1;  // -1 for IN_Q_OVERFLOW
  uint32_t mask = 0;
  std::string name;  // entry name inside the watched directory; empty for self events
};

// What the watcher asks of every directory watch.
inline constexpr uint32_t kDirWatchMask = IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE |
                                          IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR | IN_DONT_FOLLOW | IN_EXCL_UNLINK;

class EventSource {
 public:
  virtual ~EventSource() = default;
  // Watches the directory open as `dir_fd` (reached without symlinks from a pinned root; the
  // path `dir` only names it). Errors carry errno (ENOSPC: limit reached).
  virtual Result<int> add_watch(int dir_fd, const std::string& dir) = 0;
  virtual void remove_watch(int wd) = 0;
  // A descriptor that becomes readable when events are queued, or -1 (fakes).
  virtual int poll_fd() const = 0;
  // Appends every queued event without blocking.
  virtual Status read_events(std::vector<FsEvent>& out) = 0;
};

// inotify with IN_NONBLOCK | IN_CLOEXEC.
Result<std::unique_ptr<EventSource>> make_inotify_source();
// The user's inotify watch limit in this user namespace (fs.inotify.max_user_watches);
// nullopt when it cannot be read.
std::optional<uint64_t> inotify_user_watch_limit();

}  // namespace msit::daemon
