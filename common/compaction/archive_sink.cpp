// The archive decorator: archive written, decoded back and made durable before the summary is
// staged; renamed into place after it.
#include "common/compaction/archive_sink.h"

#include <fcntl.h>
#include <sys/stat.h>

#include "common/io/derived_names.h"

namespace msit {

ArchiveSink::ArchiveSink(std::unique_ptr<SummarySink> summary, const FileRef& raw, const archive::ArchiveOptions& opts)
    : summary_(std::move(summary)), raw_(raw), opts_(opts) {}

// The archive is written and decoded back before the raw file is re-checked, so a raw file
// that changed while it was compressed is never replaced by a stale archive.
Status ArchiveSink::stage(FileSummary s, const OpenedRaw& raw) {
  FileSource src(raw.fd.get(), raw_.path, raw.identity.size);
  struct stat st {};
  const bool have_st = ::fstat(raw.fd.get(), &st) == 0;
  const unsigned mode = have_st ? static_cast<unsigned>(st.st_mode) : 0600u;
  std::optional<archive::OriginalOwner> owner;
  if (have_st) owner = archive::OriginalOwner{st.st_uid, st.st_gid};
  MSIT_ASSIGN_OR_RETURN(archive::WrittenArchive w,
                        archive::write_verified_archive_temp(src, raw.header, raw.identity, mode, opts_, raw_.dir,
                                                             raw_.name, owner, raw.access));
  path_ = w.final_path;
  bytes_ = w.bytes;
  temp_.emplace(std::move(w.temp));
  MSIT_TRY(check_unchanged_while_read(raw.fd.get(), raw.identity, raw_.path));
  return summary_->stage(std::move(s), raw);
}

Status ArchiveSink::publish() {
  MSIT_TRY(summary_->publish());
  if (temp_) MSIT_TRY(publish_archive());
  return ok_status();
}

void ArchiveSink::abandon() {
  summary_->abandon();
  temp_.reset();
}

// Never over an unrelated NAME.zst (issue 12); a crashed run's own archive (valid, same bytes)
// already under the name counts as published, and the temp is dropped.
Status ArchiveSink::publish_archive() {
  DirTemp& t = *temp_;
  auto st = t.publish();
  if (st.ok()) return st;
  const std::string final_name = archive_name_for(raw_.name);
  if (archive::same_archive_present(t.dir().get(), t.temp_name(), final_name)) return ok_status();
  struct stat there {};
  if (::fstatat(t.dir().get(), final_name.c_str(), &there, AT_SYMLINK_NOFOLLOW) == 0) {
    return make_error(path_, Stage::kConflict, "exists and is not this file's archive; raw file kept");
  }
  return st;
}

}  // namespace msit
