// Leftovers of an interrupted run (temp files, claimed raw files): the one routine that decides
// which of them `compact` and `watch` remove or give their names back (docs/safety.md, P5-P6).
// Only the tree's owner calls it (it holds the tree's lock).
#pragma once

#include <cstdint>
#include <limits>
#include <string>

#include "common/safety/beneath.h"
#include "common/safety/dump_roots.h"

namespace msit {

struct LeftoverPolicy {
  // Temps modified at or after this wall-clock time (ns) may be this process's own, in flight:
  // kept. The default (no limit) is for a start-up scan, when nothing of ours is in flight.
  int64_t temps_before_ns = std::numeric_limits<int64_t>::max();
};

enum class LeftoverAction : uint8_t {
  kRemoved,          // a temp this user wrote: removed
  kRenamedBack,      // a claim this user made: the file has its name back (raw_name)
  kNameTaken,        // a claim this user made, its name taken meanwhile: both kept
  kInFlight,         // a temp newer than the policy allows: kept
  kNotOurs,          // not written by this user (owner, link count, no owner tag): kept
  kOutsideDumpRoot,  // not inside a dump root: kept
  kGone,             // vanished meanwhile
  kFailed,           // a system call failed (message says which)
};

struct LeftoverOutcome {
  LeftoverAction action = LeftoverAction::kGone;
  std::string raw_name;  // kRenamedBack: the name the file has now, in f.dir
  std::string message;   // for the log or report: names the file and what was (not) done
};

// `f` is a `.msit-tmp.*` or `.msit-claim.*` name in a directory of dump scope `scope`.
// A temp is removed only inside a dump root, when it is a regular file with one link owned by
// this process's effective uid (nobody else can create a file owned by it) and older than the
// policy's limit. A claim is given its name back (no-replace) only inside a dump root, when it
// is a regular file with one link whose name carries this process's uid. The caller treats a
// file renamed back like any other file: a candidate only if scope.is_candidate(raw_name).
LeftoverOutcome recover_leftover(const FileRef& f, const DumpScope& scope, const LeftoverPolicy& policy);

// Whether a leftover outcome leaves the file in place for a reason the user should see
// (another user's name, outside a dump root, a taken name).
bool leftover_kept(LeftoverAction a);

}  // namespace msit
