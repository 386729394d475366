// msProbe's matching (docs/formats/msprobe-compare.md §3): which bench row each NPU row is
// compared with, in the NPU side's order. Exact keys with backward call numbers renumbered,
// -fm fuzzy match, -dm data mapping, -cm cell mapping, the dtype groups. Pure: rows in, pairs out.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/compare_msprobe/item.h"
#include "common/compare_msprobe/item_store.h"

namespace msit {

struct MsMatchOptions {
  bool fuzzy = false;        // -fm: call counters ignored, rows taken in order
  bool cross_frame = false;  // MindSpore target, PyTorch golden: dtypes folded to int/float/...
  // -dm: NPU row name -> bench row name (the dtype check is then skipped).
  std::unordered_map<std::string, std::string> data_mapping;
  // -cm: NPU cell path (after "Cell.") -> bench module path; `cell_mapping_on` also for an empty map.
  std::unordered_map<std::string, std::string> cell_mapping;
  bool cell_mapping_on = false;
  // 8.x's matching (-i compare.json, mstt's msprobe 8.3.3): a row pairs by its name AND its shape
  // (a same-name row of another shape is unmatched, also with -fm), and no backward call counter
  // is renumbered. -dm (and -lm, a data mapping) still pairs by name alone, as 8.x does.
  bool msprobe8 = false;
};

struct MsPair {
  size_t npu = 0;
  std::optional<size_t> bench;  // none: "No bench data matched."
};

// The pairs in report order. An NPU row matching several bench rows gives one pair each
// (msProbe's merge); an NPU row whose dtype is not in the bench row's dtype group is unmatched.
std::vector<MsPair> ms_match(const std::vector<MsprobeItem>& npu, const std::vector<MsprobeItem>& bench,
                             const MsMatchOptions& o);
// The same over packed rows (the compare's own, item_store.h).
std::vector<MsPair> ms_match(const MsItemStore& npu, const MsItemStore& bench, const MsMatchOptions& o);

// The pieces msProbe splits an entry name into: "Functional.linear.0.backward" ->
// {"Functional.linear", "0.backward", backward}. Empty op for a name it skips.
enum class MsDirection : uint8_t { kForward, kBackward, kParametersGrad, kNone };
struct MsEntryParts {
  std::string op;        // the name without counter and direction
  std::string call_dir;  // "0.forward" (API), "forward.0" (module), "parameters_grad"
  MsDirection direction = MsDirection::kNone;
};
MsEntryParts ms_entry_parts(const std::string& entry);

// Whether msProbe's compare keeps an entry's rows at all (its name has a direction).
inline bool ms_entry_compared(const std::string& entry) { return !ms_entry_parts(entry).op.empty(); }

// -fm's key: the name with the call counter dropped at its first forward/backward.
std::string ms_fuzzy_key(const std::string& name);

// Two dtypes msProbe compares (equal, or both in one float group; folded when cross-framework).
bool ms_dtypes_match(const std::string& npu, const std::string& bench, bool cross_frame);

}  // namespace msit
