// The seams between the watcher's decisions and the outside world: clock, file probe,
// compactor and job sink. Real implementations live in probe.cpp / real_compactor.cpp;
// unit tests pass fakes.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/base/result.h"
#include "common/io/file.h"
#include "common/safety/beneath.h"
#include "common/safety/pinned_root.h"

namespace msit::daemon {

class Clock {
 public:
  virtual ~Clock() = default;
  virtual int64_t now_ns() const = 0;  // monotonic; callable from any thread
};
// CLOCK_MONOTONIC.
Clock& steady_clock();

// Whether another process holds the file open for writing.
enum class WriterState : uint8_t {
  kNone,        // a read lease was granted: nobody has it open for writing
  kBusy,        // open for writing (lease refused), or open/mapped per /proc
  kNoneByProc,  // no lease possible, but a complete /proc scan shows nobody has it open or mapped
  kUnknown,     // no lease and /proc cannot tell: the raw file is summarised but kept
};

struct ProbeResult {
  bool exists = false;
  bool regular = false;
  FileIdentity identity;
  WriterState writer = WriterState::kUnknown;
};

class FileProbe {
 public:
  virtual ~FileProbe() = default;
  // `f` was reached from its pinned root without following symlinks.
  virtual ProbeResult probe(const FileRef& f) = 0;
};
// fstatat + F_SETLEASE read-lease probe (released at once), /proc where leases are refused.
FileProbe& lease_probe();
// One line for the log: how "no writer holds it" is decided in the tree whose fd is given.
std::string describe_settle_mode(int root_fd);

struct Job {
  std::string path;                             // for messages and the watcher's bookkeeping
  FileIdentity seen;                            // identity when claimed
  int64_t event_ns = 0;                         // close/rename event time, 0 when found by a scan
  bool keep_raw = false;                        // whether a writer still holds it cannot be known: never delete it
  std::shared_ptr<const RootHandle> root = {};  // the pinned root it was found under: work starts there
  std::string rel = {};                         // path below root; never re-resolved from `path`
};

enum class JobStatus : uint8_t {
  kDone,        // summary durable (and raw removed unless kept)
  kIncomplete,  // the header declares more bytes than the file has: writer not done
  kGone,        // the file vanished before it was read
  kFailed,      // read/write error; `transient` says whether retrying may help
  kCancelled,   // not started because the daemon is stopping
};

struct JobResult {
  std::string path;
  JobStatus status = JobStatus::kDone;
  Error error;
  bool transient = false;
  bool verified_existing = false;  // a valid summary already existed
  bool raw_removed = false;
  uint64_t raw_bytes = 0;
  uint64_t summary_bytes = 0;
  FileIdentity seen;
  int64_t event_ns = 0;
  // Latency stages (daemon/counters.h): a worker took the batch, the batch was summarised, its
  // summaries were durable, the raw files were removed. 0 where not measured.
  int64_t started_ns = 0;
  int64_t prepared_ns = 0;
  int64_t durable_ns = 0;
  int64_t done_ns = 0;
};

class Compactor {
 public:
  virtual ~Compactor() = default;
  // Compacts a batch; one result per job, any order. Called on worker threads.
  virtual std::vector<JobResult> run_batch(const std::vector<Job>& jobs) = 0;
};

class JobSink {
 public:
  virtual ~JobSink() = default;
  // Jobs claimed in one dispatch pass arrive together, so a worker can take them as one batch.
  virtual void submit(std::vector<Job> jobs) = 0;
};

// Which files are raw dumps (by dump root and name, common/safety/dump_roots.h), and (with
// --keep-raw) which raw files already have a summary.
struct CandidatePolicy {
  std::function<bool(const std::string& dir, std::string_view name)> is_candidate;
  std::function<bool(const FileRef& f)> already_done;  // may be empty
  // The holder of the live owner's subtree that `path` lies in, or "" (may be empty): its
  // files, temps and claims are that owner's, never this watch's (daemon/tree_owners.h).
  std::function<std::string(const std::string& path)> owner_of = nullptr;
  // Live divergence (docs/live-divergence.md): true keeps a complete file raw, unclaimed, until
  // Watcher::release_held(path); `bytes` is its size. May be empty (nothing is held).
  std::function<bool(const std::string& path, uint64_t bytes)> hold = nullptr;
};

}  // namespace msit::daemon
