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
#include "common/compaction/min_max_output.h"
#include "common/formats/dump_name.h"
#include "common/formats/dump_reader.h"
#include "common/io/derived_names.h"
#include "common/io/sparse.h"
#include "common/store/store_registry.h"
#include "common/summary/summarize_internal.h"

namespace msit {
namespace {

// A crafted header must not make the daemon build a summary of hundreds of MB (real ones are
// a few KB; the tensor count is capped by the readers, kMaxTensorsPerFile).
constexpr size_t kMaxSummaryOutputBytes = 16u << 20;

// Reads a small file of ours (summary, converter file) through the directory fd, never
// following a link. nullopt when there is no such file.
Result<std::optional<std::string>> read_existing_at(const DirRef& dir, const std::string& name,
                                                    const std::string& path) {
  UniqueFd fd(::openat(dir.get(), name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
  if (!fd.valid()) {
    if (errno == ENOENT) return std::optional<std::string>();
    return make_sys_error(path, Stage::kOpen, "cannot read the existing file under the summary's name", errno);
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode) || static_cast<uint64_t>(st.st_size) > kSummaryMaxBytes)
    return make_error(path, Stage::kOpen, "a file that is not a summary of ours exists under the summary's name; kept");
  std::string bytes(static_cast<size_t>(st.st_size), '\0');
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::read(fd.get(), bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  bytes.resize(done);
  return std::optional<std::string>(std::move(bytes));
}

// A summary already in place that describes exactly this raw content needs no rewrite.
bool same_summarised_bytes(const FileSummary& e, const FileSummary& fresh) {
  if (e.source_name != fresh.source_name || e.source_size != fresh.source_size ||
      e.tensors.size() != fresh.tensors.size())
    return false;
  for (size_t i = 0; i < e.tensors.size(); ++i) {
    if (e.tensors[i].xxh3_64 != fresh.tensors[i].xxh3_64) return false;
  }
  return true;
}

bool rich_summary_matches(const std::string& text, const std::string& path, const FileSummary& fresh) {
  auto existing = summary_from_json(text, path);
  return existing.ok() && same_summarised_bytes(existing.value(), fresh);
}

// Bytes a summary takes as store rows (reported as "after" sizes; the database adds its pages).
uint64_t stored_size_estimate(const FileSummary& s, store::SketchPrecision precision) {
  const uint64_t bucket = precision == store::SketchPrecision::kFloat32 ? 4 : 8;
  uint64_t n = 64 + s.source_name.size() + (s.op ? s.op->name.size() + s.op->type.size() + 40 : 0);
  for (const auto& t : s.tensors) {
    n += 160 + t.dtype.size() + 8 * (t.shape.size() + t.original_shape.size());
    if (t.stats.values) n += 8 * t.stats.values->size();
    if (t.stats.sketch) n += bucket * t.stats.sketch->values.size();
  }
  return n + 48 * s.extra_blocks.size();
}

// The store holds one summary per raw path: the same bytes again are verified, other bytes
// under that path are somebody else's summary and are never replaced (as for a summary file).
Result<bool> needs_new_row(const PreparedSummary& p, const FileSummary& fresh) {
  MSIT_ASSIGN_OR_RETURN(std::optional<FileSummary> existing, p.store->find(p.store_rel));
  if (!existing) return true;
  existing->source_name = fresh.source_name;
  if (same_summarised_bytes(*existing, fresh)) return false;
  return make_error(p.raw_path, Stage::kConflict,
                    "the summary store " + p.store->path() +
                        " already holds a different summary under this "
                        "path (an earlier file of the same name); raw file kept: move it aside to compact it");
}

// --keep-raw reruns: a stored row recording this exact size and mtime needs no re-read.
bool row_up_to_date(const PreparedSummary& p, const FileIdentity& id) {
  auto row = p.store->find_identity(p.store_rel);
  return row.ok() && row->has_value() && (*row)->size == id.size && (*row)->mtime_ns == id.mtime_ns;
}

// The store of the raw file's dump root takes its row only when the store's readers are the
// raw file's (docs/store.md, "Who can read a store"); false: the caller writes a JSON summary.
Result<bool> attach_store(PreparedSummary& p, const CompactOptions& opts, const OutputAccess& access) {
  if (opts.stores == nullptr)
    return make_error(p.raw_path, Stage::kStore, "no summary store registry (internal error)");
  MSIT_ASSIGN_OR_RETURN(store::StoreRegistry::Slot slot, opts.stores->store_for(p.raw_path, access));
  if (!slot.same_readers) return false;
  p.store = std::move(slot.store);
  p.store_rel = std::move(slot.rel);
  p.summary_path = p.store->path();
  return true;
}

Result<std::string> encode_summary(const FileSummary& s, const RawDumpFile& raw, SummaryFormat format) {
  if (format == SummaryFormat::kRich) return summary_to_json(s);
  return encode_min_max_summary(s, raw);
}

Status check_unchanged_while_read(int fd, const FileIdentity& at_open, const std::string& path) {
  MSIT_ASSIGN_OR_RETURN(FileIdentity now, identity_of(fd, path));
  if (!now.same_content_as(at_open) || now.ctime_ns != at_open.ctime_ns) {
    return make_error(path, Stage::kIncomplete,
                      "file changed while it was being read (still being written?); left in place");
  }
  return ok_status();
}

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
  o.summary_path = p.summary_path;
  o.raw_bytes = p.raw_identity.size;
  o.summary_bytes = p.summary_bytes + p.archive_bytes;
  o.archive_path = p.archive_path;
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

// --keep-raw reruns: a summary recording this exact size and mtime needs no re-read.
bool summary_up_to_date(const PreparedSummary& p, const FileIdentity& id) {
  auto text = read_existing_at(p.raw_file.dir, p.summary_name, p.summary_path);
  if (!text.ok() || !text->has_value()) return false;
  auto existing = summary_from_json(**text, p.summary_path);
  return existing.ok() && existing->source_size == id.size && existing->source_mtime_ns == id.mtime_ns;
}

// The archive is written and decoded back before the raw file is re-checked, so a raw file
// that changed while it was compressed is never replaced by a stale archive.
Status prepare_archive(const OpenedRaw& raw, const CompactOptions& opts, PreparedSummary& p) {
  FileSource src(raw.fd.get(), p.raw_path, raw.identity.size);
  struct stat st {};
  const bool have_st = ::fstat(raw.fd.get(), &st) == 0;
  const unsigned mode = have_st ? static_cast<unsigned>(st.st_mode) : 0600u;
  std::optional<archive::OriginalOwner> owner;
  if (have_st) owner = archive::OriginalOwner{st.st_uid, st.st_gid};
  MSIT_ASSIGN_OR_RETURN(archive::WrittenArchive w,
                        archive::write_verified_archive_temp(src, raw.header, raw.identity, mode, opts.archive,
                                                             p.raw_file.dir, p.raw_file.name, owner, raw.access));
  p.archive_path = w.final_path;
  p.archive_bytes = w.bytes;
  p.archive_temp.emplace(std::move(w.temp));
  return check_unchanged_while_read(raw.fd.get(), raw.identity, p.raw_path);
}

// The temp is fsynced in publish_summaries(), not here: started now (sync_file_range) and
// waited for there, a batch's temps share one journal commit instead of one each.
// Created private (0600, root's as root): it is given the raw file's owner and mode in
// sync_temps(), just before it is made durable and published, so that a temp a kill leaves
// behind is still ours and removed by the next run (docs/safety.md P5, V1).
Result<DirTemp> write_temp_unsynced(const DirRef& dir, const std::string& final_name, std::string_view bytes) {
  MSIT_ASSIGN_OR_RETURN(DirTemp t, DirTemp::create(dir, final_name, 0600));
  MSIT_TRY(t.write(bytes));
  ::sync_file_range(t.fd(), 0, 0, SYNC_FILE_RANGE_WRITE);
  return t;
}

// Decides whether the summary must be written: an identical or matching one in place is
// verified; any other file under that name is somebody else's and is never replaced.
Result<bool> needs_new_summary(const PreparedSummary& p, const FileSummary& summary, const std::string& bytes,
                               SummaryFormat format) {
  MSIT_ASSIGN_OR_RETURN(std::optional<std::string> existing,
                        read_existing_at(p.raw_file.dir, p.summary_name, p.summary_path));
  if (!existing) return true;
  if (*existing == bytes) return false;
  if (format == SummaryFormat::kRich && rich_summary_matches(*existing, p.summary_path, summary)) return false;
  return make_error(p.summary_path, Stage::kConflict,
                    "a different file already exists under the summary's name (not a summary of this raw "
                    "file's bytes); both kept: move one of them aside");
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

PreparedSummary skeleton(const FileRef& f, const CompactOptions& opts) {
  PreparedSummary p;
  p.raw_file = f;
  p.raw_path = f.path;
  p.summary_path = summary_path_for(f.path, opts.format);
  p.summary_name = summary_path_for(f.name, opts.format);
  p.dry_run = opts.dry_run;
  p.raw = opts.raw;
  return p;
}

}  // namespace

std::string summary_path_for(const std::string& raw_path, SummaryFormat format) {
  if (format == SummaryFormat::kRich) return summary_name_for(raw_path);
  if (format == SummaryFormat::kStore) return {};  // rows of a store, not a file: common/store/store_locator.h
  return min_max_name_for(raw_path);
}

Result<PreparedSummary> prepare_summary(const FileRef& f, const CompactOptions& given) {
  MSIT_ASSIGN_OR_RETURN(OpenedRaw raw, open_raw_at(f));
  // Per-file JSON summaries instead of store rows: on a network filesystem (SQLite's locks),
  // and for a raw file whose readers are not those of its dump root's store.
  CompactOptions as_json;
  bool to_json = given.format == SummaryFormat::kStore && given.stores != nullptr && given.stores->json_instead(f.path);
  PreparedSummary p = skeleton(f, given);
  if (given.format == SummaryFormat::kStore && !given.dry_run && !to_json) {
    MSIT_ASSIGN_OR_RETURN(bool attached, attach_store(p, given, raw.access));
    to_json = !attached;
  }
  if (to_json) {
    as_json = given;
    as_json.format = SummaryFormat::kRich;
    p = skeleton(f, as_json);
  }
  const CompactOptions& opts = to_json ? as_json : given;
  const bool to_store = opts.format == SummaryFormat::kStore;
  p.raw_identity = raw.identity;
  if (opts.raw == RawAction::kKeep && !opts.dry_run &&
      ((opts.format == SummaryFormat::kRich && summary_up_to_date(p, raw.identity)) ||
       (to_store && row_up_to_date(p, raw.identity)))) {
    return p;
  }
  MSIT_TRY(check_every_byte_covered(raw.header, opts, f.path));
  MSIT_ASSIGN_OR_RETURN(FileSummary summary, summarize_open_file(raw.fd.get(), raw.header, opts.stats));
  MSIT_TRY(check_unchanged_while_read(raw.fd.get(), raw.identity, f.path));
  std::string bytes;
  if (to_store) {
    p.summary_bytes = stored_size_estimate(summary, opts.store_sketch);
    p.store_sketch = opts.store_sketch;
  } else {
    MSIT_ASSIGN_OR_RETURN(bytes, encode_summary(summary, raw.header, opts.format));
    if (bytes.size() > kMaxSummaryOutputBytes) {
      return make_error(f.path, Stage::kSummary,
                        "summary would be " + std::to_string(bytes.size() >> 20) + " MiB (limit 16 MiB; " +
                            std::to_string(summary.tensors.size()) + " tensors): not a real dump op; raw file kept");
    }
    p.summary_bytes = bytes.size();
  }
  if (opts.dry_run) return p;
  if (opts.raw == RawAction::kArchive) MSIT_TRY(prepare_archive(raw, opts, p));
  if (to_store) {
    MSIT_ASSIGN_OR_RETURN(bool fresh, needs_new_row(p, summary));
    if (fresh) p.stored = std::move(summary);
    p.raw_fd = std::move(raw.fd);
    return p;
  }
  MSIT_ASSIGN_OR_RETURN(bool write, needs_new_summary(p, summary, bytes, opts.format));
  if (write) {
    MSIT_ASSIGN_OR_RETURN(DirTemp t, write_temp_unsynced(f.dir, p.summary_name, bytes));
    p.temp.emplace(std::move(t));
    p.temp_access = raw.access;
  }
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
void sync_temps(std::vector<PreparedSummary>& batch, std::vector<std::optional<Error>>& failure) {
  for (size_t i = 0; i < batch.size(); ++i) {
    PreparedSummary& p = batch[i];
    if (p.dry_run || !p.temp) continue;
    Status st = apply_output_access(p.temp->fd(), p.temp_access, p.temp->final_path());
    if (st.ok()) st = p.temp->sync_and_close();
    if (st.ok()) continue;
    p.temp.reset();
    p.archive_temp.reset();
    failure[i] = st.take_error();
  }
}

// Never over an unrelated NAME.zst (issue 12); a crashed run's own archive (valid, same bytes)
// already under the name counts as published, and the temp is dropped.
Status publish_archive_temp(PreparedSummary& p) {
  DirTemp& t = *p.archive_temp;
  auto st = t.publish();
  if (st.ok()) return st;
  const std::string final_name = archive_name_for(p.raw_file.name);
  if (archive::same_archive_present(t.dir().get(), t.temp_name(), final_name)) return ok_status();
  struct stat there {};
  if (::fstatat(t.dir().get(), final_name.c_str(), &there, AT_SYMLINK_NOFOLLOW) == 0) {
    return make_error(p.archive_path, Stage::kConflict, "exists and is not this file's archive; raw file kept");
  }
  return st;
}

// One transaction per store for the batch's new rows, durable before anything else happens;
// a failed commit fails exactly the entries it held (their raw files stay).
void commit_store_rows(std::vector<PreparedSummary>& batch, std::vector<std::optional<Error>>& failure) {
  std::map<store::SummaryStore*, std::vector<size_t>> by_store;
  for (size_t i = 0; i < batch.size(); ++i) {
    if (!batch[i].dry_run && !failure[i] && batch[i].stored) by_store[batch[i].store.get()].push_back(i);
  }
  for (auto& [st, members] : by_store) {
    std::vector<store::StoreEntry> entries;
    entries.reserve(members.size());
    for (size_t i : members)
      entries.push_back({batch[i].store_rel, batch[i].raw_identity, &*batch[i].stored, batch[i].store_sketch});
    auto done = st->put(entries);
    if (done.ok()) continue;
    for (size_t i : members) {
      failure[i] = done.error();
      batch[i].archive_temp.reset();
    }
  }
}

Status publish_one(PreparedSummary& p) {
  if (p.temp) MSIT_TRY(p.temp->publish());
  if (p.archive_temp) MSIT_TRY(publish_archive_temp(p));
  return ok_status();
}

}  // namespace

DurableBatch make_durable(std::vector<PreparedSummary> batch) {
  DurableBatch d;
  std::vector<std::optional<Error>> failure(batch.size());
  d.summary_new.assign(batch.size(), false);
  sync_temps(batch, failure);
  commit_store_rows(batch, failure);
  std::map<int, std::pair<DirRef, bool>> dirs;  // by fd: one fsync per directory, and its result
  for (size_t i = 0; i < batch.size(); ++i) {
    PreparedSummary& p = batch[i];
    if (p.dry_run || failure[i]) continue;
    d.summary_new[i] = p.temp.has_value() || p.stored.has_value();
    const bool wrote = p.temp || p.archive_temp;
    auto st = publish_one(p);
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
          make_error(p.summary_path, Stage::kFsyncDir, "directory fsync failed; raw file kept until a later retry"));
    } else {
      d.removals.push_back(i);
    }
  }
  // Removal needs no store: a store whose last commit this was can close (checkpoint its WAL)
  // while the raw files are removed.
  for (auto& p : batch) p.store.reset();
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
