// `restore`: turning an archive back into the byte-identical raw file it replaced, without ever
// overwriting anything, following a symlink, or trusting the archive's recorded metadata.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "common/base/result.h"

namespace msit::archive {

struct RestoreOptions {
  bool keep_archive = false;  // default: the archive is removed once the raw file is durable
  // Restore in a tree a live `watch --archive` owns (it would archive the files again).
  bool force = false;
  // Polled by restore_paths() between archives: the archive in flight is always finished (its
  // temp published or removed) before the run stops. The library installs no signal handler.
  std::function<bool()> cancelled;
};

struct RestoreOutcome {
  std::string archive_path;
  std::string raw_path;
  uint64_t raw_bytes = 0;
  bool already_present = false;  // an identical raw file was already there (an interrupted restore)
  bool archive_removed = false;
};

// Restores archive `name` in dir_fd (shown as shown_dir/name). Decodes into a temp in dir_fd
// while checking the recorded XXH3; mode masked to 0777; owner set only by root (recorded
// owner, else the directory's); mtime; fsync; publish with RENAME_NOREPLACE (a file that
// appeared under the raw name meanwhile is kept, and so is the archive); fsync the directory;
// only then remove the archive, and only if it is still the file that was decoded.
Result<RestoreOutcome> restore_archive_at(int dir_fd, const std::string& shown_dir, const std::string& name,
                                          const RestoreOptions& opts);
// The same for a path: its parent directory is opened as given, the archive relative to it.
Result<RestoreOutcome> restore_archive(const std::string& archive_path, const RestoreOptions& opts);

struct RestoreRun {
  std::vector<RestoreOutcome> restored;
  std::vector<Error> errors;
  size_t archives = 0;                // archives found
  bool cancelled = false;             // stopped early by opts.cancelled
  std::vector<std::string> warnings;  // lock files ignored or moved aside (docs/safety.md)
};
// Archives named on the command line, or found under directories (links never followed; each
// archive's directory is re-opened from its root with open_dir_below, so a directory swapped
// for a symlink after the scan is refused, not followed).
RestoreRun restore_paths(const std::vector<std::string>& paths, const RestoreOptions& opts);

}  // namespace msit::archive
