#include "common/base/fd_limit.h"

#include <sys/resource.h>

#include <algorithm>

namespace msit {

size_t raise_fd_limit() {
  struct rlimit rl {};
  if (::getrlimit(RLIMIT_NOFILE, &rl) != 0) return 1024;
  if (rl.rlim_cur < rl.rlim_max) {
    struct rlimit raised = rl;
    raised.rlim_cur = rl.rlim_max;
    if (::setrlimit(RLIMIT_NOFILE, &raised) == 0) rl = raised;
  }
  return rl.rlim_cur == RLIM_INFINITY ? size_t{1} << 20 : static_cast<size_t>(rl.rlim_cur);
}

size_t batch_size_within_fd_limit(size_t wanted, size_t fd_limit, unsigned jobs, size_t batches_in_flight,
                                  size_t fds_per_entry, size_t reserve) {
  const size_t holders =
      std::max<size_t>(1, jobs) * std::max<size_t>(1, batches_in_flight) * std::max<size_t>(1, fds_per_entry);
  const size_t usable = fd_limit > reserve ? fd_limit - reserve : 0;
  return std::clamp<size_t>(usable / holders, 1, std::max<size_t>(1, wanted));
}

}  // namespace msit
