// What an msProbe dump tree looks like (docs/formats/msprobe.md §1, §2): which directory is a
// dump_path, a step, a rank folder or a tensor directory, judged from one listing, and the
// step and rank folders below a directory in msProbe's order. The resolver asks here.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/base/result.h"
#include "common/formats/msprobe_names.h"

namespace msit {

enum class MsprobeDirKind : uint8_t {
  kNone,
  kDumpPath,   // holds step{N} folders
  kMixSplit,   // holds graph/ and/or pynative/ (MindSpore PYNATIVE_GRAPH), each a dump_path
  kStep,       // step{N} holding rank{R} / proc{PID} / pid{PID} folders
  kRank,       // a rank folder: dump.json, debug.json or a tensor directory (the dump root, §2)
  kTensorDir,  // dump_tensor_data / tensor_data inside a rank folder
};

// The kind of directory `name` whose sub-directories are `dirs` and files `files` (one
// listing, nothing followed). A rank folder is recognised by its own name and content; the
// others by their sub-directories' names.
MsprobeDirKind msprobe_dir_kind(std::string_view name, std::span<const std::string> dirs,
                                std::span<const std::string> files);

struct MsprobeRankDir {
  std::string name;  // rank3, proc1234, pid77
  MsprobeRankName rank;
  bool dump_json = false, stack_json = false, construct_json = false, debug_json = false;
  std::string tensor_dir;  // "dump_tensor_data", "tensor_data" or "" when none
};

struct MsprobeStepDir {
  std::string name;  // step0
  uint64_t step = 0;
};

// The step folders of a dump_path, by step number.
Result<std::vector<MsprobeStepDir>> list_msprobe_steps(const std::string& dump_path);
// The rank folders of a step folder in msProbe's pairing order (§2): rank{R} by R; when there
// are none, proc{PID} / pid{PID} folders by number.
Result<std::vector<MsprobeRankDir>> list_msprobe_ranks(const std::string& step_dir);
// One rank folder's msProbe files.
Result<MsprobeRankDir> describe_msprobe_rank_dir(const std::string& rank_dir);

}  // namespace msit
