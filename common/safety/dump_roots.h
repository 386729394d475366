// What is a dump: a file may be compacted (and its raw data removed) only when it lies under a
// recognised dump root AND its name follows that dump kind's naming. Everything else is left
// alone. This is the one place that decides it (docs/safety.md).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace msit {

enum class DumpRootKind : uint8_t {
  kNone,          // not inside any dump root
  kGe,            // msit_ge_dump, msprobe_ge_dump, a GE time directory (14 digits)
  kFx,            // msit_fx_dump, msprobe_fx_dump, data_dump, gm_{ts}_dump
  kGeOrFx,        // other msprobe_*_dump: either naming
  kAtbRoot,       // msit_dump[_ts] / ait_dump[_ts]: only its tensors/ and torch_tensors/ hold dumps
  kAtbTensors,    // msit_dump*/tensors/...
  kTorchTensors,  // msit_dump*/torch_tensors/..., or a torch hook process directory {PID}_{device}
  // msProbe (docs/formats/msprobe.md §2): .../step{N}/rank{R}|proc{PID}|pid{PID}/ is the dump root
  // (its store's home); only its dump_tensor_data/ or tensor_data/ holds raw files.
  kMsprobeRank,
  kMsprobeTensors,
  kMsprobeOther,  // any other directory inside an msProbe rank folder: nothing to compact
};

// The dump scope of a directory, computed from its path components top-down: the innermost
// recognised root name wins.
class DumpScope {
 public:
  DumpScope() = default;
  // Scope of a directory path (absolute or relative; every component is looked at).
  static DumpScope of_path(std::string_view dir_path);
  // Scope of the sub-directory `name` of this directory.
  DumpScope enter(std::string_view name) const;

  DumpRootKind kind() const { return kind_; }
  bool in_dump() const {
    return kind_ != DumpRootKind::kNone && kind_ != DumpRootKind::kAtbRoot && kind_ != DumpRootKind::kMsprobeRank &&
           kind_ != DumpRootKind::kMsprobeOther;
  }
  // A raw tensor file of this scope's dump kind: a candidate for compaction.
  bool is_candidate(std::string_view file_name) const;

 private:
  explicit DumpScope(DumpRootKind k) : kind_(k) {}
  DumpScope msprobe_enter(std::string_view name) const;
  DumpRootKind kind_ = DumpRootKind::kNone;
  // Outside every root, in an msProbe step{N} folder: a rank folder entered next is a root.
  bool in_msprobe_step_ = false;
};

// The kind a directory name starts by itself (kNone when it is no root name).
DumpRootKind root_kind_of_name(std::string_view dir_name);

// Candidate test on a whole path (directory components + file name).
bool is_dump_candidate_path(std::string_view file_path);

}  // namespace msit
