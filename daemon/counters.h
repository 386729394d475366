// What the daemon reports: counters, close-to-deletion latency, STATUS= text and status JSON.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "daemon/divergence_alerts.h"
#include "daemon/refused_stores.h"

namespace msit::daemon {

// Latency histogram with 1 ms buckets up to 10 s, and exact max.
class LatencyHistogram {
 public:
  void add(int64_t ns);
  uint64_t count() const { return count_; }
  double percentile_ms(double p) const;  // 0 when empty
  double max_ms() const { return static_cast<double>(max_ns_) / 1e6; }

 private:
  static constexpr size_t kBuckets = 10000;
  std::array<uint32_t, kBuckets + 1> buckets_{};
  uint64_t count_ = 0;
  int64_t max_ns_ = 0;
};

// Where close -> deleted goes, stage by stage, for the same files as the total (raw removed,
// found by an event). The stages add up to the total.
enum class LatencyStage : uint8_t {
  kSettle,     // close/rename event -> the look that claimed it (quiet time, busy re-looks)
  kDispatch,   // that look was due -> claimed (timer lateness, the in-flight cap, the probe)
  kQueue,      // claimed -> a worker took its batch
  kSummarise,  // the batch read and summarised (temps written)
  kCommit,     // temps synced, store rows committed (WAL fsync), directories fsynced
  kUnlink,     // claim-then-unlink of the raw file, its descriptor closed
};
inline constexpr size_t kLatencyStages = 6;
const char* latency_stage_name(LatencyStage s);

// Timestamps of one file's way from its event to its deletion (steady clock, ns; 0: not known).
struct LatencyStamps {
  int64_t event_ns = 0, due_ns = 0, claimed_ns = 0, started_ns = 0, prepared_ns = 0, durable_ns = 0, done_ns = 0;
};

struct Counters {
  uint64_t files_compacted = 0;    // summaries published by us
  uint64_t verified_existing = 0;  // raw removed after its existing summary was verified
  uint64_t raw_bytes = 0;          // size of raw files replaced
  uint64_t summary_bytes = 0;
  uint64_t bytes_freed = 0;          // raw bytes removed minus summary bytes written
  uint64_t errors = 0;               // failed attempts (each is retried or reported)
  uint64_t files_failed = 0;         // distinct files that failed at least once
  uint64_t incomplete_given_up = 0;  // never completed: reported once, left alone
  uint64_t temp_cleaned = 0;         // stale temp files of an earlier run removed
  uint64_t dropped_with_root = 0;    // pending files forgotten because their root moved (docs/safety.md P2)
  uint64_t rescans = 0;
  uint64_t overflows = 0;
  uint64_t pending = 0;
  uint64_t in_flight = 0;
  uint64_t watches = 0;
  uint64_t unwatched_dirs = 0;
  uint64_t missing_roots = 0;
  uint64_t watch_limit = 0;  // watches all roots may take: max_watch_share of the user's limit (0: unknown)
  uint64_t watch_capped_roots = 0;
  std::vector<RefusedStoreFile> refused_store_files;    // stores refused for another user's side file // roots at
                                                        // max_watches_per_root: rescanned instead
  uint64_t bad_files_remembered = 0;                    // left alone until they change (bounded table)
  uint64_t bad_files_not_remembered = 0;                // beyond that table: retried by rescans
  uint64_t log_lines_suppressed = 0;                    // failure lines summed up per reason instead
  std::map<std::string, uint64_t> failures_by_reason;   // files per stage name
  LatencyHistogram latency;                             // close event -> raw deleted
  std::array<LatencyHistogram, kLatencyStages> stages;  // the same, split (LatencyStage)
  // Live divergence (docs/live-divergence.md): set by the service from its alert sink.
  bool live_divergence = false;  // watch --golden
  uint64_t divergences = 0;      // reported, also by earlier runs (read back from the events file)
  uint64_t not_compared = 0;     // coverage gaps reported (kNotCompared events), likewise
  std::optional<DivergenceEvent> last_divergence;

  // Adds one deleted file to the total and its stages.
  void add_latency(const LatencyStamps& t);

  // "compacted 12 files, freed 1.2 GiB, pending 3, in flight 2, errors 0"; with --golden
  // "; divergences 1, last: rank 0 token 0 Add_3 (Add)"
  std::string status_line() const;
  // Status file content; the service adds the filesystems' free space.
  nlohmann::json to_json(int pid, const std::string& state) const;
};

}  // namespace msit::daemon
