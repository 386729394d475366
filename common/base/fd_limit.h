// The number of file descriptors a run may hold. Batched publishing keeps every file of a batch
// open until its removal is checked through that descriptor, so a batch must fit the limit:
// systemd services and login shells start with a soft limit of 1,024 while the hard limit is
// usually far higher.
#pragma once

#include <cstddef>

namespace msit {

// Raises the soft RLIMIT_NOFILE to the hard limit (nothing here uses select()) and returns the
// soft limit in force afterwards. Safe to call more than once.
size_t raise_fd_limit();

// How many entries a batch may hold when `jobs` workers each keep `batches_in_flight` batches
// open with `fds_per_entry` descriptors per entry, leaving `reserve` descriptors for stores,
// directories and the rest; between 1 and `wanted`.
size_t batch_size_within_fd_limit(size_t wanted, size_t fd_limit, unsigned jobs, size_t batches_in_flight,
                                  size_t fds_per_entry, size_t reserve = 128);

}  // namespace msit
