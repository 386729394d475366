// Never-overwrite publication and directory-fd-relative file handling: publish a temp under its
// final name only if that name is free, own temps so every failure path removes them, reach
// directories below a root without following symlinks, and unlink only a proven file.
#pragma once

#include <fcntl.h>
#include <sys/types.h>

#include <span>
#include <string>

#include "common/base/result.h"
#include "common/base/unique_fd.h"
#include "common/io/derived_names.h"
#include "common/io/file.h"

namespace msit {

// Claim names (is_claim_name(), raw_name_of_claim() in derived_names.h): a claim left by a
// killed process is given its name back by the next owner of the tree (its summary is durable).
// Six random characters for private names.
std::string random_name_tag();

enum class PublishResult : uint8_t {
  kPublished,     // final_name now names the temp's file; the temp name is gone
  kTargetExists,  // final_name was already there: nothing changed, the temp is still in place
};

// renameat2(RENAME_NOREPLACE) of temp_name to final_name, both relative to dir_fd (AT_FDCWD
// with paths works too). Where the filesystem or kernel refuses the flag (EINVAL, ENOSYS):
// linkat + unlinkat of the temp. Never replaces an existing final_name. Errors name
// `shown_as` (default: final_name).
Result<PublishResult> publish_noreplace(int dir_fd, const std::string& temp_name, const std::string& final_name,
                                        const std::string& shown_as = {});

// A temp file name owned by the caller: unlinked when the owner goes away (any failure path)
// unless release()d after it was published. Path-based, or relative to a directory fd that
// the owner keeps open.
class OwnedTempPath {
 public:
  OwnedTempPath() = default;
  explicit OwnedTempPath(std::string path) : path_(std::move(path)) {}
  OwnedTempPath(UniqueFd dir, std::string name) : dir_(std::move(dir)), path_(std::move(name)) {}
  OwnedTempPath(OwnedTempPath&& o) noexcept;
  OwnedTempPath& operator=(OwnedTempPath&& o) noexcept;
  OwnedTempPath(const OwnedTempPath&) = delete;
  OwnedTempPath& operator=(const OwnedTempPath&) = delete;
  ~OwnedTempPath() { remove(); }

  bool empty() const { return path_.empty(); }
  const std::string& path() const { return path_; }
  int dir_fd() const { return dir_.valid() ? dir_.get() : AT_FDCWD; }
  // Unlinks the temp now (nothing if empty or released).
  void remove();
  // The temp was published (or handed on): the destructor leaves the name alone.
  std::string release();

 private:
  UniqueFd dir_;
  std::string path_;
};

// A temp file being written in dir_fd (".msit-tmp.FINAL.XXXXXX", O_EXCL, mode 0600 until the
// caller sets the final mode). Removed on every path unless published.
struct TempAt {
  UniqueFd fd;
  OwnedTempPath name;
};
Result<TempAt> create_temp_at(int dir_fd, const std::string& final_name, const std::string& shown_as);
Status write_all(int fd, std::span<const std::byte> bytes, const std::string& shown_as);

// Opens directory `rel` (a relative path, "" or "." for root itself) below root_fd without
// following any symlink and without leaving root: openat2(RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS),
// or per-component openat(O_NOFOLLOW|O_DIRECTORY) where the kernel has no openat2 (ENOSYS).
Result<UniqueFd> open_dir_below(int root_fd, const std::string& rel, const std::string& shown_as);

// Opens regular file `name` in dir_fd read-only with O_NOFOLLOW (FIFOs do not block).
Result<UniqueFd> open_regular_at(int dir_fd, const std::string& name, const std::string& shown_as);

// kept_reason of unlink_if_same() when the name was already gone (nothing of ours to remove).
inline constexpr std::string_view kGoneAlready = "it is gone already";
// kept_reason when the claim name (prefix + tag + name) would exceed NAME_MAX: the file cannot
// be moved aside to be checked, so it is never removed.
inline constexpr std::string_view kClaimNameTooLong = "its claim name would be too long";

// Unlinks `name` in dir_fd only if it is still the file `expected` (dev, inode, size, mtime):
// it is first moved to a private name, checked there, and moved back if it is not the one.
// kept_reason (set when not removed) says why.
Result<bool> unlink_if_same(int dir_fd, const std::string& name, const FileIdentity& expected,
                            const std::string& shown_as, std::string* kept_reason = nullptr);

}  // namespace msit
