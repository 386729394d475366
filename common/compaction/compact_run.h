// One-shot compaction of whole trees: take each tree's lock, scan by the dump-root rules,
// recover leftovers of an interrupted run, compact in parallel, and account for every file
// (compacted, failed, left alone and why).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "common/base/stage.h"
#include "common/compaction/compact.h"

namespace msit {

struct CompactRunOptions {
  CompactOptions file;
  unsigned jobs = 1;
  // One commit takes at most batch_size summaries (of those that queued up meanwhile,
  // common/compaction/publish_pipeline.h); 2 x jobs x batch_size may be held open.
  size_t batch_size = 64;
  bool force = false;                         // proceed on a tree another msit-compact owns (no lock, no cleanup)
  const std::atomic<bool>* cancel = nullptr;  // set by a signal: finish files in flight, stop
  // Relative directory below each root (`--quarantine`): files whose content is bad are moved
  // there, and it is never scanned. Empty: none.
  std::string quarantine;
};

struct CompactFailure {
  std::string path;
  std::string reason;          // Error::to_string(): names path, stage and cause
  Stage stage = Stage::kNone;  // Error::stage: what the report groups failures by
  std::string moved_to;        // --quarantine: where the file now is (empty: left in place)
};

struct CompactProgress {
  size_t done = 0, total = 0, failed = 0;
  uint64_t bytes_before = 0, bytes_after = 0;
};

// A file that is not compacted, and why (reported as one count per reason; paths with -v).
enum class LeftAlone : uint8_t {
  kNotUnderDumpRoot,
  kNotADumpName,
  kNotRegular,
  kOwnedByOther,
  kOpenByProcess,
  kNotOurLeftover,  // a temp or claim name another user made, or outside every dump root
  kHardLinked,
};
std::string_view left_alone_reason(LeftAlone r);

struct LeftAloneFile {
  std::string path;
  LeftAlone reason;
};

struct CompactReport {
  size_t candidates = 0;
  size_t compacted = 0;  // new summary written
  size_t verified = 0;   // existing summary verified
  size_t dry_run = 0;
  size_t raw_removed = 0;
  size_t temp_removed = 0;     // stale temp files of an interrupted run
  size_t claims_restored = 0;  // raw files an interrupted run had claimed, given their name back
  size_t dump_roots = 0;       // directories recognised as dump roots (incl. the roots' ancestors)
  bool cancelled = false;
  uint64_t bytes_before = 0;  // raw bytes of the files handled
  uint64_t bytes_after = 0;   // bytes of the summaries replacing them
  std::vector<CompactFailure> failures;
  std::vector<LeftAloneFile> left_alone;
  std::vector<std::string> symlinks;  // never followed, never deleted through
  std::vector<std::string> notes;     // one-line facts about the run (e.g. /proc gaps)
  size_t quarantined = 0;             // failures moved to the quarantine by this run
  size_t quarantined_before = 0;      // files found in the quarantine (not looked at)
};

// A failure that says the file itself is bad (header, payload, truncated...), as opposed to
// one of the run (write, rename, a full disk): only those are moved to the quarantine.
bool is_bad_content_failure(const CompactFailure& f);

// Errors that stop a tree before any file is touched: not a directory, owned by a live
// watch, no dump root in it. Returned per root; the other roots still run.
struct RootProblem {
  std::string root;
  std::string message;
  bool no_dump_root = false;
};

CompactReport run_compact(const std::vector<std::string>& roots, const CompactRunOptions& opts,
                          const std::function<void(const CompactProgress&)>& progress,
                          std::vector<RootProblem>* problems = nullptr);

}  // namespace msit
