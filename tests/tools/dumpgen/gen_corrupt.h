// Corrupt raw files (hostile input) that compact must report and never delete.
#pragma once

#include <string>

#include "tests/tools/dumpgen/gen_plan.h"

namespace dumpgen {

struct CorruptFile {
  std::string name;  // a valid-looking dump file name
  std::string bytes;
  std::string what;  // e.g. "ge_truncated"
  bool ge = true;
};

inline constexpr int kCorruptKinds = 12;
// Kind `k % kCorruptKinds`.
CorruptFile make_corrupt(Rng& rng, int k, const PlanLimits& lim, uint64_t seq);

}  // namespace dumpgen
