// compact_file() and its batched form: the only code that removes raw dump files.
// Order is what keeps data safe: summary durable (temp, fsync, no-replace rename, dir fsync)
// first, then claim-then-unlink of the very file that was read (common/safety/publish.h).
// Every operation is relative to the directory fd the raw file was opened through.
#include "common/compaction/compact.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <ctime>
#include <map>

#include "common/base/io_pool.h"
#include "common/compaction/store_sink.h"
#include "common/formats/dump_name.h"
#include "common/formats/dump_reader.h"
#include "common/io/derived_names.h"
#include "common/io/sparse.h"
#include "common/store/store_registry.h"
#include "common/summary/summarize_internal.h"

namespace msit {
namespace {

// Every byte of a file that is to be deleted must be in its summary's tensors.
Status check_every_byte_covered(const RawDumpFile& h, const CompactOptions& opts, const std::string& path) {
  if (opts.raw != RawAction::kDelete || opts.dry_run) return ok_status();
  if (h.declared_size >= h.identity.size) return ok_status();
  return make_error(path, Stage::kCoverage,
                    std::to_string(h.identity.size - h.declared_size) +
                        " bytes after the declared tensors are in no summary (trailing data, or a second dump "
                        "appended); raw file kept (--archive keeps every byte and may then remove it)");
}

CompactOutcome outcome_of(const PreparedSummary& p, CompactResultKind kind) {
  CompactOutcome o;
  o.kind = kind;
  o.raw_path = p.raw_path;
  o.summary_path = p.sink->path();
  o.raw_bytes = p.raw_identity.size;
  o.summary_bytes = p.sink->bytes();
  o.archive_path = p.sink->archive_path();
  return o;
}

Result<CompactOutcome> finish_one(const PreparedSummary& p, bool summary_new) {
  CompactOutcome o = outcome_of(p, summary_new ? CompactResultKind::kCompacted : CompactResultKind::kVerifiedExisting);
  if (p.raw == RawAction::kDelete || p.raw == RawAction::kArchive) {
    MSIT_TRY(remove_if_same(p.raw_file, p.raw_fd.get(), p.raw_identity));
    o.raw_removed = true;
  }
  return o;
}

Result<OpenedRaw> open_raw_at(const FileRef& f) {
  UniqueFd fd(::openat(f.dir.get(), f.name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
  if (!fd.valid()) {
    const int err = errno;
    if (err == ELOOP) return make_error(f.path, Stage::kOpen, "is a symbolic link; links are never followed");
    return make_sys_error(f.path, Stage::kOpen, "cannot open for reading", err);
  }
  OpenedRaw o;
  MSIT_ASSIGN_OR_RETURN(o.identity, identity_of(fd.get(), f.path));
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode))
    return make_error(f.path, Stage::kOpen, "not a regular file");
  // Another name keeps the same bytes (maybe in a tree we do not watch): removing this one
  // frees nothing and says nothing true about the data, so it is left alone (docs/safety.md).
  if (st.st_nlink > 1) {
    return make_error(
        f.path, Stage::kLinks,
        "has " + std::to_string(st.st_nlink) + " hard links: left alone (remove the other names to have it compacted)");
  }
  o.access = output_access_for(st);
  MSIT_TRY(refuse_sparse(fd.get(), st, f.path));  // before any byte is read: holes cost work, not data
  ::fcntl(fd.get(), F_SETFL, 0);                  // readers hand the fd on: make it an ordinary blocking one
  o.fd = std::move(fd);
  MSIT_ASSIGN_OR_RETURN(o.header, read_dump_header(o.fd.get(), f.path, o.identity));
  return o;
}

}  // namespace

Result<PreparedSummary> prepare_summary(const FileRef& f, const CompactOptions& opts) {
  MSIT_ASSIGN_OR_RETURN(OpenedRaw raw, open_raw_at(f));
  PreparedSummary p;
  p.raw_file = f;
  p.raw_path = f.path;
  p.dry_run = opts.dry_run;
  p.raw = opts.raw;
  MSIT_ASSIGN_OR_RETURN(p.sink, make_summary_sink(f, opts, raw.access));
  p.raw_identity = raw.identity;
  if (opts.raw == RawAction::kKeep && !opts.dry_run && p.sink->up_to_date(raw.identity)) return p;
  MSIT_TRY(check_every_byte_covered(raw.header, opts, f.path));
  MSIT_ASSIGN_OR_RETURN(FileSummary summary, summarize_open_file(raw.fd.get(), raw.header, opts.stats));
  MSIT_TRY(check_unchanged_while_read(raw.fd.get(), raw.identity, f.path));
  MSIT_TRY(p.sink->encode(summary, raw.header));
  if (opts.dry_run) return p;
  MSIT_TRY(p.sink->stage(std::move(summary), raw));
  p.raw_fd = std::move(raw.fd);
  return p;
}

Result<PreparedSummary> prepare_summary(const std::string& path, const CompactOptions& opts) {
  MSIT_ASSIGN_OR_RETURN(FileRef f, file_ref_of_path(path));
  return prepare_summary(f, opts);
}

namespace {

// Every temp of the batch durable before any rename: the first fsync commits the journal
// transaction that holds them all, the others then find nothing left to write.
void sync_outputs(std::vector<PreparedSummary>& batch, std::vector<std::optional<Error>>& failure) {
  for (size_t i = 0; i < batch.size(); ++i) {
    PreparedSummary& p = batch[i];
    if (p.dry_run) continue;
    Status st = p.sink->sync();
    if (st.ok()) continue;
    p.sink->abandon();
    failure[i] = st.take_error();
  }
}

// One transaction per store for the batch's new rows, durable before anything else happens;
// a failed commit fails exactly the entries it held (their raw files stay).
void commit_rows(std::vector<PreparedSummary>& batch, std::vector<std::optional<Error>>& failure) {
  BatchCommit commit;
  for (size_t i = 0; i < batch.size(); ++i) {
    if (!batch[i].dry_run && !failure[i]) batch[i].sink->join_commit(commit, i);
  }
  for (auto& [i, error] : commit.commit()) {
    failure[i] = std::move(error);
    batch[i].sink->abandon();
  }
}

}  // namespace

DurableBatch make_durable(std::vector<PreparedSummary> batch) {
  DurableBatch d;
  std::vector<std::optional<Error>> failure(batch.size());
  d.summary_new.assign(batch.size(), false);
  sync_outputs(batch, failure);
  commit_rows(batch, failure);
  std::map<int, std::pair<DirRef, bool>> dirs;  // by fd: one fsync per directory, and its result
  for (size_t i = 0; i < batch.size(); ++i) {
    PreparedSummary& p = batch[i];
    if (p.dry_run || failure[i]) continue;
    d.summary_new[i] = p.sink->summary_new();
    const bool wrote = p.sink->writes_in_dir();
    auto st = p.sink->publish();
    if (!st.ok()) {
      failure[i] = st.take_error();
      continue;
    }
    if (wrote) dirs.emplace(p.raw_file.dir.get(), std::make_pair(p.raw_file.dir, true));
  }
  // One fsync per directory makes every rename above durable before any unlink.
  for (auto& [fd, entry] : dirs) entry.second = ::fsync(fd) == 0;
  d.slots.resize(batch.size());
  for (size_t i = 0; i < batch.size(); ++i) {
    const PreparedSummary& p = batch[i];
    auto dir = dirs.find(p.raw_file.dir.get());
    if (failure[i]) {
      d.slots[i].emplace(std::move(*failure[i]));
    } else if (p.dry_run) {
      d.slots[i].emplace(outcome_of(p, CompactResultKind::kDryRun));
    } else if (dir != dirs.end() && !dir->second.second) {
      d.slots[i].emplace(
          make_error(p.sink->path(), Stage::kFsyncDir, "directory fsync failed; raw file kept until a later retry"));
    } else {
      d.removals.push_back(i);
    }
  }
  // Removal needs no store: a store whose last commit this was can close (checkpoint its WAL)
  // while the raw files are removed.
  for (auto& p : batch) p.sink->release();
  d.batch = std::move(batch);
  return d;
}

std::vector<Result<CompactOutcome>> remove_raw_files(DurableBatch d) {
  // Raw files are removed in parallel: on ext4 with discard each unlink waits ~1 ms and
  // the filesystem runs many at once (common/base/io_pool.h). The raw file's descriptor is
  // closed there too: that last close, not the unlink, frees the inode (ext4_evict_inode:
  // truncate, free and discard the blocks), 27% of compact's samples in perf when the
  // batch closed its descriptors one after another on the publishing thread.
  run_on_io_pool(d.removals.size(), [&d](size_t k) {
    const size_t i = d.removals[k];
    d.slots[i].emplace(finish_one(d.batch[i], d.summary_new[i]));
    d.batch[i].raw_fd.reset();
  });
  std::vector<Result<CompactOutcome>> out;
  out.reserve(d.slots.size());
  for (auto& s : d.slots) out.push_back(std::move(*s));
  return out;
}

std::vector<Result<CompactOutcome>> publish_summaries(std::vector<PreparedSummary> batch, int64_t* durable_ns) {
  DurableBatch d = make_durable(std::move(batch));
  if (durable_ns) {
    struct timespec ts {};
    ::clock_gettime(CLOCK_MONOTONIC, &ts);
    *durable_ns = static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
  }
  return remove_raw_files(std::move(d));
}

Result<CompactOutcome> compact_file(const FileRef& f, const CompactOptions& opts) {
  MSIT_ASSIGN_OR_RETURN(PreparedSummary p, prepare_summary(f, opts));
  std::vector<PreparedSummary> batch;
  batch.push_back(std::move(p));
  auto results = publish_summaries(std::move(batch));
  return std::move(results.front());
}

Result<CompactOutcome> compact_file(const std::string& path, const CompactOptions& opts) {
  MSIT_ASSIGN_OR_RETURN(FileRef f, file_ref_of_path(path));
  return compact_file(f, opts);
}

}  // namespace msit
