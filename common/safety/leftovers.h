// Leftovers of an interrupted run (temp files, claimed raw files): the one routine that decides
// which of them `compact` and `watch` remove or give their names back (docs/safety.md, P5-P6).
// Only the tree's owner calls it (it holds the tree's lock).
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include "common/safety/beneath.h"
#include "common/safety/dump_roots.h"

namespace msit {

// How many first bytes of a temp a TempContentRule is shown.
inline constexpr size_t kTempHeadBytes = 64;

// Whether a temp's first bytes (at most kTempHeadBytes) are what we write under the name it was
// to take ("" when that name was too long to carry): decided where the formats are known,
// our_temp_content() (common/compaction/temp_content.h).
using TempContentRule = bool (*)(std::string_view final_name, std::string_view head);

struct LeftoverPolicy {
  // Temps modified at or after this wall-clock time (ns) may be this process's own, in flight:
  // kept. The default (no limit) is for a start-up scan, when nothing of ours is in flight.
  int64_t temps_before_ns = std::numeric_limits<int64_t>::max();
  // Without a rule no temp is removed (its content cannot be told ours).
  TempContentRule temp_content = nullptr;
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
// this process's effective uid (nobody else can create a file owned by it), its name is exactly
// one we make (final_name_of_temp(): a summary, `_min_max` file, archive or store of this
// directory, or a raw file restored from the `NAME.zst` beside it), its content is what we write
// there (the policy's rule; a restored file's bytes are not checked) and it is older than the
// policy's limit. A claim is given its name back (no-replace) only inside a dump root, when it
// is a regular file with one link whose name carries this process's uid. The caller treats a
// file renamed back like any other file: a candidate only if scope.is_candidate(raw_name).
LeftoverOutcome recover_leftover(const FileRef& f, const DumpScope& scope, const LeftoverPolicy& policy);

// Whether a leftover outcome leaves the file in place for a reason the user should see
// (another user's name, outside a dump root, a taken name).
bool leftover_kept(LeftoverAction a);

}  // namespace msit
