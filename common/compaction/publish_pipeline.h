// compact's publishing behind the reading: the workers hand over each prepared summary, one
// thread makes whatever has queued up durable in one commit (group commit: the next commit
// holds what the workers prepared during this one's fsync), another removes the raw files of
// each durable commit, so removals overlap the next commit and the reading of later files.
// A raw file is still removed only after make_durable() returned for its commit.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "common/base/stage_thread.h"
#include "common/compaction/compact.h"

namespace msit {

class PublishPipeline {
 public:
  // Called on the removing thread, once per commit: raw path and result of each entry.
  using Sink = std::function<void(const std::vector<std::string>& raw_paths, std::vector<Result<CompactOutcome>>)>;

  // At most `max_held` submitted entries are held (queued, committing or being removed): their
  // raw files stay open until removed, so this bounds descriptors and memory. One commit takes
  // at most `max_commit` entries.
  // `after_commits` runs on the committing thread once the last commit is made (finish() was
  // called and nothing is left to commit), while the last raw files may still be removed.
  PublishPipeline(size_t max_held, size_t max_commit, Sink sink, std::function<void()> after_commits = {});
  ~PublishPipeline();
  PublishPipeline(const PublishPipeline&) = delete;
  PublishPipeline& operator=(const PublishPipeline&) = delete;

  // Queues one prepared summary; blocks while `max_held` are held.
  void submit(PreparedSummary p);
  // Returns once every submitted entry has been published and removed (both loops returned).
  void finish();

 private:
  struct Durable {
    std::vector<std::string> raw_paths;
    DurableBatch batch;
  };
  void commit_loop();
  void remove_loop();

  const size_t max_held_;
  const size_t max_commit_;
  Sink sink_;
  std::function<void()> after_commits_;
  std::mutex mu_;
  std::condition_variable changed_;
  std::deque<PreparedSummary> to_commit_;
  std::deque<Durable> to_remove_;
  size_t held_ = 0;  // submitted and not yet removed
  bool closing_ = false;
  bool committer_done_ = false;
  StageThread committer_, remover_;  // last: each runs its loop once the members above exist
};

}  // namespace msit
