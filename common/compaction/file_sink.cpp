// The file sinks' shared steps (temp, verification of a file already in place) and the JSON
// summary's own: its encoding, and what counts as the same summary.
#include "common/compaction/file_sink.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "common/io/derived_names.h"

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

// The temp is fsynced in sync(), with the whole batch, not here: started now
// (sync_file_range) and waited for there, a batch's temps share one journal commit instead
// of one each. Created private (0600, root's as root): it is given the raw file's owner and
// mode just before it is made durable and published, so that a temp a kill leaves behind is
// still ours and removed by the next run (docs/safety.md P5, V1).
Result<DirTemp> write_temp_unsynced(const DirRef& dir, const std::string& final_name, std::string_view bytes) {
  MSIT_ASSIGN_OR_RETURN(DirTemp t, DirTemp::create(dir, final_name, 0600));
  MSIT_TRY(t.write(bytes));
  ::sync_file_range(t.fd(), 0, 0, SYNC_FILE_RANGE_WRITE);
  return t;
}

}  // namespace

FileSink::FileSink(const FileRef& raw, std::string summary_name, std::string summary_path)
    : raw_(raw), name_(std::move(summary_name)), path_(std::move(summary_path)) {}

Result<std::optional<std::string>> FileSink::read_existing() const { return read_existing_at(raw_.dir, name_, path_); }

Status FileSink::encode(const FileSummary& s, const RawDumpFile& raw) {
  MSIT_ASSIGN_OR_RETURN(encoded_, encode_bytes(s, raw));
  if (encoded_.size() > kMaxSummaryOutputBytes) {
    return make_error(raw_.path, Stage::kSummary,
                      "summary would be " + std::to_string(encoded_.size() >> 20) + " MiB (limit 16 MiB; " +
                          std::to_string(s.tensors.size()) + " tensors): not a real dump op; raw file kept");
  }
  size_ = encoded_.size();
  return ok_status();
}

// Decides whether the summary must be written: an identical or matching one in place is
// verified; any other file under that name is somebody else's and is never replaced.
Result<bool> FileSink::needs_new_summary(const FileSummary& s) const {
  MSIT_ASSIGN_OR_RETURN(std::optional<std::string> existing, read_existing());
  if (!existing) return true;
  if (*existing == encoded_) return false;
  if (existing_matches(*existing, s)) return false;
  return make_error(path_, Stage::kConflict,
                    "a different file already exists under the summary's name (not a summary of this raw "
                    "file's bytes); both kept: move one of them aside");
}

Status FileSink::stage(FileSummary s, const OpenedRaw& raw) {
  MSIT_ASSIGN_OR_RETURN(bool write, needs_new_summary(s));
  if (write) {
    MSIT_ASSIGN_OR_RETURN(DirTemp t, write_temp_unsynced(raw_.dir, name_, encoded_));
    temp_.emplace(std::move(t));
    access_ = raw.access;
  }
  encoded_ = std::string();
  return ok_status();
}

// Every temp of the batch is synced before any rename: the first fsync commits the journal
// transaction that holds them all, the others then find nothing left to write.
Status FileSink::sync() {
  if (!temp_) return ok_status();
  Status st = apply_output_access(temp_->fd(), access_, temp_->final_path());
  if (st.ok()) st = temp_->sync_and_close();
  return st;
}

Status FileSink::publish() {
  if (temp_) MSIT_TRY(temp_->publish());
  return ok_status();
}

JsonSink::JsonSink(const FileRef& raw) : FileSink(raw, summary_name_for(raw.name), summary_name_for(raw.path)) {}

bool JsonSink::up_to_date(const FileIdentity& id) const {
  auto text = read_existing();
  if (!text.ok() || !text->has_value()) return false;
  auto existing = summary_from_json(**text, path());
  return existing.ok() && existing->source_size == id.size && existing->source_mtime_ns == id.mtime_ns;
}

Result<std::string> JsonSink::encode_bytes(const FileSummary& s, const RawDumpFile& /*raw*/) const {
  return summary_to_json(s);
}

bool JsonSink::existing_matches(const std::string& text, const FileSummary& fresh) const {
  auto existing = summary_from_json(text, path());
  return existing.ok() && same_summarised_bytes(existing.value(), fresh);
}

}  // namespace msit
