// Parallel one-shot compaction over scanned trees, batching durability per worker.
#include "common/summary/compact_run.h"

#include <unistd.h>

#include <atomic>
#include <mutex>
#include <thread>

#include "common/formats/dump_name.h"
#include "common/io/tree_walk.h"

namespace msit {
namespace {

struct Scan {
  std::vector<std::string> candidates;
  std::vector<std::string> temps;
};

bool is_candidate(NameKind k) {
  return k == NameKind::kGeDump || k == NameKind::kFxNpy || k == NameKind::kOtherNpy;
}

bool is_known_side_file(NameKind k) {
  switch (k) {
    case NameKind::kGraphText: case NameKind::kSummary: case NameKind::kMinMaxNpy:
    case NameKind::kMinMaxNpz: case NameKind::kArchive: case NameKind::kStatsCsv:
    case NameKind::kMappingCsv: return true;
    default: return false;
  }
}

Scan scan_roots(const std::vector<std::string>& roots, CompactReport& report) {
  Scan scan;
  std::vector<Error> errors;
  for (const auto& root : roots) {
    walk_tree(root, [&](const WalkEntry& e) {
      if (e.type == EntryType::kSymlink) { report.symlinks.push_back(e.path); return; }
      if (e.type == EntryType::kDirectory) return;
      if (e.type != EntryType::kFile) { report.unrecognised.push_back(e.path); return; }
      NameKind kind = classify_name(e.name).kind;
      if (kind == NameKind::kTemp) scan.temps.push_back(e.path);
      else if (is_candidate(kind)) scan.candidates.push_back(e.path);
      else if (!is_known_side_file(kind)) report.unrecognised.push_back(e.path);
    }, errors);
  }
  for (auto& e : errors) report.failures.push_back({e.path, e.to_string()});
  return scan;
}

class Runner {
 public:
  Runner(const Scan& scan, const CompactRunOptions& opts, CompactReport& report,
         const std::function<void(const CompactProgress&)>& progress)
      : scan_(scan), opts_(opts), report_(report), progress_(progress) {
    prog_.total = scan.candidates.size();
  }

  void run() {
    unsigned jobs = std::max(1u, opts_.jobs);
    std::vector<std::thread> workers;
    for (unsigned i = 1; i < jobs; ++i) workers.emplace_back([this] { work(); });
    work();
    for (auto& w : workers) w.join();
  }

 private:
  void work() {
    std::vector<PreparedSummary> batch;
    while (true) {
      size_t i = next_.fetch_add(1);
      if (i >= scan_.candidates.size()) break;
      auto prepared = prepare_summary(scan_.candidates[i], opts_.file);
      if (!prepared.ok()) {
        record_failure(scan_.candidates[i], prepared.error());
        continue;
      }
      batch.push_back(std::move(prepared).value());
      if (batch.size() >= opts_.batch_size) flush(batch);
    }
    flush(batch);
  }

  void flush(std::vector<PreparedSummary>& batch) {
    if (batch.empty()) return;
    std::vector<std::string> paths;
    for (const auto& p : batch) paths.push_back(p.raw_path);
    auto results = publish_summaries(std::move(batch));
    batch.clear();
    for (size_t i = 0; i < results.size(); ++i) {
      if (results[i].ok()) record(results[i].value());
      else record_failure(paths[i], results[i].error());
    }
  }

  void record(const CompactOutcome& o) {
    std::lock_guard lock(mu_);
    switch (o.kind) {
      case CompactResultKind::kCompacted: ++report_.compacted; break;
      case CompactResultKind::kVerifiedExisting: ++report_.verified; break;
      case CompactResultKind::kDryRun: ++report_.dry_run; break;
    }
    if (o.raw_removed) ++report_.raw_removed;
    report_.bytes_before += o.raw_bytes;
    report_.bytes_after += o.summary_bytes;
    prog_.bytes_before += o.raw_bytes;
    prog_.bytes_after += o.summary_bytes;
    ++prog_.done;
    if (progress_) progress_(prog_);
  }

  void record_failure(const std::string& path, const Error& e) {
    std::lock_guard lock(mu_);
    report_.failures.push_back({path, e.to_string()});
    ++prog_.done;
    ++prog_.failed;
    if (progress_) progress_(prog_);
  }

  const Scan& scan_;
  const CompactRunOptions& opts_;
  CompactReport& report_;
  const std::function<void(const CompactProgress&)>& progress_;
  std::atomic<size_t> next_{0};
  std::mutex mu_;
  CompactProgress prog_;
};

}  // namespace

CompactReport run_compact(const std::vector<std::string>& roots, const CompactRunOptions& opts,
                          const std::function<void(const CompactProgress&)>& progress) {
  CompactReport report;
  Scan scan = scan_roots(roots, report);
  report.candidates = scan.candidates.size();
  // Temp files are our own partial summaries from an interrupted run, never raw data.
  if (!opts.file.dry_run) {
    for (const auto& t : scan.temps) {
      if (::unlink(t.c_str()) == 0) ++report.temp_removed;
    }
  }
  Runner(scan, opts, report, progress).run();
  return report;
}

}  // namespace msit
