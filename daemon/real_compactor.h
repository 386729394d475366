// The production compactor and candidate policy: compaction engine calls for a batch
// (prepare each summary under a temp name, publish the batch: temps fsynced together, one
// fsync per directory), and dump-name classification.
#pragma once

#include <memory>
#include <mutex>

#include "common/summary/compact.h"
#include "daemon/jobs.h"

namespace msit::daemon {

class EngineCompactor final : public Compactor {
 public:
  explicit EngineCompactor(CompactOptions opts) : opts_(opts) {}
  std::vector<JobResult> run_batch(const std::vector<Job>& jobs) override;
  void set_options(const CompactOptions& o) {
    std::lock_guard<std::mutex> lock(mu_);
    opts_ = o;
  }

 private:
  CompactOptions options() {
    std::lock_guard<std::mutex> lock(mu_);
    return opts_;
  }
  std::mutex mu_;
  CompactOptions opts_;
};

// GE dumps and npy files are candidates; summaries, temp files, text and csv are not.
CandidatePolicy engine_policy(SummaryFormat format, bool keep_raw);

// Whether an error is worth retrying later (I/O, space, a file that changed) rather than a
// property of the file's content (corrupt or unsupported header).
bool is_transient_error(const Error& e);

}  // namespace msit::daemon
