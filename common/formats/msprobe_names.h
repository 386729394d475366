// msProbe's names (docs/formats/msprobe.md §1, §4, §7): step and rank directories, the tensor
// directory, dump.json's entry names and the tensor files' data names. Pure string rules.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/formats/tensor_desc.h"

namespace msit {

inline constexpr std::string_view kMsprobeDumpJson = "dump.json";
inline constexpr std::string_view kMsprobeStackJson = "stack.json";
inline constexpr std::string_view kMsprobeConstructJson = "construct.json";
inline constexpr std::string_view kMsprobeDebugJson = "debug.json";

// step{N} (docs/formats/msprobe.md §1.1): N.
std::optional<uint64_t> parse_msprobe_step_dir(std::string_view name);

enum class MsprobeRankKind : uint8_t {
  kRank,  // rank{R}: the process knew its rank
  kProc,  // proc{PID}: no rank known (renamed to rank{R} once it is, §1.1)
  kPid,   // pid{PID}: aclgraph's spelling of proc (§1.3)
};
struct MsprobeRankName {
  MsprobeRankKind kind = MsprobeRankKind::kRank;
  uint64_t number = 0;
  // A bare `rank` folder: MindSpore's graph half on a single card without RANK_ID (§1.2); msProbe
  // pairs it before every numbered rank.
  bool bare = false;
};
std::optional<MsprobeRankName> parse_msprobe_rank_dir(std::string_view name);

// dump_tensor_data (dynamic graph, aclgraph's code) or tensor_data (aclgraph's document, §1.3).
bool is_msprobe_tensor_dir(std::string_view name);
// graph / pynative: the two halves of a MindSpore PYNATIVE_GRAPH dump (§1.2).
bool is_msprobe_mix_dir(std::string_view name);

enum class MsprobeEntryKind : uint8_t {
  kApi,             // {Prefix}.{api}.{call}.{forward|backward}
  kModule,          // {Module|Cell}.{path}.{Class}.{forward|backward}.{call}
  kParametersGrad,  // {Module|Cell}.{path}.{Class}.parameters_grad[.{n}]
  kDebug,           // {name}.{count}.debug (debug.json)
  kAclgraph,        // {api}.{call} (aclgraph tensor files only)
};
enum class MsprobeDirection : uint8_t { kForward, kBackward, kNone };

struct MsprobeEntryName {
  MsprobeEntryKind kind = MsprobeEntryKind::kApi;
  MsprobeDirection direction = MsprobeDirection::kNone;
  std::string prefix;            // first component: Functional, Tensor, Module, Cell, ...
  std::string op;                // between the prefix and the counter/direction: "linear", "conv2.Conv2d"
  std::optional<uint64_t> call;  // the call counter (absent: old parameters_grad keys)
};
// A key of dump.json's "data" (§4); nullopt for names of no known shape.
std::optional<MsprobeEntryName> parse_msprobe_entry_name(std::string_view name);

enum class MsprobeCategory : uint8_t {
  kInput,          // input_args, or a backward entry's input
  kKwargs,         // input_kwargs ("input_kwargs" in aclgraph names)
  kOutput,         // output
  kParameters,     // a module's parameters
  kParameterGrad,  // parameters_grad: the parameter's name follows
  kDebug,          // debug.json: indexes follow
};
std::string_view msprobe_category_name(MsprobeCategory c);  // "input", "kwargs", ...

enum class MsprobeFileType : uint8_t { kPt, kNpy };

// A tensor file's name: {entry}.{category}[.{path}].pt|.npy (§7).
struct MsprobeDataName {
  std::string entry;  // the dump.json key it belongs to
  MsprobeEntryName parsed;
  MsprobeCategory category = MsprobeCategory::kInput;
  std::vector<std::string> path;  // list indexes and dict keys below the category
  MsprobeFileType type = MsprobeFileType::kPt;
};
std::optional<MsprobeDataName> parse_msprobe_data_name(std::string_view file_name);

// The role and index a summary of the tensor file `file_name` records (inspect, export): output
// for an output, input for everything else (args, kwargs, parameters, gradients, debug values);
// the index is the first path component when it is a number. False for no msProbe data name.
bool msprobe_tensor_role(std::string_view file_name, Role& role, uint32_t& index);

// A data_name from dump.json may name a file only inside the tensor directory: one path
// component, no "." or "..", no '/', no NUL, at most 255 bytes (§9).
bool is_safe_msprobe_data_name(std::string_view data_name);

}  // namespace msit
