// Confidentiality of what replaces a raw file: a summary, `_min_max` file, archive or store row
// is never readable by anyone who could not read the raw file (docs/safety.md, "Private dumps").
#pragma once

#include <sys/stat.h>
#include <sys/types.h>

#include <string>

#include "common/base/result.h"

namespace msit {

// Owner, group and permission bits an output of one raw file gets.
struct OutputAccess {
  uid_t uid = 0;
  gid_t gid = 0;
  mode_t mode = 0600;
  bool chown = false;  // root: give the output the raw file's owner; otherwise it stays ours
};

// As root: the raw file's owner and group, its mode & 0666. Otherwise the output stays ours
// (euid, and `our_gid`, the group a file we create in that directory gets), with the raw
// file's mode & 0666, its group bits only when `our_gid` is the raw file's group.
OutputAccess output_access_for(uid_t raw_uid, gid_t raw_gid, mode_t raw_mode, gid_t our_gid);
OutputAccess output_access_for(const struct stat& raw);  // our_gid: getegid()

// fchown (when `a.chown`) then fchmod of a file we created (still private, 0600) through `fd`.
Status apply_output_access(int fd, const OutputAccess& a, const std::string& path);

// The mode a summary store of that class is created with: the read bits of `a.mode`, and
// write for its owner only (a store is rewritten by later batches, never by group or others).
mode_t store_mode_of(const OutputAccess& a);

// Who can read a file with this owner, group and mode: the same people as output `a`? Rows go
// into a shared store only when its readers are exactly those of the raw file's outputs.
bool same_readers(const OutputAccess& a, uid_t uid, gid_t gid, mode_t mode);

}  // namespace msit
