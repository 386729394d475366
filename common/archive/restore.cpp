// restore_archive(): decode, verify, publish durably, then drop the archive.
#include "common/archive/restore.h"

#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include <cerrno>

#include "common/archive/archive_source.h"
#include "common/archive/archive_writer.h"
#include "common/io/atomic_write.h"
#include "common/io/file.h"

namespace msit::archive {
namespace {

// True when `path` already holds exactly the archived bytes (size and XXH3 of the content).
Result<bool> identical_raw_present(const std::string& path, const ArchiveSource& a) {
  auto id = identity_at_path(path);
  if (!id.ok()) return false;
  if (id->size != a.meta().original_size) return false;
  MSIT_ASSIGN_OR_RETURN(UniqueFd fd, open_regular_nofollow(path));
  ChunkReader reader(fd.get(), path, 0, id->size);
  XXH3_state_t* st = XXH3_createState();
  XXH3_64bits_reset(st);
  Status status = ok_status();
  while (true) {
    auto chunk = reader.next();
    if (!chunk.ok()) {
      status = chunk.take_error();
      break;
    }
    if (chunk->empty()) break;
    XXH3_64bits_update(st, chunk->data(), chunk->size());
  }
  const uint64_t h = XXH3_64bits_digest(st);
  XXH3_freeState(st);
  MSIT_TRY(std::move(status));
  return h == a.trailer().original_xxh3;
}

Status remove_archive(const std::string& path, const FileIdentity& id) {
  MSIT_ASSIGN_OR_RETURN(FileIdentity now, identity_at_path(path));
  if (!now.same_content_as(id)) {
    return make_error(path, "unlink", "archive changed while it was being restored; kept");
  }
  if (::unlink(path.c_str()) != 0 && errno != ENOENT) {
    return make_sys_error(path, "unlink", "cannot remove the archive after restoring", errno);
  }
  return ok_status();
}

Status set_times(int fd, int64_t mtime_ns, const std::string& path) {
  struct timespec ts[2];
  ts[0].tv_sec = 0;
  ts[0].tv_nsec = UTIME_OMIT;
  ts[1].tv_sec = static_cast<time_t>(mtime_ns / 1000000000);
  ts[1].tv_nsec = static_cast<long>(mtime_ns % 1000000000);
  if (::futimens(fd, ts) != 0) return make_sys_error(path, "restore", "cannot set the original mtime", errno);
  return ok_status();
}

}  // namespace

Result<RestoreOutcome> restore_archive(const std::string& archive_path, const RestoreOptions& opts) {
  MSIT_ASSIGN_OR_RETURN(auto a, ArchiveSource::open(archive_path));
  RestoreOutcome o;
  o.archive_path = archive_path;
  o.raw_path = raw_path_for_archive(archive_path);
  o.raw_bytes = a->meta().original_size;
  if (o.raw_path == archive_path) {
    return make_error(archive_path, "restore", "archive names end in .zst; cannot derive the raw file name");
  }
  if (::access(o.raw_path.c_str(), F_OK) == 0 || errno != ENOENT) {
    MSIT_ASSIGN_OR_RETURN(bool same, identical_raw_present(o.raw_path, *a));
    if (!same) {
      return make_error(o.raw_path, "restore", "a different file already exists under the raw name; not overwritten");
    }
    o.already_present = true;
  } else {
    MSIT_ASSIGN_OR_RETURN(TempFile out, TempFile::create(o.raw_path, a->meta().original_mode));
    MSIT_TRY(a->verify([&out](std::span<const std::byte> b) { return out.write(b); }));
    MSIT_TRY(set_times(out.fd(), a->meta().original_mtime_ns, o.raw_path));
    MSIT_TRY(out.sync_and_close());
    MSIT_TRY(rename_into_place(out.release(), o.raw_path));
    MSIT_TRY(fsync_dir(parent_dir(o.raw_path)));
  }
  if (!opts.keep_archive) {
    MSIT_TRY(remove_archive(archive_path, a->archive_identity()));
    o.archive_removed = true;
  }
  return o;
}

}  // namespace msit::archive
