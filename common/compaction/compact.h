// compact_file(): the one path from a raw dump file to a durable summary, shared by the
// `compact` command and the watch daemon.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/archive/archive_writer.h"
#include "common/base/result.h"
#include "common/base/unique_fd.h"
#include "common/compaction/sink.h"
#include "common/safety/beneath.h"
#include "common/safety/output_access.h"
#include "common/safety/publish.h"
#include "common/stats/tensor_stats.h"
#include "common/store/store_registry.h"
#include "common/store/summary_store.h"
#include "common/summary/summarize.h"
#include "common/summary/summary.h"

namespace msit {

// kRich: NAME.summary.json beside each raw file; kMsit: the old converter's _min_max files;
// kStore: rows of the dump root's summary store (common/store), batched per transaction.
enum class SummaryFormat : uint8_t { kRich, kMsit, kStore };
// kArchive: after the summary is durable the raw file is replaced by a verified lossless
// archive (NAME.zst, see common/archive) instead of being deleted outright.
enum class RawAction : uint8_t { kDelete, kKeep, kArchive };

struct CompactOptions {
  SummaryFormat format = SummaryFormat::kRich;
  RawAction raw = RawAction::kDelete;
  bool dry_run = false;  // read and reduce, write and delete nothing
  // Bytes outside every declared tensor (trailing data, a second dump appended) cannot be
  // summarised: such a file is kept unless its archive holds every byte (RawAction::kArchive).
  StatsOptions stats;
  archive::ArchiveOptions archive;         // used with RawAction::kArchive
  store::StoreRegistry* stores = nullptr;  // required by SummaryFormat::kStore
  store::SketchPrecision store_sketch = store::SketchPrecision::kFloat32;
};

enum class CompactResultKind : uint8_t {
  kCompacted,         // summary written (and raw removed unless kept)
  kVerifiedExisting,  // a valid summary already existed; raw removed after verification
  kDryRun,            // would have compacted
};

struct CompactOutcome {
  CompactResultKind kind = CompactResultKind::kCompacted;
  std::string raw_path;
  std::string summary_path;
  uint64_t raw_bytes = 0;      // size of the raw file
  uint64_t summary_bytes = 0;  // size of what replaces it (summary + archive)
  bool raw_removed = false;
  std::string archive_path;  // set when the raw file was archived
};

// Name of the summary file that replaces raw file `path` in the given format ("" for kStore).
std::string summary_path_for(const std::string& raw_path, SummaryFormat format);

// The whole job for one file: open (no symlinks), identity, completeness, reduce, write temp,
// fsync, no-replace rename, fsync dir, claim-then-unlink (common/safety/publish.h). Any
// failure leaves the raw file. The FileRef form acts only relative to its directory fd; the
// path form trusts the path's parent directory as given (tests, single files).
Result<CompactOutcome> compact_file(const FileRef& f, const CompactOptions& opts);
Result<CompactOutcome> compact_file(const std::string& path, const CompactOptions& opts);

// Batched form for high file rates: prepare each (summary written under a temp name, its
// writeback started), then publish all at once: fsync every temp, rename, one fsync per
// directory, and only then remove raw files.
struct PreparedSummary {
  FileRef raw_file;
  std::string raw_path;  // raw_file.path
  UniqueFd raw_fd;       // the raw file as read: its removal is checked through it
  FileIdentity raw_identity;
  bool dry_run = false;
  RawAction raw = RawAction::kDelete;
  // Where the summary goes and what of it is staged (store rows, a JSON or msit temp, the
  // archive): always set by prepare_summary() (common/compaction/sink.h).
  std::unique_ptr<SummarySink> sink;
};
Result<PreparedSummary> prepare_summary(const FileRef& f, const CompactOptions& opts);
Result<PreparedSummary> prepare_summary(const std::string& path, const CompactOptions& opts);
// Returns one result per prepared entry, in order. `durable_ns` (may be null) gets the
// CLOCK_MONOTONIC time at which the batch's summaries were durable, before any raw file was
// claimed (the watch daemon's latency stages).
std::vector<Result<CompactOutcome>> publish_summaries(std::vector<PreparedSummary> batch,
                                                      int64_t* durable_ns = nullptr);

// publish_summaries() in its two steps, for a caller that removes the raw files of one batch
// while the next one is made durable (compact's publish pipeline). make_durable(): every temp
// fsynced, the store rows committed (WAL fsynced), renames done and their directories fsynced;
// an entry that failed any of it has its result already and is never removed. Only then may
// remove_raw_files() claim and unlink the rest (`removals`), through the descriptors they were
// read by.
struct DurableBatch {
  std::vector<PreparedSummary> batch;
  std::vector<std::optional<Result<CompactOutcome>>> slots;  // set: the entry's final result
  std::vector<bool> summary_new;
  std::vector<size_t> removals;  // entries whose summary is durable: to claim and unlink
};
DurableBatch make_durable(std::vector<PreparedSummary> batch);
// Returns one result per entry of the batch, in order.
std::vector<Result<CompactOutcome>> remove_raw_files(DurableBatch d);

}  // namespace msit
