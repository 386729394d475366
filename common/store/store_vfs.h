// SQLite opens files by name and resolves every symlink on the way, which a daemon writing as
// root in other users' trees must never do. A store that is written is therefore opened through
// a directory fd: its file names are "/.msit-dirfd/FD/NAME", a SQLite VFS ("msit-beneath") keeps
// such names as they are, and the unix VFS's path system calls are routed, for names with that
// prefix only, to openat/fstatat/unlinkat on FD with O_NOFOLLOW. The database, its WAL, its
// shared-memory index and the directory fsync of a deleted WAL all stay in that directory.
#pragma once

#include <string>
#include <string_view>

namespace msit::store {

// The registered VFS's name (registering it on first use).
const char* beneath_vfs();

// The name under which SQLite reaches `name` (one path component) in directory `dir_fd`. The
// fd must stay open while a connection uses the name.
std::string beneath_filename(int dir_fd, std::string_view name);

}  // namespace msit::store
