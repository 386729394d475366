// The production compactor and candidate policy: compaction engine calls for a batch
// (prepare each summary under a temp name, publish the batch: temps fsynced together, one
// fsync per directory), and dump-name classification.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "common/store/store_registry.h"
#include "common/summary/compact.h"
#include "daemon/jobs.h"
#include "daemon/tree_owners.h"

namespace msit::daemon {

class EngineCompactor final : public Compactor {
 public:
  // Every job's path lies below one of `roots` (absolute): files are reached from the root's
  // fd without following symlinks, so a directory swapped since the event is never entered.
  EngineCompactor(CompactOptions opts, std::vector<std::string> roots) : opts_(opts), roots_(std::move(roots)) {
    for (const auto& r : roots_) stores_.add_root(r);
  }
  std::vector<JobResult> run_batch(const std::vector<Job>& jobs) override;
  // Closes the stores of a tree the daemon lets go of (their fds would pin its directories).
  void release_tree(const std::string& root) { stores_.close_below(root); }
  // Once per tree: summaries written as JSON because the tree is on a network filesystem.
  std::vector<std::string> take_warnings() { return stores_.take_warnings(); }
  void set_options(const CompactOptions& o) {
    std::lock_guard<std::mutex> lock(mu_);
    opts_ = o;
  }

 private:
  CompactOptions options() {
    std::lock_guard<std::mutex> lock(mu_);
    CompactOptions o = opts_;
    o.stores = &stores_;
    return o;
  }
  std::mutex mu_;
  CompactOptions opts_;
  const std::vector<std::string> roots_;
  store::StoreRegistry stores_;  // one summary store per dump root, kept open between batches
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
