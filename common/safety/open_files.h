// Who has a file open or mapped, from /proc, for filesystems or users without leases: a
// pre-sized file filled later (np.lib.format.open_memmap, pwrite) must not be summarised
// half-written and deleted. Where /proc cannot tell (not root, hidepid), the answer is
// "unknown" and the caller keeps the raw file.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <set>
#include <string>
#include <utility>

namespace msit {

class OpenFileIndex {
 public:
  // Scans every /proc/PID/fd and /proc/PID/maps once (a few ms on a busy host).
  static OpenFileIndex scan(const std::string& proc_root = "/proc");
  // True when every process could be looked at (only then is "not open" trustworthy).
  bool complete() const { return complete_; }
  bool is_open(dev_t dev, ino_t ino) const { return open_.count({dev, ino}) != 0; }
  // Why the scan is incomplete (first unreadable process), for the one loud log line.
  const std::string& gap() const { return gap_; }
  size_t size() const { return open_.size(); }

 private:
  std::set<std::pair<dev_t, ino_t>> open_;
  bool complete_ = true;
  std::string gap_;
};

// Whether this process has capability `cap` (CAP_SYS_PTRACE: reading other users' /proc/PID/fd)
// in its effective set.
bool has_effective_capability(int cap);
// The hidepid= value of the proc mount in a mountinfo file ("" when not set or 0).
std::string proc_hidepid(const std::string& mountinfo);
// The one log line's reason why process `pid` (owned by `uid`) could not be looked at: the real
// cause (not root, no CAP_SYS_PTRACE, the process holds capabilities we lack, else a security
// module or another user namespace), never a guess. `caps_it_has_we_lack`: its permitted set
// less our effective set.
std::string unreadable_process_reason(const std::string& pid, const std::string& uid, int err, bool is_root,
                                      bool has_ptrace_cap, uint64_t caps_it_has_we_lack);

}  // namespace msit
