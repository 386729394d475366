// Publishing and removing files relative to a directory fd, never overwriting and never
// removing anything but the file that was read: temps, no-replace renames, claim-then-unlink.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "common/base/result.h"
#include "common/io/file.h"
#include "common/io/noreplace.h"
#include "common/safety/beneath.h"

namespace msit {

// publish_noreplace() (common/io/noreplace.h) within one directory, an existing `to` being an
// error whose message names both files (both are kept).
Status rename_noreplace(const DirRef& dir, const std::string& from, const std::string& to);

// A file written under a private temp name in a directory reached safely, removed by the
// destructor unless published.
class DirTemp {
 public:
  DirTemp() = default;  // holds nothing
  static Result<DirTemp> create(const DirRef& dir, std::string_view final_name, unsigned mode = 0644);
  DirTemp(DirTemp&& o) noexcept;
  DirTemp& operator=(DirTemp&& o) noexcept;
  ~DirTemp();
  Status write(std::span<const std::byte> bytes);
  Status write(std::string_view bytes) {
    return write(std::as_bytes(std::span<const char>(bytes.data(), bytes.size())));
  }
  // fsync + close (a close error is reported: NFS reports write errors there).
  Status sync_and_close();
  // Renames the temp to its final name without replacing anything; the temp is then ours no more.
  Status publish();
  int fd() const { return fd_; }
  const std::string& temp_name() const { return temp_; }
  const std::string& final_path() const { return final_path_; }
  const DirRef& dir() const { return dir_; }

 private:
  DirTemp(DirRef dir, int fd, std::string temp, std::string final_name);
  void discard();
  DirRef dir_;
  int fd_ = -1;
  std::string temp_;
  std::string final_;
  std::string final_path_;
};

// Removes raw file `f` only if it is provably the file that was read through `read_fd`:
//  1. fstat(read_fd) still shows the identity recorded when reading ended, ctime included
//     (no write, truncate, chmod or utimes since: ctime cannot be set from user space);
//  2-4. unlink_if_same(): the name is moved to a private claim name in the same directory
//     (no-replace), the claimed inode must be the read inode with the same size and mtime,
//     and only then is the claim name unlinked; otherwise it is moved back and reported.
Status remove_if_same(const FileRef& f, int read_fd, const FileIdentity& read_id);

// Gives a claim name left by a killed process back its raw name (no-replace). Returns false
// when the raw name is taken (both are kept and the caller reports it).
Result<bool> restore_claim(const DirRef& dir, const std::string& claim_name);

}  // namespace msit
