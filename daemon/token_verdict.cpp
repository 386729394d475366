// Which raw files of a final token stay raw: the diverging op's and those of the N ops before
// it (docs/live-divergence.md "Keeping the evidence").
#include "daemon/token_verdict.h"

namespace msit::daemon {

std::vector<std::string> files_to_keep(const TokenVerdict& v, uint32_t n) {
  if (!v.diverged || *v.diverged >= v.op_files.size()) return {};
  size_t k = *v.diverged, from = k >= n ? k - n : 0;
  std::vector<std::string> keep;
  for (size_t i = from; i <= k; ++i) {
    keep.push_back(v.op_files[i]);
    auto m = v.op_members.find(v.op_files[i]);
    if (m != v.op_members.end()) keep.insert(keep.end(), m->second.begin(), m->second.end());
  }
  return keep;
}

}  // namespace msit::daemon
