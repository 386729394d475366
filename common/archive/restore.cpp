// restore_archive_at(): decode, verify, publish durably without overwriting, then drop the
// archive if it is still the one decoded. Archive metadata is treated as hostile input.
#include "common/archive/restore.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>

#include "common/archive/archive_source.h"
#include "common/archive/archive_writer.h"
#include "common/io/derived_names.h"
#include "common/io/file.h"
#include "common/io/noreplace.h"
#include "common/io/path_name.h"
#include "common/io/xxh3.h"

namespace msit::archive {
namespace {

std::string join(const std::string& dir, const std::string& name) {
  if (dir.empty() || dir == ".") return name;
  return dir.back() == '/' ? dir + name : dir + "/" + name;
}

// True when `raw_name` already holds exactly the archived bytes (size and XXH3 of the content).
Result<bool> identical_raw_present(int dir_fd, const std::string& raw_name, const std::string& shown,
                                   const ArchiveSource& a) {
  auto fd = open_regular_at(dir_fd, raw_name, shown);
  if (!fd.ok()) return false;  // a symlink, FIFO or directory is never "the restored file"
  MSIT_ASSIGN_OR_RETURN(FileIdentity id, identity_of(fd->get(), shown));
  if (id.size != a.meta().original_size) return false;
  ChunkReader reader(fd->get(), shown, 0, id.size);
  Xxh3 st;
  Status status = ok_status();
  while (true) {
    auto chunk = reader.next();
    if (!chunk.ok()) {
      status = chunk.take_error();
      break;
    }
    if (chunk->empty()) break;
    st.update(chunk->data(), chunk->size());
  }
  const uint64_t h = st.digest();
  MSIT_TRY(std::move(status));
  return h == a.trailer().original_xxh3;
}

Status set_times(int fd, int64_t mtime_ns, const std::string& shown) {
  // Floor division: a recorded mtime before 1970 must not give futimens a negative tv_nsec.
  int64_t sec = mtime_ns / 1000000000;
  int64_t nsec = mtime_ns % 1000000000;
  if (nsec < 0) {
    nsec += 1000000000;
    sec -= 1;
  }
  struct timespec ts[2];
  ts[0].tv_sec = 0;
  ts[0].tv_nsec = UTIME_OMIT;
  ts[1].tv_sec = static_cast<time_t>(sec);
  ts[1].tv_nsec = static_cast<long>(nsec);
  if (::futimens(fd, ts) != 0) return make_sys_error(shown, Stage::kRestore, "cannot set the original mtime", errno);
  return ok_status();
}

// Recorded metadata is user-writable input: only permission bits come back (no setuid, setgid
// or sticky), and only root changes the owner: to the recorded one, else the directory's.
Status apply_attributes(int fd, int dir_fd, const Meta& m, const std::string& shown) {
  if (::geteuid() == 0) {
    uid_t uid = m.original_uid;
    gid_t gid = m.original_gid;
    if (!m.has_owner) {
      struct stat dir {};
      if (::fstat(dir_fd, &dir) != 0) return make_sys_error(shown, Stage::kRestore, "cannot stat the directory", errno);
      uid = dir.st_uid;
      gid = dir.st_gid;
    }
    if (::fchown(fd, uid, gid) != 0) return make_sys_error(shown, Stage::kRestore, "cannot set the owner", errno);
  }
  if (::fchmod(fd, static_cast<mode_t>(m.original_mode & 0777)) != 0) {
    return make_sys_error(shown, Stage::kRestore, "cannot set the mode", errno);
  }
  return set_times(fd, m.original_mtime_ns, shown);
}

// A crafted archive may claim terabytes of zeros in a few KB: refuse before writing rather
// than filling the filesystem.
Status check_space(int dir_fd, uint64_t bytes, const std::string& shown) {
  struct statvfs vfs {};
  if (::fstatvfs(dir_fd, &vfs) != 0) return ok_status();  // unknown: ENOSPC is still handled
  const uint64_t blocks = ::geteuid() == 0 ? vfs.f_bfree : vfs.f_bavail;
  const uint64_t frsize = vfs.f_frsize == 0 ? 1 : vfs.f_frsize;
  const uint64_t avail = blocks > UINT64_MAX / frsize ? UINT64_MAX : blocks * frsize;
  if (bytes > avail) {
    return make_error(shown, Stage::kRestore,
                      "needs " + std::to_string(bytes) + " bytes, the filesystem has " + std::to_string(avail) +
                          " free; not restored");
  }
  return ok_status();
}

Status decode_to_raw(int dir_fd, const std::string& raw_name, const std::string& raw_shown, ArchiveSource& a) {
  MSIT_TRY(check_space(dir_fd, a.meta().original_size, raw_shown));
  MSIT_ASSIGN_OR_RETURN(TempAt t, create_temp_at(dir_fd, raw_name, raw_shown));
  MSIT_TRY(a.verify([&](std::span<const std::byte> b) { return write_all(t.fd.get(), b, raw_shown); }));
  MSIT_TRY(apply_attributes(t.fd.get(), dir_fd, a.meta(), raw_shown));
  if (::fsync(t.fd.get()) != 0)
    return make_sys_error(raw_shown, Stage::kFsync, "fsync of the restored temp failed", errno);
  if (::close(t.fd.release()) != 0)
    return make_sys_error(raw_shown, Stage::kWrite, "close of the restored temp failed", errno);
  MSIT_ASSIGN_OR_RETURN(PublishResult r, publish_noreplace(dir_fd, t.name.path(), raw_name, raw_shown));
  if (r == PublishResult::kTargetExists) {
    return make_error(raw_shown, Stage::kRestore,
                      "a file appeared under the raw name while the archive was decoded; "
                      "it was kept, and so was the archive");
  }
  t.name.release();
  if (::fsync(dir_fd) != 0) {
    return make_sys_error(raw_shown, Stage::kFsyncDir, "restored, but the directory fsync failed; archive kept", errno);
  }
  return ok_status();
}

}  // namespace

Result<RestoreOutcome> restore_archive_at(int dir_fd, const std::string& shown_dir, const std::string& name,
                                          const RestoreOptions& opts) {
  const std::string shown = join(shown_dir, name);
  const std::string raw_name = std::string(without_archive_suffix(name));
  if (raw_name == name || raw_name.empty() || name.find('/') != std::string::npos) {
    return make_error(shown, Stage::kRestore, "archive names are NAME.zst; cannot derive the raw file name");
  }
  MSIT_ASSIGN_OR_RETURN(auto a, ArchiveSource::open_at(dir_fd, name, shown));
  RestoreOutcome o;
  o.archive_path = shown;
  o.raw_path = join(shown_dir, raw_name);
  o.raw_bytes = a->meta().original_size;
  struct stat st {};
  if (::fstatat(dir_fd, raw_name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) {
    MSIT_ASSIGN_OR_RETURN(bool same, identical_raw_present(dir_fd, raw_name, o.raw_path, *a));
    if (!same) {
      return make_error(o.raw_path, Stage::kRestore,
                        "a different file already exists under the raw name; not overwritten, archive kept");
    }
    o.already_present = true;
  } else if (errno != ENOENT) {
    return make_sys_error(o.raw_path, Stage::kRestore, "cannot check the raw name", errno);
  } else {
    MSIT_TRY(decode_to_raw(dir_fd, raw_name, o.raw_path, *a));
  }
  if (!opts.keep_archive) {
    std::string why;
    MSIT_ASSIGN_OR_RETURN(bool removed, unlink_if_same(dir_fd, name, a->archive_identity(), shown, &why));
    if (!removed) {
      return make_error(shown, Stage::kUnlink, "restored " + o.raw_path + ", but the archive was kept: " + why);
    }
    o.archive_removed = true;
  }
  return o;
}

Result<RestoreOutcome> restore_archive(const std::string& archive_path, const RestoreOptions& opts) {
  const std::string dir = parent_dir(archive_path);
  UniqueFd dfd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!dfd.valid()) return make_sys_error(dir, Stage::kOpen, "cannot open the archive's directory", errno);
  return restore_archive_at(dfd.get(), archive_path.find('/') == std::string::npos ? "" : dir, base_name(archive_path),
                            opts);
}

}  // namespace msit::archive
