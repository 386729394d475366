// The live divergence events file: safe open, read-back of the ids, append with fdatasync.
#include "daemon/events_file.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "common/io/output_file.h"

namespace msit::daemon {
namespace {

constexpr size_t kMaxLine = 1 << 20;  // an event line is well under 4 KiB

bool is_event(const nlohmann::json& j) {
  return !j.is_discarded() && j.is_object() && j.contains("id") && j["id"].is_string();
}

Status check_ours(int fd, const std::string& path) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return make_sys_error(path, Stage::kStat, "events file", errno);
  const std::string fix = ": give another --events path, or move this file away";
  if (!S_ISREG(st.st_mode)) return make_error(path, Stage::kOpen, "events file: not a regular file" + fix);
  if (st.st_nlink != 1)
    return make_error(path, Stage::kLinks,
                      "events file: has " + std::to_string(st.st_nlink) + " hard links (never written through)" + fix);
  if (st.st_uid != ::geteuid())
    return make_error(path, Stage::kOpen,
                      "events file: belongs to uid " + std::to_string(st.st_uid) + ", not to this daemon (uid " +
                          std::to_string(::geteuid()) + ")" + fix);
  if ((st.st_mode & 022) != 0)
    return make_error(path, Stage::kMode,
                      "events file: writable by group or others, who could forge or hide events; run chmod go-w on it");
  return ok_status();
}

Result<UniqueFd> open_or_create(int dir, const std::string& name, const std::string& path, bool& created) {
  constexpr int kFlags = O_RDWR | O_APPEND | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK;
  UniqueFd fd(::openat(dir, name.c_str(), kFlags | O_CREAT | O_EXCL, 0600));
  created = fd.valid();
  if (created) {
    ::fchmod(fd.get(), 0600);  // exactly: a umask cannot widen it, an odd one must not narrow it to 0
    if (::fsync(dir) != 0) return make_sys_error(path, Stage::kFsyncDir, "events file: directory", errno);
    return fd;
  }
  if (errno != EEXIST) return make_sys_error(path, Stage::kOpen, "cannot create the events file", errno);
  fd = UniqueFd(::openat(dir, name.c_str(), kFlags));
  if (!fd.valid() && errno == ELOOP)
    return make_error(path, Stage::kOpen,
                      "events file: is a symbolic link; links are never followed: give the real path");
  if (!fd.valid()) return make_sys_error(path, Stage::kOpen, "cannot open the events file", errno);
  return fd;
}

using OnEvent = std::function<void(const nlohmann::json&)>;

// One complete line: an event object with an id, else the file is not ours to append to.
Status take_line(const std::string& line, size_t line_no, const std::string& path, const OnEvent& on_event) {
  if (line.empty()) return ok_status();
  nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
  if (!is_event(j))
    return make_error(path + ":" + std::to_string(line_no), Stage::kParse,
                      "events file: not an event of msit-compact (a JSON object with an \"id\" per line): give "
                      "another --events path, or move this file away");
  on_event(j);
  return ok_status();
}

// Held while the file is read back or appended to: another watch sharing the file waits.
class FileLock {
 public:
  explicit FileLock(int fd) : fd_(fd) {
    while (::flock(fd_, LOCK_EX) != 0 && errno == EINTR) {}
  }
  ~FileLock() { ::flock(fd_, LOCK_UN); }
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

 private:
  int fd_;
};

Result<uint64_t> size_of(int fd, const std::string& path) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return make_sys_error(path, Stage::kStat, "events file", errno);
  return static_cast<uint64_t>(st.st_size);
}

// The bytes after the last newline of a file of `size` bytes (empty when it ends with one).
Result<std::string> last_line_part(int fd, uint64_t size, const std::string& path) {
  if (size == 0) return std::string();
  const uint64_t n = std::min<uint64_t>(size, kMaxLine + 1);
  std::string buf(n, '\0');
  if (::pread(fd, buf.data(), n, static_cast<off_t>(size - n)) != static_cast<ssize_t>(n))
    return make_sys_error(path, Stage::kRead, "events file: its last line", errno);
  size_t nl = buf.find_last_of('\n');
  return nl == std::string::npos ? buf : buf.substr(nl + 1);
}

// `tail`, the end of a file of `size` bytes after its last newline: a whole event (a crash
// between the object and its newline) is ended and kept (`whole`); anything else is a torn write
// of an event that was never durable, cut off.
Status mend_tail(int fd, uint64_t size, const std::string& tail, const std::string& path, bool& whole) {
  whole = is_event(nlohmann::json::parse(tail, nullptr, false));
  if (whole) {
    if (::write(fd, "\n", 1) != 1 || ::fdatasync(fd) != 0)
      return make_sys_error(path, Stage::kWrite, "events file: ending the last line", errno);
    return ok_status();
  }
  if (::ftruncate(fd, static_cast<off_t>(size - tail.size())) != 0 || ::fdatasync(fd) != 0)
    return make_sys_error(path, Stage::kWrite, "events file: removing a torn last line", errno);
  return ok_status();
}

}  // namespace

std::string event_line(const nlohmann::json& event) {
  return event.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

Result<EventsFile> EventsFile::open(const std::string& path, const OnEvent& on_event, std::string& notes) {
  size_t slash = path.find_last_of('/');
  std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  if (name.empty() || name == "." || name == "..")
    return make_error(path, Stage::kOpen, "events file: give a file name, not a directory");
  MSIT_ASSIGN_OR_RETURN(UniqueFd dir_fd, open_output_dir(dir));
  bool created = false;
  MSIT_ASSIGN_OR_RETURN(UniqueFd fd, open_or_create(dir_fd.get(), name, path, created));
  MSIT_TRY(check_ours(fd.get(), path));
  FileLock lock(fd.get());
  // Read back what earlier runs wrote: ids are never reported twice.
  std::string pending;
  size_t line_no = 0;
  uint64_t offset = 0;
  char buf[65536];
  for (;;) {
    ssize_t n = ::pread(fd.get(), buf, sizeof buf, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return make_sys_error(path, Stage::kRead, "events file", errno);
    if (n == 0) break;
    offset += static_cast<uint64_t>(n);
    for (ssize_t i = 0; i < n; ++i) {
      if (buf[i] != '\n') {
        pending.push_back(buf[i]);
        if (pending.size() > kMaxLine)
          return make_error(path + ":" + std::to_string(line_no + 1), Stage::kParse,
                            "events file: a line over 1 MiB is no event of msit-compact: give another --events path");
        continue;
      }
      MSIT_TRY(take_line(pending, ++line_no, path, on_event));
      pending.clear();
    }
  }
  if (!pending.empty()) {
    bool whole = false;
    MSIT_TRY(mend_tail(fd.get(), offset, pending, path, whole));
    if (whole) MSIT_TRY(take_line(pending, ++line_no, path, on_event));
    else
      notes = path + ": removed a torn last line (" + std::to_string(pending.size()) +
              " bytes) left by a crash; that event is reported again";
  }
  (void)created;
  return EventsFile(std::move(fd), path);
}

Status EventsFile::append(const nlohmann::json& event) {
  const std::string line = event_line(event) + "\n";
  FileLock lock(fd_.get());
  MSIT_ASSIGN_OR_RETURN(uint64_t whole, size_of(fd_.get(), path_));
  // Another watch sharing the file may have died in the middle of a line: mend it first, or
  // this event would be glued onto its torn part.
  MSIT_ASSIGN_OR_RETURN(std::string tail, last_line_part(fd_.get(), whole, path_));
  if (!tail.empty()) {
    bool ended = false;
    MSIT_TRY(mend_tail(fd_.get(), whole, tail, path_, ended));
    MSIT_ASSIGN_OR_RETURN(whole, size_of(fd_.get(), path_));
  }
  size_t done = 0;
  while (done < line.size()) {
    ssize_t n = ::write(fd_.get(), line.data() + done, line.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int err = n < 0 ? errno : EIO;
      // A part of a line would glue the next event onto it: cut back to the last whole line
      // (under the lock, nobody appended since).
      if (done > 0) {
        int rc = ::ftruncate(fd_.get(), static_cast<off_t>(whole));
        (void)rc;  // if even that fails, the next start removes the torn line
      }
      return make_sys_error(path_, Stage::kWrite, "events file: appending an event", err);
    }
    done += static_cast<size_t>(n);
  }
  if (::fdatasync(fd_.get()) != 0) return make_sys_error(path_, Stage::kFsync, "events file", errno);
  return ok_status();
}

}  // namespace msit::daemon
