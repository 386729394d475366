// SQLite opens files by name and resolves every symlink on the way, which a daemon writing as
// root in other users' trees must never do. Every store, read or written, is therefore opened
// through a directory fd: its file names are "/.msit-dirfd/{w|r}FD:UID/NAME", a SQLite VFS
// ("msit-beneath") keeps such names as they are, and the unix VFS's path system calls are
// routed, for names with that prefix only, to openat/fstatat/unlinkat on FD with O_NOFOLLOW.
// The database, its WAL, its shared-memory index and the directory fsync of a deleted WAL all
// stay in that directory. Each file opened must be a regular file with one link owned by UID
// (the database's owner), checked on the descriptor SQLite gets (docs/safety.md, R1-R5).
// Names with "r" are a reader's: nothing is created, written, truncated or removed through
// them. SQLite's own fchown() (as root it gives journals the database's owner) never changes
// an owner in this process.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace msit::store {

// The registered VFS's name (registering it on first use).
const char* beneath_vfs();

enum class BeneathAccess : uint8_t { kWrite, kRead };

// The name under which SQLite reaches `name` (one path component) in directory `dir_fd`, every
// file of it owned by `owner`. The fd must stay open while a connection uses the name.
std::string beneath_filename(int dir_fd, std::string_view name, BeneathAccess access, uid_t owner);
// A writer's name: files owned by this process's effective uid.
std::string beneath_filename(int dir_fd, std::string_view name);

// Why the VFS refused the last file it refused on the calling thread (its name in the
// directory and what is wrong with it), so that the open that failed can say so by path.
struct VfsRefusal {
  std::string name;
  std::string why;
  bool foreign_owner = false;  // a regular single-link file of another owner than the store's
};
void forget_refusal();
std::optional<VfsRefusal> last_refusal();

// The file (device, inode) that the last open through this VFS on the calling thread reached,
// if that open was of `name` (an open, or the stat() with which SQLite picks an unused
// descriptor of the same file instead); forget_last_open() first, so that a stale record
// cannot answer.
// A store that is opened twice (writer and lookups) checks that both opens reached one file.
using FileKey = std::pair<dev_t, ino_t>;
void forget_last_open();
std::optional<FileKey> last_open_of(std::string_view name);

}  // namespace msit::store
