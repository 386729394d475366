// SQLite opens files by name and resolves every symlink on the way, which a daemon writing as
// root in other users' trees must never do. A store that is written is therefore opened through
// a directory fd: its file names are "/.msit-dirfd/FD/NAME", a SQLite VFS ("msit-beneath") keeps
// such names as they are, and the unix VFS's path system calls are routed, for names with that
// prefix only, to openat/fstatat/unlinkat on FD with O_NOFOLLOW. The database, its WAL, its
// shared-memory index and the directory fsync of a deleted WAL all stay in that directory.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace msit::store {

// The registered VFS's name (registering it on first use).
const char* beneath_vfs();

// The name under which SQLite reaches `name` (one path component) in directory `dir_fd`. The
// fd must stay open while a connection uses the name.
std::string beneath_filename(int dir_fd, std::string_view name);

// The file (device, inode) that the last open through this VFS on the calling thread reached,
// if that open was of `name` (an open, or the stat() with which SQLite picks an unused
// descriptor of the same file instead); forget_last_open() first, so that a stale record
// cannot answer.
// A store that is opened twice (writer and lookups) checks that both opens reached one file.
using FileKey = std::pair<dev_t, ino_t>;
void forget_last_open();
std::optional<FileKey> last_open_of(std::string_view name);

}  // namespace msit::store
