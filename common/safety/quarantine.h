// `compact --quarantine DIR`: files that failed because their content is bad are moved aside
// to DIR below their own tree, so that a rerun is clean; nothing is ever deleted or replaced.
#pragma once

#include <string>
#include <string_view>

#include "common/base/result.h"
#include "common/safety/beneath.h"

namespace msit {

// A quarantine directory must be a relative path below the tree: no "..", not absolute.
Status check_quarantine_dir(std::string_view rel);

// Moves regular file `rel` (relative to the root) to `qdir/rel` below the same root. Every
// directory is reached from root_fd without following symlinks and created as needed; the
// rename never replaces an existing file (renameat2 RENAME_NOREPLACE, else link + unlink);
// both directories are fsynced. Returns the new path (for messages).
Result<std::string> quarantine_file(const DirRef& root, const std::string& rel, const std::string& qdir);

}  // namespace msit
