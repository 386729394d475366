// The one resolver of what the user gave (docs/resolve.md): a dump_path, a dump root, a rank or
// token folder, a summary store copied elsewhere, of either family, into the directories a
// command reads, or an error saying what was found where and the command line to type.
// compare, watch (both sides, at start and when roots appear), inspect and export ask here.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/base/result.h"
#include "common/resolve/dump_layouts.h"

namespace msit::resolve {

// What the path given was.
enum class GivenKind : uint8_t {
  kDumpRoot,    // a dump root itself: named (msit_ge_dump, ...), or holding dumps directly
  kDumpPath,    // the user's dump_path: the dump root below it is what is read
  kRankDir,     // a rank folder inside a root (worldsize*_global_rank*): its root, that rank only
  kTokenDir,    // a token (step) folder inside a root: its root, that token only
  kInsideRoot,  // another directory inside a root: the whole root
  kStoreFile,   // msit-summary.db itself: the directory holding it
  kFile,        // a regular file (a tensor file: the two-file compare)
  kUnknown,     // a directory in which the table recognises nothing (empty, or being created)
};

enum class Side : uint8_t { kMy, kGolden };

struct ResolvedSide {
  std::string given;  // as typed
  std::string path;   // absolute: the directory (or file) the command reads
  GivenKind kind = GivenKind::kUnknown;
  std::optional<DumpFamily> family;  // when the layout table named the root
  std::optional<SideRole> role;
  std::optional<int64_t> rank, token;  // a rank / token folder was given
  std::string how;                     // how it was found, for the paired line ("the msit_ge_dump of dump_path D")
};

struct ResolvedPair {
  ResolvedSide my, golden;
  std::optional<int64_t> rank, token;  // what both sides are restricted to (folders given, or --rank)
  std::vector<std::string> notes;      // what else was there ("D also holds msit_ge_dump: for GE vs GE, type ...")
  // One line saying what was paired ("paired: my D/msit_ge_dump (GE dump, in dump_path D) with golden ...").
  std::string line() const;
};

// The command line to suggest for a pair of paths (compare: "msit-compact compare -m MY -g G";
// watch: "msit-compact watch MY --golden G"); the paths come quoted for a shell.
using CommandLine = std::function<std::string(const std::string& my, const std::string& golden)>;

// One path. Errors: the path does not exist ("no such file or directory", stage kOpen; kUnknown
// with missing_ok), cannot be looked at, or holds several roots for this side with nothing to
// choose between them.
Result<ResolvedSide> resolve_side(const std::string& given, Side side, const CommandLine& cmd = {},
                                  bool missing_ok = false);

struct PairOptions {
  std::optional<int64_t> rank;  // --rank
  CommandLine command;          // for the suggestions in errors and notes
  // watch: a side that does not exist yet (a golden being dumped) is kUnknown, not an error.
  bool missing_ok = false;
};
// Both sides, and what they share: refused when they are the same dump (one directory reached
// two ways, or the same dump_path on both sides), or ask for two different ranks or tokens.
Result<ResolvedPair> resolve_pair(const std::string& my, const std::string& golden, const PairOptions& o);

// Whether two paths reach one file or directory (links followed); false when either cannot be
// looked at.
bool same_file(const std::string& a, const std::string& b);

// `p` quoted for a POSIX shell when it needs it.
std::string shell_quote(const std::string& p);

}  // namespace msit::resolve
