// The stores a writer (compact, watch) fills: one per dump root, opened on first use below
// the tree's root fd without following links, and shared by all its workers.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "common/base/result.h"
#include "common/safety/beneath.h"
#include "common/store/summary_store.h"

namespace msit::store {

class StoreRegistry {
 public:
  // A tree this process owns (absolute path) and its pinned directory fd: stores are opened
  // below that fd, never by re-resolving the path (docs/safety.md, T1). A root added again
  // (a watch root that came back) gets the new fd.
  void add_root(const std::string& root, SharedFd fd);

  struct Slot {
    std::shared_ptr<SummaryStore> store;
    std::string rel;  // the raw file's path relative to the store's directory
  };
  // The store that takes the summary of raw file `path` (absolute, below a registered root).
  Result<Slot> store_for(const std::string& path);
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
    std::string network;   // the filesystem's name when it is a network one
    bool checked = false;  // network looked up
  };
  Result<Root*> root_of(const std::string& path);

  std::mutex mu_;
  std::vector<Root> roots_;
  std::map<std::string, std::shared_ptr<SummaryStore>> open_;  // by store directory
  std::vector<std::string> warnings_;
};

// The name of the network filesystem `fd` is on (NFS, SMB, CephFS, Lustre, FUSE, ...), where
// SQLite's locking is unreliable; "" for a local one.
std::string network_filesystem(int fd);

}  // namespace msit::store
