// Fakes for the watch-daemon unit tests: event source, clock, probe and an in-process
// compactor that "summarises" a file by writing NAME.summary.json and unlinking it.
#pragma once

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "common/io/file.h"
#include "daemon/event_source.h"
#include "daemon/jobs.h"

namespace msit::daemon::testing {

namespace fs = std::filesystem;

class FakeSource final : public EventSource {
 public:
  Result<int> add_watch(int dir_fd, const std::string& dir) override {
    struct stat st {};
    if (::fstat(dir_fd, &st) != 0) return make_sys_error(dir, Stage::kWatch, "missing", ENOENT);
    if (!S_ISDIR(st.st_mode)) return make_sys_error(dir, Stage::kWatch, "not a dir", ENOTDIR);
    for (auto& [wd, d] : watches)
      if (d == dir) return wd;
    if (limit >= 0 && static_cast<int>(watches.size()) >= limit)
      return make_sys_error(dir, Stage::kWatch, "limit", ENOSPC);
    watches[next_wd] = dir;
    return next_wd++;
  }
  void remove_watch(int wd) override { watches.erase(wd); }
  int poll_fd() const override { return -1; }
  Status read_events(std::vector<FsEvent>& out) override {
    for (auto& e : queued) out.push_back(e);
    queued.clear();
    return ok_status();
  }
  int wd_of(const std::string& dir) const {
    for (auto& [wd, d] : watches)
      if (d == dir) return wd;
    return -1;
  }
  // Queues an event as inotify would report it for `name` inside `dir`.
  void inject(const std::string& dir, uint32_t mask, const std::string& name = "") {
    queued.push_back(FsEvent{wd_of(dir), mask, name});
  }
  void overflow() { queued.push_back(FsEvent{-1, IN_Q_OVERFLOW, ""}); }

  std::map<int, std::string> watches;
  std::deque<FsEvent> queued;
  int next_wd = 1;
  int limit = -1;
};

class FakeClock final : public Clock {
 public:
  int64_t now_ns() const override { return t.load(); }
  void advance_ms(int64_t ms) { t += ms * 1'000'000; }
  std::atomic<int64_t> t{1'000'000'000};
};

class FakeProbe final : public FileProbe {
 public:
  ProbeResult probe(const FileRef& f) override {
    ProbeResult r;
    struct stat st {};
    if (::fstatat(f.dir.get(), f.name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return r;
    const std::string& path = f.path;
    r.exists = true;
    r.regular = S_ISREG(st.st_mode);
    r.identity = identity_from_stat(st);  // production's identity, not a copy of its rule
    auto it = writer.find(path);
    r.writer = it == writer.end() ? default_writer : it->second;
    return r;
  }
  std::map<std::string, WriterState> writer;
  WriterState default_writer = WriterState::kNone;
};

// Collects jobs; the test decides when and how they complete.
class RecordingSink final : public JobSink {
 public:
  void submit(std::vector<Job> batch) override {
    for (Job& j : batch) jobs.push_back(std::move(j));
  }
  std::vector<Job> jobs;
};

// Completes jobs the way compact_file() would, counting how often each path was compacted.
inline JobResult fake_compact(const Job& j) {
  JobResult r;
  r.path = j.path;
  r.seen = j.seen;
  r.event_ns = j.event_ns;
  struct stat st {};
  if (::lstat(j.path.c_str(), &st) != 0) {
    r.status = JobStatus::kGone;
    return r;
  }
  std::ofstream(j.path + ".summary.json") << "{}";
  ::unlink(j.path.c_str());
  r.status = JobStatus::kDone;
  r.raw_removed = true;
  r.raw_bytes = static_cast<uint64_t>(st.st_size);
  r.summary_bytes = 2;
  return r;
}

inline void write_file(const std::string& path, const std::string& data = "0123456789") {
  std::ofstream(path, std::ios::binary) << data;
}

// A fresh directory under the system temp dir, removed at destruction.
struct TempDir {
  TempDir() {
    std::string templ = (fs::temp_directory_path() / "msit-daemon-test.XXXXXX").string();
    path = ::mkdtemp(templ.data());
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  std::string path;
};

}  // namespace msit::daemon::testing
