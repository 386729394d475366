// The resolver's msProbe part (docs/resolve.md "msProbe trees"): from the two paths a user gave
// (a dump_path, a step folder, a rank folder or a dump.json, on either side, at any of these
// levels) to the dump.json pairs msProbe's compare reads, the ranks and steps one side only has,
// and the one line saying what was paired; or an error saying what was found and what to type.
// Same-level pairs of files, rank folders and graph/pynative splits are msProbe's own pairing
// (common/compare_msprobe/pairs.h); steps are paired by name and ranks by number here, so that a
// rank or step one side lacks is reported (coverage) rather than refused or dropped.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/base/result.h"
#include "common/compare/coverage.h"
#include "common/compare_msprobe/pairs.h"
#include "common/resolve/resolve.h"

namespace msit::resolve {

// What an msProbe path is.
enum class MsLevel : uint8_t { kNone, kFile, kRank, kStep, kDumpPath, kMixSplit };

struct MsGiven {
  std::string path;  // absolute
  MsLevel level = MsLevel::kNone;
  std::optional<uint64_t> step;  // a step folder's number, or a rank folder's step's
  std::string rank_name;         // a rank folder's name (rank3, proc1234)
};

// What `path` is in msProbe's layout (one or two listings, no link followed).
MsGiven ms_given(const std::string& path);
// "msProbe dump_path", "step 3 of the msProbe dump_path D", "rank folder rank1 of step 0 of D", ...
std::string ms_given_text(const MsGiven& g);

struct MsPlan {
  std::vector<MsRankPair> pairs;
  std::vector<std::string> notes;  // what else was noticed (rank folders without a dump.json)
  Coverage coverage;               // ranks and steps one side only has (tokens are steps)
  std::string line;                // "paired: my ... with golden ...: steps 0, 1; ranks 0, 1"
};

// The pairs to compare. Errors (exit 3): the same dump on both sides (also a dump_path against
// its own step folder), a step or rank the other side lacks when one side names it, no rank or
// step in common, a graph/pynative split against anything but one.
Result<MsPlan> plan_msprobe_pair(const std::string& my, const std::string& golden, const CommandLine& cmd);

}  // namespace msit::resolve
