// What the daemon reports: counters, close-to-deletion latency, STATUS= text and status JSON.
#include "daemon/counters.h"

#include <algorithm>
#include <cstdio>
#include <ctime>

#include <nlohmann/json.hpp>

#include "common/base/human_units.h"
#include "common/base/printable.h"

namespace msit::daemon {

void LatencyHistogram::add(int64_t ns) {
  if (ns < 0) ns = 0;
  size_t b = static_cast<size_t>(ns / 1000000);
  ++buckets_[b < kBuckets ? b : kBuckets];
  ++count_;
  if (ns > max_ns_) max_ns_ = ns;
}

double LatencyHistogram::percentile_ms(double p) const {
  if (count_ == 0) return 0;
  uint64_t rank = static_cast<uint64_t>(p / 100.0 * static_cast<double>(count_ - 1)) + 1;
  uint64_t seen = 0;
  for (size_t b = 0; b < kBuckets; ++b) {
    seen += buckets_[b];
    if (seen >= rank) return static_cast<double>(b + 1);  // upper edge of the bucket
  }
  return max_ms();
}

const char* latency_stage_name(LatencyStage s) {
  switch (s) {
    case LatencyStage::kSettle: return "settle";
    case LatencyStage::kDispatch: return "dispatch";
    case LatencyStage::kQueue: return "queue";
    case LatencyStage::kSummarise: return "summarise";
    case LatencyStage::kCommit: return "commit";
    case LatencyStage::kUnlink: return "unlink";
  }
  return "?";
}

void Counters::add_latency(const LatencyStamps& t) {
  latency.add(t.done_ns - t.event_ns);
  // A stamp not taken (0, or a fake compactor's) counts its stage as 0 and the time to the
  // next stage it has; each boundary is kept within [previous, done] so the stages add up.
  const int64_t marks[] = {t.event_ns, t.due_ns, t.claimed_ns, t.started_ns, t.prepared_ns, t.durable_ns, t.done_ns};
  int64_t prev = t.event_ns;
  for (size_t i = 0; i < kLatencyStages; ++i) {
    int64_t m = i + 1 == kLatencyStages ? t.done_ns : marks[i + 1];
    if (m == 0) m = prev;
    m = std::clamp(m, prev, std::max(prev, t.done_ns));
    stages[i].add(m - prev);
    prev = m;
  }
}

std::string Counters::status_line() const {
  char buf[256];
  std::snprintf(buf, sizeof buf, "compacted %llu files, freed %s, pending %llu, in flight %llu, errors %llu",
                static_cast<unsigned long long>(files_compacted) + verified_existing, human_bytes(bytes_freed).c_str(),
                static_cast<unsigned long long>(pending), static_cast<unsigned long long>(in_flight),
                static_cast<unsigned long long>(errors));
  std::string line = buf;
  if (!refused_store_files.empty())
    line += "; " + std::to_string(refused_store_files.size()) +
            " store(s) refused: " + printable(refused_store_files.front().file) + " of uid " +
            std::to_string(refused_store_files.front().owner);
  if (live_divergence) {
    line += "; divergences " + std::to_string(divergences);
    if (const auto& d = last_divergence)
      line += ", last: rank " + (d->rank < 0 ? std::string("-") : std::to_string(d->rank)) + " token " +
              printable(d->token) + " " + printable(d->op) + " (" + printable(d->op_type) + ")";
    if (not_compared != 0) line += "; not compared " + std::to_string(not_compared);
  }
  return line;
}

nlohmann::json Counters::to_json(int pid, const std::string& state) const {
  nlohmann::json j;
  j["schema"] = "msit-compact/watch-status";
  j["version"] = 1;
  j["pid"] = pid;
  j["state"] = state;
  j["updated_unix_s"] = static_cast<int64_t>(std::time(nullptr));
  j["files_compacted"] = files_compacted;
  j["verified_existing"] = verified_existing;
  j["raw_bytes"] = raw_bytes;
  j["summary_bytes"] = summary_bytes;
  j["bytes_freed"] = bytes_freed;
  j["pending"] = pending;
  j["in_flight"] = in_flight;
  j["errors"] = errors;
  j["files_failed"] = files_failed;
  j["incomplete_given_up"] = incomplete_given_up;
  j["temp_cleaned"] = temp_cleaned;
  j["dropped_with_root"] = dropped_with_root;
  j["rescans"] = rescans;
  j["overflows"] = overflows;
  j["watches"] = watches;
  j["unwatched_dirs"] = unwatched_dirs;
  j["missing_roots"] = missing_roots;
  j["watch_capped_roots"] = watch_capped_roots;
  j["watch_limit"] = watch_limit;
  j["refused_store_files"] = nlohmann::json::array();
  for (const RefusedStoreFile& f : refused_store_files)
    j["refused_store_files"].push_back({{"file", f.file}, {"owner_uid", f.owner}, {"store_owner_uid", f.store_owner}});
  j["bad_files_remembered"] = bad_files_remembered;
  j["bad_files_not_remembered"] = bad_files_not_remembered;
  j["log_lines_suppressed"] = log_lines_suppressed;
  j["failures_by_reason"] = nlohmann::json::object();
  for (const auto& [reason, n] : failures_by_reason) j["failures_by_reason"][reason] = n;
  j["live_divergence"] = live_divergence;
  j["divergences"] = divergences;
  j["not_compared"] = not_compared;
  // Without the file paths: the status file is world-readable, like STATUS= (docs/safety.md D2).
  j["last_divergence"] = nullptr;
  if (last_divergence) {
    j["last_divergence"] = divergence_json(*last_divergence);
    j["last_divergence"].erase("my_path");
    j["last_divergence"].erase("golden_path");
  }
  j["latency_ms"] = {{"count", latency.count()},
                     {"p50", latency.percentile_ms(50)},
                     {"p99", latency.percentile_ms(99)},
                     {"max", latency.max_ms()}};
  // Per stage: where the time of the files above went (docs/daemon.md).
  j["latency_stages_ms"] = nlohmann::json::object();
  for (size_t i = 0; i < kLatencyStages; ++i)
    j["latency_stages_ms"][latency_stage_name(static_cast<LatencyStage>(i))] = {
        {"p50", stages[i].percentile_ms(50)}, {"p99", stages[i].percentile_ms(99)}, {"max", stages[i].max_ms()}};
  return j;
}

}  // namespace msit::daemon
