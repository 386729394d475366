// Where one raw file's summary goes: the interface every output format implements (store rows,
// JSON file, msit `_min_max` file, and the archive that wraps any of them), and the choice of
// one for a file. compact.cpp takes the steps in the order docs/safety.md requires.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "common/base/result.h"
#include "common/io/file.h"
#include "common/safety/beneath.h"
#include "common/safety/output_access.h"
#include "common/summary/summarize_internal.h"
#include "common/summary/summary.h"

namespace msit {

struct CompactOptions;
enum class SummaryFormat : uint8_t;
class BatchCommit;  // the store rows of one batch, committed together (store_sink.h)

// The output of one raw file in one format. prepare_summary() calls up_to_date(), encode()
// and stage() on a worker; make_durable() takes sync(), join_commit() and publish() over the
// whole batch, each step for every entry before the next, then the raw files may be removed.
class SummarySink {
 public:
  virtual ~SummarySink() = default;

  // What is reported: the summary file or store ("" for a dry run into the store), and the
  // bytes that replace the raw file (summary, plus the archive when there is one).
  virtual const std::string& path() const = 0;
  virtual uint64_t bytes() const = 0;
  virtual std::string archive_path() const { return {}; }

  // --keep-raw reruns: an output recording this exact size and mtime needs no re-read.
  virtual bool up_to_date(const FileIdentity& id) const = 0;
  // Encodes the summary (the store: estimates its rows' size); refuses an outlandish one.
  virtual Status encode(const FileSummary& s, const RawDumpFile& raw) = 0;
  // Verifies an output already in place, or stages the new one (a temp written but not
  // synced, a row waiting for the batch's commit). `raw` is the raw file as read.
  virtual Status stage(FileSummary s, const OpenedRaw& raw) = 0;

  // Before sync(): whether a new summary is staged, and whether anything will be renamed in
  // the raw file's directory (which then needs its fsync before any removal).
  virtual bool summary_new() const = 0;
  virtual bool writes_in_dir() const = 0;
  // The staged bytes made durable under their temp name.
  virtual Status sync() = 0;
  // Rows are committed once per store for the batch: the entry adds its own.
  virtual void join_commit(BatchCommit& /*commit*/, size_t /*index*/) {}
  // Durable under the final name, never replacing another file.
  virtual Status publish() = 0;
  // A failed entry drops its temps at once (its raw file stays).
  virtual void abandon() = 0;
  // Durable: drops what the removal does not need (a store may then close).
  virtual void release() {}
};

// The sink for raw file `f`: opts.format, except that a store's file goes to a JSON summary
// on a network filesystem and where the store's readers are not the raw file's (`access`);
// wrapped by the archive with RawAction::kArchive.
Result<std::unique_ptr<SummarySink>> make_summary_sink(const FileRef& f, const CompactOptions& opts,
                                                       const OutputAccess& access);

// Whether a run with these options writes store rows (and so needs its trees' store registry).
bool writes_store_rows(const CompactOptions& opts);
// --keep-raw rescans: a summary file of `format` already stands under the raw file's summary
// name (never for the store, whose rows are checked when the file is prepared).
bool summary_file_present(const FileRef& f, SummaryFormat format);

// A summary already in place that describes exactly this raw content needs no rewrite.
bool same_summarised_bytes(const FileSummary& existing, const FileSummary& fresh);

// Size, mtime and ctime as at open, else Stage::kIncomplete: a raw file that changed while
// it was read (or archived) is never replaced by a stale summary.
Status check_unchanged_while_read(int fd, const FileIdentity& at_open, const std::string& path);

}  // namespace msit
