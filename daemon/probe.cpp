// Real clock and file probe: lstat, then a read lease taken and released at once, which the
// kernel refuses (EAGAIN) while any process has the file open for writing. Where no lease can
// be taken (not the owner and no CAP_LEASE, NFS), a /proc scan of open and mapped files answers
// instead, or "unknown" when /proc cannot see every process.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <mutex>
#include <optional>

#include "common/base/test_hooks.h"
#include "common/base/unique_fd.h"
#include "common/safety/open_files.h"
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
  ProbeResult probe(const FileRef& f) override {
    ProbeResult r;
    struct stat st {};
    if (::fstatat(f.dir.get(), f.name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return r;
    r.exists = true;
    r.regular = S_ISREG(st.st_mode);
    if (!r.regular) return r;
    r.identity = identity_from_stat(st);
    r.writer = writer_state(f);
    if (r.writer == WriterState::kUnknown) r.writer = by_proc(st.st_dev, st.st_ino);
    return r;
  }

 private:
  // One /proc scan serves every probe of a dispatch pass (they come within microseconds).
  WriterState by_proc(dev_t dev, ino_t ino) {
    constexpr int64_t kReuseNs = 50'000'000;
    std::lock_guard lock(mu_);
    int64_t now = steady_clock().now_ns();
    if (!index_ || now - scanned_ns_ > kReuseNs) {
      index_ = OpenFileIndex::scan();
      scanned_ns_ = now;
    }
    if (index_->is_open(dev, ino)) return WriterState::kBusy;
    return index_->complete() ? WriterState::kNoneByProc : WriterState::kUnknown;
  }

  std::mutex mu_;
  std::optional<OpenFileIndex> index_;
  int64_t scanned_ns_ = 0;

  // Breaking our lease would send SIGIO to the daemon: the service ignores SIGIO, and the
  // lease is held for a few microseconds only, so a writer opening the file barely waits.
  static WriterState writer_state(const FileRef& f) {
    if (test_no_leases()) return WriterState::kUnknown;
    UniqueFd fd(::openat(f.dir.get(), f.name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
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

std::string describe_settle_mode(int root_fd) {
  // A lease needs a file nobody (not even we) has open for writing: an unnamed temp file,
  // reopened read-only through /proc before its writable fd is closed.
  UniqueFd fd;
  {
    UniqueFd w(::openat(root_fd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600));
    if (w.valid()) fd.reset(::open(("/proc/self/fd/" + std::to_string(w.get())).c_str(), O_RDONLY | O_CLOEXEC));
  }
  int lease_err = EINVAL;
  if (fd.valid() && !test_no_leases()) {
    if (::fcntl(fd.get(), F_SETLEASE, F_RDLCK) == 0) {
      ::fcntl(fd.get(), F_SETLEASE, F_UNLCK);
      lease_err = 0;
    } else {
      lease_err = errno;
    }
  }
  std::string lease =
      lease_err == 0 ? "kernel read leases" : std::string("no leases (") + std::strerror(lease_err) + ")";
  if (lease_err == 0 && ::geteuid() == 0) return lease + " on every file";
  OpenFileIndex idx = OpenFileIndex::scan();
  std::string proc = idx.complete() ? "/proc open-file check (complete)"
                                    : "/proc cannot tell (" + idx.gap() + "): such raw files are summarised but KEPT";
  if (lease_err == 0) return lease + " on files this user owns; for the others " + proc;
  return lease + "; " + proc;
}

}  // namespace msit::daemon
