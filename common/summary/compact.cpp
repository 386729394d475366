// compact_file() and its batched form: the only code that deletes raw dump files.
// Order is what keeps data safe: summary durable (temp, fsync, rename, dir fsync) first,
// then re-check that the raw file is exactly what was read, then unlink.
#include "common/summary/compact.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <optional>
#include <set>

#include "common/formats/dump_reader.h"
#include "common/io/atomic_write.h"
#include "common/summary/min_max_output.h"
#include "common/summary/summarize_internal.h"

namespace msit {
namespace {

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// A summary already in place that describes exactly this raw content needs no rewrite.
bool existing_summary_matches(const std::string& summary_path, const FileSummary& fresh) {
  auto existing = read_summary_file(summary_path);
  if (!existing.ok()) return false;
  const FileSummary& e = existing.value();
  if (e.source_name != fresh.source_name || e.source_size != fresh.source_size ||
      e.tensors.size() != fresh.tensors.size())
    return false;
  for (size_t i = 0; i < e.tensors.size(); ++i) {
    if (e.tensors[i].xxh3_64 != fresh.tensors[i].xxh3_64) return false;
  }
  return true;
}

Result<std::string> encode_summary(const FileSummary& s, const RawDumpFile& raw, SummaryFormat format) {
  if (format == SummaryFormat::kRich) return summary_to_json(s);
  return encode_min_max_summary(s, raw);
}

Status check_unchanged_while_read(int fd, const OpenedRaw& raw, const std::string& path) {
  MSIT_ASSIGN_OR_RETURN(FileIdentity now, identity_of(fd, path));
  if (!now.same_content_as(raw.identity)) {
    return make_error(path, "incomplete",
                      "file changed while it was being read (still being written?); left in place");
  }
  return ok_status();
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

// Unlink only if the path still names the very file that was summarised.
Status remove_raw_if_unchanged(const PreparedSummary& p) {
  MSIT_ASSIGN_OR_RETURN(FileIdentity now, identity_at_path(p.raw_path));
  if (!now.same_content_as(p.raw_identity)) {
    return make_error(p.raw_path, "unlink",
                      "raw file changed after it was summarised (size, mtime or inode differ); kept");
  }
  if (::unlink(p.raw_path.c_str()) != 0 && errno != ENOENT) {
    return make_sys_error(p.raw_path, "unlink", "cannot remove raw file after summarising", errno);
  }
  return ok_status();
}

Result<CompactOutcome> finish_one(const PreparedSummary& p) {
  CompactOutcome o = outcome_of(p, p.temp_path.empty() ? CompactResultKind::kVerifiedExisting
                                                        : CompactResultKind::kCompacted);
  if (p.raw == RawAction::kDelete || p.raw == RawAction::kArchive) {
    MSIT_TRY(remove_raw_if_unchanged(p));
    o.raw_removed = true;
  }
  return o;
}

// --keep-raw reruns: a summary recording this exact size and mtime needs no re-read.
bool summary_up_to_date(const std::string& summary_path, const FileIdentity& id) {
  auto existing = read_summary_file(summary_path);
  return existing.ok() && existing->source_size == id.size && existing->source_mtime_ns == id.mtime_ns;
}

// The archive is written and decoded back before the raw file is re-checked, so a raw file
// that changed while it was compressed is never replaced by a stale archive.
Status prepare_archive(const OpenedRaw& raw, const std::string& path, const CompactOptions& opts,
                       PreparedSummary& p) {
  FileSource src(raw.fd.get(), path, raw.identity.size);
  struct stat st {};
  const bool have_st = ::fstat(raw.fd.get(), &st) == 0;
  const unsigned mode = have_st ? static_cast<unsigned>(st.st_mode) : 0644u;
  std::optional<archive::OriginalOwner> owner;
  if (have_st) owner = archive::OriginalOwner{st.st_uid, st.st_gid};
  MSIT_ASSIGN_OR_RETURN(archive::WrittenArchive w,
                        archive::write_verified_archive_temp(src, raw.header, raw.identity, mode, opts.archive, owner));
  p.archive_temp_path = std::move(w.temp);
  p.archive_path = w.final_path;
  p.archive_bytes = w.bytes;
  return check_unchanged_while_read(raw.fd.get(), raw, path);  // on failure p's owner removes the temp
}

// The temp is fsynced in publish_summaries(), not here: started now (sync_file_range) and
// waited for there, a batch's temps share one journal commit instead of one each.
// The last close() is checked: on NFS a write error may be reported there and only there.
Result<std::string> write_temp_unsynced(const std::string& final_path, std::string_view bytes) {
  int last = -1;
  std::string temp;
  {
    MSIT_ASSIGN_OR_RETURN(TempFile t, TempFile::create(final_path));
    MSIT_TRY(t.write(std::as_bytes(std::span<const char>(bytes.data(), bytes.size()))));
    ::sync_file_range(t.fd(), 0, 0, SYNC_FILE_RANGE_WRITE);
    last = ::dup(t.fd());
    if (last < 0) return make_sys_error(final_path, "write", "dup of temp file " + t.path() + " failed", errno);
    temp = t.release();
  }  // t closed its descriptor (and kept the file): `last` is the only one left
  if (::close(last) != 0) {
    const int err = errno;
    ::unlink(temp.c_str());
    return make_sys_error(final_path, "write", "close of temp file " + temp + " failed", err);
  }
  return temp;
}

Status fsync_temp(const std::string& temp_path, const std::string& final_path) {
  UniqueFd fd(::open(temp_path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
  if (!fd.valid()) return make_sys_error(final_path, "fsync", "cannot reopen temp file " + temp_path, errno);
  if (::fsync(fd.get()) != 0) return make_sys_error(final_path, "fsync", "fsync of temp file " + temp_path + " failed", errno);
  return ok_status();
}

// Every temp of the batch durable before any rename: the first fsync commits the journal
// transaction that holds them all, the others then find nothing left to write.
void fsync_temps(std::vector<PreparedSummary>& batch, std::vector<std::optional<Error>>& failure) {
  for (size_t i = 0; i < batch.size(); ++i) {
    PreparedSummary& p = batch[i];
    if (p.dry_run || p.temp_path.empty()) continue;
    auto st = fsync_temp(p.temp_path, p.summary_path);
    if (st.ok()) continue;
    ::unlink(p.temp_path.c_str());
    p.archive_temp_path.remove();
    failure[i] = st.take_error();
  }
}

// Never over an unrelated NAME.zst (issue 12): see archive::publish_archive.
Status rename_archive(PreparedSummary& p) {
  if (p.archive_temp_path.empty()) return ok_status();
  MSIT_ASSIGN_OR_RETURN(PublishResult r, archive::publish_archive(AT_FDCWD, p.archive_temp_path.path(),
                                                                 p.archive_path, p.archive_path));
  if (r == PublishResult::kPublished) p.archive_temp_path.release();  // else: its own archive was there
  return ok_status();
}

}  // namespace

std::string summary_path_for(const std::string& raw_path, SummaryFormat format) {
  if (format == SummaryFormat::kRich) return raw_path + std::string(".summary.json");
  if (ends_with(raw_path, ".npy")) return raw_path.substr(0, raw_path.size() - 4) + "_min_max.npy";
  return raw_path + "_min_max.npz";
}

Result<PreparedSummary> prepare_summary(const std::string& path, const CompactOptions& opts) {
  MSIT_ASSIGN_OR_RETURN(OpenedRaw raw, open_raw(path));
  if (opts.raw == RawAction::kKeep && !opts.dry_run && opts.format == SummaryFormat::kRich &&
      summary_up_to_date(summary_path_for(path, opts.format), raw.identity)) {
    PreparedSummary p;
    p.raw_path = path;
    p.summary_path = summary_path_for(path, opts.format);
    p.raw_identity = raw.identity;
    p.raw = opts.raw;
    return p;
  }
  MSIT_ASSIGN_OR_RETURN(FileSummary summary, summarize_open_file(raw.fd.get(), raw.header, opts.stats));
  MSIT_TRY(check_unchanged_while_read(raw.fd.get(), raw, path));

  PreparedSummary p;
  p.raw_path = path;
  p.summary_path = summary_path_for(path, opts.format);
  p.raw_identity = raw.identity;
  p.dry_run = opts.dry_run;
  p.raw = opts.raw;
  MSIT_ASSIGN_OR_RETURN(std::string bytes, encode_summary(summary, raw.header, opts.format));
  p.summary_bytes = bytes.size();
  if (opts.dry_run) return p;
  if (opts.raw == RawAction::kArchive) MSIT_TRY(prepare_archive(raw, path, opts, p));
  if (opts.format == SummaryFormat::kRich && existing_summary_matches(p.summary_path, summary)) {
    return p;  // verified: the summary in place already describes these bytes
  }
  MSIT_ASSIGN_OR_RETURN(p.temp_path, write_temp_unsynced(p.summary_path, bytes));
  return p;
}

std::vector<Result<CompactOutcome>> publish_summaries(std::vector<PreparedSummary> batch) {
  std::vector<std::optional<Error>> failure(batch.size());
  std::set<std::string> dirs;
  fsync_temps(batch, failure);
  for (size_t i = 0; i < batch.size(); ++i) {
    PreparedSummary& p = batch[i];
    if (p.dry_run || failure[i]) continue;
    auto st = p.temp_path.empty() ? ok_status() : rename_into_place(p.temp_path, p.summary_path);
    if (st.ok()) st = rename_archive(p);
    if (!st.ok()) {
      p.archive_temp_path.remove();
      failure[i] = st.take_error();
      continue;
    }
    if (!p.temp_path.empty() || !p.archive_path.empty()) dirs.insert(parent_dir(p.summary_path));
  }
  // One fsync per directory makes every rename above durable before any unlink below.
  std::set<std::string> failed_dirs;
  for (const auto& d : dirs) {
    if (!fsync_dir(d).ok()) failed_dirs.insert(d);
  }
  std::vector<Result<CompactOutcome>> out;
  out.reserve(batch.size());
  for (size_t i = 0; i < batch.size(); ++i) {
    const PreparedSummary& p = batch[i];
    if (failure[i]) {
      out.emplace_back(std::move(*failure[i]));
    } else if (p.dry_run) {
      out.emplace_back(outcome_of(p, CompactResultKind::kDryRun));
    } else if (failed_dirs.count(parent_dir(p.summary_path))) {
      out.emplace_back(make_error(p.summary_path, "fsync-dir",
                                  "directory fsync failed; raw file kept until a later retry"));
    } else {
      out.emplace_back(finish_one(p));
    }
  }
  return out;
}

Result<CompactOutcome> compact_file(const std::string& path, const CompactOptions& opts) {
  MSIT_ASSIGN_OR_RETURN(PreparedSummary p, prepare_summary(path, opts));
  std::vector<PreparedSummary> batch;
  batch.push_back(std::move(p));
  auto results = publish_summaries(std::move(batch));
  return std::move(results.front());
}

}  // namespace msit
