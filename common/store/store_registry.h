// The stores a writer (compact, watch) fills: one per dump, where store_locator.h says (the
// dump's home, possibly above the tree given), opened on first use through directory fds
// without following links, and shared by all its workers.
#pragma once

#include <sys/stat.h>

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "common/base/result.h"
#include "common/safety/beneath.h"
#include "common/safety/output_access.h"
#include "common/store/summary_store.h"

namespace msit::store {

class StoreRegistry {
 public:
  // A tree this process owns (absolute path) and its pinned directory fd: stores are opened
  // below that fd, never by re-resolving the path (docs/safety.md, P1). A root added again
  // (a watch root that came back) gets the new fd.
  void add_root(const std::string& root, SharedFd fd);

  struct Slot {
    std::shared_ptr<SummaryStore> store;
    std::string rel;  // the raw file's path relative to the store's directory
    // False: the store's readers are not the raw file's; its summary must not go there
    // (docs/store.md, "Who can read a store").
    bool same_readers = true;
  };
  // The store that takes the summary of raw file `path` (absolute, below a registered root),
  // whose outputs get `access`: the nearest existing store between its directory and its
  // home, else a new one in the home, created with that access (store_mode_of()).
  Result<Slot> store_for(const std::string& path, const OutputAccess& access);
  // True when `path`'s tree is on a network filesystem (network_filesystem()): its summaries
  // are written as JSON files instead, and warnings() says so once per tree.
  bool json_instead(const std::string& path);
  std::vector<std::string> take_warnings();
  // Closes every store (its WAL is checkpointed by SQLite when the last connection goes).
  void close_all();
  // Closes the stores below `root` and forgets its fd (the tree may be removed and come back);
  // until add_root() gives a new fd, no store is opened there.
  void close_below(const std::string& root);

 private:
  struct Root {
    std::string path;
    SharedFd fd;
    std::string network;                    // the filesystem's name when it is a network one
    bool checked = false;                   // network looked up
    std::map<std::string, SharedFd> above;  // ancestors holding or homing a store, checked
  };
  Result<Root*> root_of(const std::string& path);
  // Directory `dir` (the root, below it, or one of its ancestors up to the home) as an fd.
  Result<SharedFd> dir_fd(Root& root, const std::string& dir);
  // The store directory for files of `dir` (store_locator.h), cached per directory.
  Result<std::string> locate(Root& root, const std::string& dir);

  std::mutex mu_;
  std::vector<Root> roots_;
  struct Open {
    std::shared_ptr<SummaryStore> store;
    struct stat st {};  // the store file's owner, group and mode: who can read its rows
  };
  std::map<std::string, Open> open_;            // by store directory
  std::map<std::string, std::string> located_;  // raw file directory -> store directory
  std::vector<std::string> warnings_;
};

// The name of the network filesystem `fd` is on (NFS, SMB, CephFS, Lustre, FUSE, ...), where
// SQLite's locking is unreliable; "" for a local one.
std::string network_filesystem(int fd);

}  // namespace msit::store
