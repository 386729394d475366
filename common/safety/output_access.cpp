// Owner, group and mode of every output derived from a raw file (docs/safety.md, "Private dumps").
#include "common/safety/output_access.h"

#include <unistd.h>

#include <cerrno>

namespace msit {

OutputAccess output_access_for(uid_t raw_uid, gid_t raw_gid, mode_t raw_mode, gid_t our_gid) {
  OutputAccess a;
  a.mode = raw_mode & 0666;  // data, never a program: no exec, setuid, setgid or sticky bit
  if (::geteuid() == 0) {
    a.uid = raw_uid;
    a.gid = raw_gid;
    a.chown = true;
    return a;
  }
  // Not root: the output is ours. Our group may hold people the raw file's group does not.
  a.uid = ::geteuid();
  a.gid = our_gid;
  if (our_gid != raw_gid) a.mode &= ~static_cast<mode_t>(0070);
  return a;
}

OutputAccess output_access_for(const struct stat& raw) {
  return output_access_for(raw.st_uid, raw.st_gid, raw.st_mode, ::getegid());
}

Status apply_output_access(int fd, const OutputAccess& a, const std::string& path) {
  if (a.chown && ::fchown(fd, a.uid, a.gid) != 0)
    return make_sys_error(path, Stage::kWrite, "cannot give the output the raw file's owner", errno);
  mode_t mode = a.mode;
  struct stat st {};
  // Not root, in a setgid directory: the file got the directory's group, not ours.
  if (!a.chown && (::fstat(fd, &st) != 0 || st.st_gid != a.gid)) mode &= ~static_cast<mode_t>(0070);
  if (::fchmod(fd, mode) != 0) return make_sys_error(path, Stage::kWrite, "cannot set the output's mode", errno);
  return ok_status();
}

mode_t store_mode_of(const OutputAccess& a) { return (a.mode & 0444) | 0200; }

bool same_readers(const OutputAccess& a, uid_t uid, gid_t gid, mode_t mode) {
  return a.uid == uid && a.gid == gid && (a.mode & 0444) == (mode & 0444);
}

}  // namespace msit
