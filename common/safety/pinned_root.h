// Roots are pinned: a watched root's directory is opened once and known by its identity (device,
// inode); all work below it goes through that fd, and the path is only looked at again to tell
// whether the pinned directory is still there, always without following a symlink
// (docs/safety.md, P1-P3).
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "common/base/result.h"
#include "common/safety/beneath.h"

namespace msit {

// One attachment of a root: shared by everything that works below it (jobs in flight), which
// check dropped() before touching a file. Never re-pointed: a root that comes back is a new handle.
class RootHandle {
 public:
  RootHandle(std::string path, SharedFd fd, dev_t dev, ino_t ino)
      : path_(std::move(path)), fd_(std::move(fd)), dev_(dev), ino_(ino) {}
  const std::string& path() const { return path_; }  // as configured: messages and job paths
  const SharedFd& fd() const { return fd_; }
  dev_t dev() const { return dev_; }
  ino_t ino() const { return ino_; }
  // The root moved, was removed or replaced: its work is dropped, nothing more is started.
  bool dropped() const { return dropped_.load(std::memory_order_acquire); }
  void mark_dropped() const { dropped_.store(true, std::memory_order_release); }

 private:
  std::string path_;
  SharedFd fd_;
  dev_t dev_;
  ino_t ino_;
  mutable std::atomic<bool> dropped_{false};
};

class PinnedRoot {
 public:
  // The configured path's symlinks (in the part that exists now) are resolved here, once: the
  // path is trusted as given at start (docs/safety.md, Limits), and never followed again.
  explicit PinnedRoot(std::string configured_path);

  enum class Attach : uint8_t {
    kFirst,         // pinned for the first time
    kSameAgain,     // the directory pinned before is at the path again (renamed back)
    kNewDirectory,  // another real directory is at the path now (the old one was removed or moved)
  };
  // Opens the directory at the path with no symlink anywhere on the way (openat2
  // RESOLVE_NO_SYMLINKS from "/", over the path resolved at start) and pins it. An error when
  // nothing is there, or a symlink or a non-directory is.
  Result<Attach> attach();
  // Whether the path still leads, without symlinks, to the pinned directory.
  bool in_place() const;
  // Lets the pinned directory go (its handle is marked dropped; jobs holding it stop).
  void drop();

  bool attached() const { return handle_ != nullptr; }
  const std::shared_ptr<const RootHandle>& handle() const { return handle_; }
  const std::string& path() const { return path_; }
  const std::string& resolved_path() const { return resolved_; }

 private:
  Result<UniqueFd> open_no_symlinks() const;
  std::string path_;
  std::string resolved_;  // absolute, symlinks of start time resolved
  bool ever_ = false;
  dev_t dev_ = 0;
  ino_t ino_ = 0;
  std::shared_ptr<const RootHandle> handle_;
};

}  // namespace msit
