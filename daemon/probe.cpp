// Real clock and file probe: lstat, then a read lease taken and released at once, which the
// kernel refuses (EAGAIN) while any process has the file open for writing.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <ctime>

#include "common/base/unique_fd.h"
#include "daemon/jobs.h"

namespace msit::daemon {
namespace {

class SteadyClock final : public Clock {
 public:
  int64_t now_ns() const override {
    struct timespec ts {};
    ::clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
  }
};

class LeaseProbe final : public FileProbe {
 public:
  ProbeResult probe(const std::string& path) override {
    ProbeResult r;
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) return r;
    r.exists = true;
    r.regular = S_ISREG(st.st_mode);
    if (!r.regular) return r;
    r.identity.dev = st.st_dev;
    r.identity.ino = st.st_ino;
    r.identity.size = static_cast<uint64_t>(st.st_size);
    r.identity.mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
    r.identity.ctime_ns = static_cast<int64_t>(st.st_ctim.tv_sec) * 1'000'000'000 + st.st_ctim.tv_nsec;
    r.writer = writer_state(path);
    return r;
  }

 private:
  // Breaking our lease would send SIGIO to the daemon: the service ignores SIGIO, and the
  // lease is held for a few microseconds only, so a writer opening the file barely waits.
  static WriterState writer_state(const std::string& path) {
    UniqueFd fd(::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
    if (!fd.valid()) return errno == EWOULDBLOCK ? WriterState::kBusy : WriterState::kUnknown;
    if (::fcntl(fd.get(), F_SETLEASE, F_RDLCK) == 0) {
      ::fcntl(fd.get(), F_SETLEASE, F_UNLCK);
      return WriterState::kNone;
    }
    // EAGAIN: open for writing somewhere. EINVAL (fs without leases), EACCES/EPERM (not the
    // owner and no CAP_LEASE): unknown, fall back to size/mtime stability.
    return errno == EAGAIN ? WriterState::kBusy : WriterState::kUnknown;
  }
};

}  // namespace

Clock& steady_clock() {
  static SteadyClock c;
  return c;
}

FileProbe& lease_probe() {
  static LeaseProbe p;
  return p;
}

}  // namespace msit::daemon
