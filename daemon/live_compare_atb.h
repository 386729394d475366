// The live comparer on ATB / torch dumps (docs/live-divergence.md "ATB and torch"): which raw
// files of a watched token belong to which node, and what its ATB/torch passes keep.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "common/report/report_row.h"
#include "daemon/live_root_compare.h"  // the pass whose state AtbLiveState is
#include "daemon/token_finality.h"
#include "daemon/token_verdict.h"

namespace msit::daemon {

// A directory as a pass saw it: identity and mtime (adding, removing, renaming or summarising a
// file in it changes the mtime; a directory replaced by another changes the identity).
struct DirStamp {
  std::string path;
  uint64_t dev = 0, ino = 0;
  int64_t mtime_ns = 0;
};

// What the ATB/torch passes keep between passes (docs/live-divergence.md "ATB and torch"), and
// what the last pass listed.
struct AtbLiveState {
  // A token answered while final: what each side showed of it then, the paths of its watched
  // files below its token directory (its shape, rule 6), and the directories of both sides
  // (empty until every one of them is older than a second: not skippable yet, listed again).
  struct Retired {
    SideToken mine, golden;
    uint64_t shape = 0;
    std::vector<DirStamp> dirs;
  };
  std::map<int64_t, Retired> retired;
  // The last pass: directories read (listed), directories only stat()ed (of retired tokens),
  // tokens listed, tokens left out unread (retired, unchanged).
  size_t dirs_listed = 0, dirs_checked = 0, tokens_listed = 0, tokens_unlisted = 0;
};

// The op directory of a dump file: ATB `.../6_DecoderLayer/5_LinearOperation/after/outtensor0.bin`
// -> `.../6_DecoderLayer/5_LinearOperation` (its before/ and after/ are one node); torch
// `.../0/root.model.layers.6.self_attn.o_proj/output.pth` -> its module directory.
std::string atb_node_dir(const std::string& file);

// The token directory of `file` under `root`: the first path component below root that is the
// token's number (ATB `tensors/PID_DEVICE/TOKEN/`, torch `TOKEN/`); "" when there is none.
std::string atb_token_dir(const std::string& root, const std::string& file, int64_t token);

// The verdicts of the tokens `is_final` accepts, from an api sheet whose first divergences the
// library has marked: every dump file of the token's directories on the watched side, one entry
// per node in report order (the node's row file, with the node's other files as its members),
// and the diverging node. `indexed` (may be null) receives every dump file of every token seen.
std::vector<TokenVerdict> atb_token_verdicts(const std::string& root, const std::vector<ReportRow>& rows,
                                             const std::function<bool(int64_t)>& is_final,
                                             std::set<std::string>* indexed);

}  // namespace msit::daemon
