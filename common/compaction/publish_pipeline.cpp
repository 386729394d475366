// Two stage threads behind compact's workers: the committer makes queued summaries durable, the
// remover claims and unlinks their raw files (the order of docs/safety.md: durable summary,
// then removal).
#include "common/compaction/publish_pipeline.h"

#include <algorithm>
#include <utility>

namespace msit {

// Durable commits that may wait for the remover. One in reserve: a commit whose fsync stalls
// (10-140 ms on the root disk while discards are queued) overlaps the removal of the one before,
// where with none in reserve the removals stopped for the whole fsync (docs/benchmarks.md,
// "Against dry-run and rm"). Removal still follows its own commit's fsync.
constexpr size_t kDurableAhead = 2;

PublishPipeline::PublishPipeline(size_t max_held, size_t max_commit, Sink sink, std::function<void()> after_commits)
    : max_held_(std::max<size_t>(max_held, 1)), max_commit_(std::max<size_t>(max_commit, 1)), sink_(std::move(sink)),
      after_commits_(std::move(after_commits)) {
  committer_.submit([this] {
    commit_loop();
    return ok_status();
  });
  remover_.submit([this] {
    remove_loop();
    return ok_status();
  });
}

PublishPipeline::~PublishPipeline() { finish(); }

void PublishPipeline::submit(PreparedSummary p) {
  std::unique_lock lock(mu_);
  changed_.wait(lock, [this] { return held_ < max_held_; });
  ++held_;
  to_commit_.push_back(std::move(p));
  changed_.notify_all();
}

void PublishPipeline::finish() {
  {
    std::lock_guard lock(mu_);
    closing_ = true;
  }
  changed_.notify_all();
  (void)committer_.drain();  // the loops report through sink_, never by Status
  (void)remover_.drain();
}

// Commits whatever queued up while the previous commit ran, in one transaction: one WAL fsync
// (and one fsync per directory) for all of it. On a disk where an fsync takes ~10 ms the commits,
// which take turns on a store anyway, are then as few as the workers' pace allows.
void PublishPipeline::commit_loop() {
  while (true) {
    std::vector<PreparedSummary> batch;
    {
      std::unique_lock lock(mu_);
      // While the remover has kDurableAhead durable commits waiting, a commit now would only add
      // an fsync between its discards: let entries gather until it takes one up.
      changed_.wait(lock, [this] {
        if (to_commit_.empty()) return closing_;
        return closing_ || to_remove_.size() < kDurableAhead || to_commit_.size() >= max_commit_;
      });
      if (to_commit_.empty()) break;  // closing, nothing left
      const size_t n = std::min(to_commit_.size(), max_commit_);
      batch.reserve(n);
      for (size_t i = 0; i < n; ++i) {
        batch.push_back(std::move(to_commit_.front()));
        to_commit_.pop_front();
      }
    }
    Durable d;
    d.raw_paths.reserve(batch.size());
    for (const auto& p : batch) d.raw_paths.push_back(p.raw_path);
    d.batch = make_durable(std::move(batch));
    {
      std::lock_guard lock(mu_);
      to_remove_.push_back(std::move(d));
    }
    changed_.notify_all();
  }
  if (after_commits_) after_commits_();
  {
    std::lock_guard lock(mu_);
    committer_done_ = true;
  }
  changed_.notify_all();
}

void PublishPipeline::remove_loop() {
  while (true) {
    Durable d;
    {
      std::unique_lock lock(mu_);
      changed_.wait(lock, [this] { return committer_done_ || !to_remove_.empty(); });
      if (to_remove_.empty()) break;  // the committer is done and nothing is left
      d = std::move(to_remove_.front());
      to_remove_.pop_front();
    }
    changed_.notify_all();  // the committer may go on
    const size_t entries = d.raw_paths.size();
    sink_(d.raw_paths, remove_raw_files(std::move(d.batch)));
    {
      std::lock_guard lock(mu_);
      held_ -= entries;
    }
    changed_.notify_all();
  }
}

}  // namespace msit
