// The real event source: one inotify descriptor, drained without blocking.
#include <fcntl.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "common/base/unique_fd.h"
#include "daemon/event_source.h"

namespace msit::daemon {
namespace {

class InotifySource final : public EventSource {
 public:
  explicit InotifySource(UniqueFd fd) : fd_(std::move(fd)) {}

  Result<int> add_watch(int dir_fd, const std::string& dir) override {
    // inotify takes a path: the fd's /proc entry names exactly the directory that was opened
    // (followed as the magic link it is, so without IN_DONT_FOLLOW); the path is never resolved.
    const std::string by_fd = "/proc/self/fd/" + std::to_string(dir_fd);
    int wd = ::inotify_add_watch(fd_.get(), by_fd.c_str(), kDirWatchMask & ~static_cast<uint32_t>(IN_DONT_FOLLOW));
    if (wd < 0) return make_sys_error(dir, Stage::kWatch, "inotify_add_watch failed", errno);
    return wd;
  }

  void remove_watch(int wd) override { ::inotify_rm_watch(fd_.get(), wd); }

  int poll_fd() const override { return fd_.get(); }

  Status read_events(std::vector<FsEvent>& out) override {
    // Aligned for struct inotify_event; large enough for many events per syscall.
    alignas(struct inotify_event) char buf[64 * 1024];
    for (;;) {
      ssize_t n = ::read(fd_.get(), buf, sizeof buf);
      if (n < 0) {
        if (errno == EINTR) continue;
        if (errno == EAGAIN) return ok_status();
        return make_sys_error("inotify", Stage::kRead, "reading events failed", errno);
      }
      if (n == 0) return ok_status();
      size_t off = 0;
      while (off + sizeof(struct inotify_event) <= static_cast<size_t>(n)) {
        struct inotify_event ev;
        std::memcpy(&ev, buf + off, sizeof ev);
        FsEvent e;
        e.wd = ev.wd;
        e.mask = ev.mask;
        if (ev.len > 0) e.name.assign(buf + off + sizeof ev, ::strnlen(buf + off + sizeof ev, ev.len));
        out.push_back(std::move(e));
        off += sizeof ev + ev.len;
      }
    }
  }

 private:
  UniqueFd fd_;
};

}  // namespace

std::optional<uint64_t> inotify_user_watch_limit() {
  UniqueFd fd(::open("/proc/sys/fs/inotify/max_user_watches", O_RDONLY | O_CLOEXEC));
  char buf[32] = {};
  const ssize_t n = fd.valid() ? ::read(fd.get(), buf, sizeof buf - 1) : -1;
  if (n <= 0) return std::nullopt;
  uint64_t v = 0;
  for (ssize_t i = 0; i < n && buf[i] >= '0' && buf[i] <= '9'; ++i) v = v * 10 + static_cast<uint64_t>(buf[i] - '0');
  return v > 0 ? std::optional<uint64_t>(v) : std::nullopt;
}

Result<std::unique_ptr<EventSource>> make_inotify_source() {
  int fd = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (fd < 0) return make_sys_error("inotify", Stage::kInit, "inotify_init1 failed", errno);
  return std::unique_ptr<EventSource>(new InotifySource(UniqueFd(fd)));
}

}  // namespace msit::daemon
