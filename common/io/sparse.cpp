// The sparse-file check of raw files before any byte is read.
#include "common/io/sparse.h"

#include <unistd.h>

#include "common/base/human_units.h"

namespace msit {

Status refuse_sparse(int fd, const struct stat& st, const std::string& path) {
  const auto size = static_cast<uint64_t>(st.st_size);
  const uint64_t allocated = static_cast<uint64_t>(st.st_blocks) * 512;
  if (size < kSparseCheckMinBytes || allocated >= size / 4) return ok_status();
  const off_t hole = ::lseek(fd, 0, SEEK_HOLE);
  (void)::lseek(fd, 0, SEEK_SET);
  if (hole < 0 || static_cast<uint64_t>(hole) >= size) return ok_status();  // no hole: compressed, not sparse
  return make_error(path, Stage::kIncomplete,
                    "sparse file: only " + human_bytes(allocated) + " of its " + human_bytes(size) +
                        " are allocated (the rest are holes, read as zeros). A dump is written front to back and is "
                        "never sparse; a file still being filled through a memory map is: kept, not summarised");
}

}  // namespace msit
