// The production compactor and candidate policy: compaction engine calls for a batch
// (prepare each summary under a temp name, publish the batch: temps fsynced together, one
// fsync per directory), and dump-name classification.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "common/compaction/compact.h"
#include "common/store/store_registry.h"
#include "daemon/jobs.h"
#include "daemon/tree_owners.h"

namespace msit::daemon {

class EngineCompactor final : public Compactor {
 public:
  // Every job carries the pinned root it was found under (common/safety/pinned_root.h): files
  // are reached from that root's fd without following symlinks, never by path, so a root
  // renamed or swapped for a symlink since the event is never entered.
  explicit EngineCompactor(CompactOptions opts) : opts_(opts) {}
  std::vector<JobResult> run_batch(const std::vector<Job>& jobs) override;
  // A root the daemon now owns: its stores are opened below this handle's fd only.
  void attach_tree(const std::shared_ptr<const RootHandle>& root);
  // Opens, as their writer, the summary stores already in the tree of `root` (live divergence,
  // docs/live-divergence.md): the live comparer reads them in this process, and SQLite shares
  // one WAL index per database file within a process, writable only if its first opener could
  // write. A reader opening a store left with a WAL (kill -9) first would make every later
  // write fail. Errors are returned as lines to log; the stores are opened again on use.
  std::vector<std::string> open_existing_stores(const RootHandle& root);
  // Closes the stores of a root the daemon lets go of (their fds would pin its directories);
  // jobs of that root still queued are cancelled.
  void release_tree(const RootHandle& root);
  // Once per tree: summaries written as JSON because the tree is on a network filesystem.
  std::vector<std::string> take_warnings();
  void set_options(const CompactOptions& o) {
    std::lock_guard<std::mutex> lock(mu_);
    opts_ = o;
  }

 private:
  CompactOptions options() {
    std::lock_guard<std::mutex> lock(mu_);
    return opts_;
  }
  // The store registry of a root still owned, or null (let go of: its jobs are cancelled).
  std::shared_ptr<store::StoreRegistry> stores_of(const RootHandle& root);

  std::mutex mu_;
  CompactOptions opts_;
  struct Tree {
    std::shared_ptr<const RootHandle> root;
    std::shared_ptr<store::StoreRegistry> stores;  // one summary store per dump root, kept open
  };
  std::map<const RootHandle*, Tree> trees_;
};

// The settings the candidate policy reads at every call, so that a SIGHUP reload reaches the
// watcher's "already done" check as it reaches the compactor.
struct LivePolicySettings {
  std::atomic<bool> keep_raw{false};
  std::atomic<SummaryFormat> format{SummaryFormat::kStore};
};

// Raw dump files under a dump root (common/safety/dump_roots.h) are candidates; nothing else.
// `owners`: live owners of subtrees, whose files the watch leaves alone (may be null).
CandidatePolicy engine_policy(const std::shared_ptr<const LivePolicySettings>& live,
                              const std::shared_ptr<const TreeOwners>& owners = nullptr);

// Whether an error is worth retrying later (I/O, space, a file that changed) rather than a
// property of the file's content (corrupt or unsupported header).
bool is_transient_error(const Error& e);

}  // namespace msit::daemon
