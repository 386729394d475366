// The real event source and file probe on a temp directory: close/rename events, watch
// errors, and the read-lease probe seeing a writer that still has the file open.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <unistd.h>

#include <chrono>
#include <csignal>

#include "daemon/event_source.h"
#include "daemon/jobs.h"
#include "daemon_fakes.h"

namespace msit::daemon {
namespace {

bool has(const std::vector<FsEvent>& ev, uint32_t bit, const std::string& name);

// Reads events until `done` holds, waiting on the source's fd (poll) for at most 10 s.
template <typename Done>
std::vector<FsEvent> drain_until(EventSource& s, Done done) {
  std::vector<FsEvent> out;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!done(out)) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    pollfd p{s.poll_fd(), POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) break;
    EXPECT_TRUE(s.read_events(out).ok());
  }
  return out;
}

bool has(const std::vector<FsEvent>& ev, uint32_t bit, const std::string& name) {
  for (auto& e : ev)
    if ((e.mask & bit) && e.name == name) return true;
  return false;
}

TEST(InotifySource, ReportsCloseWriteRenameAndNewDirectories) {
  testing::TempDir tmp;
  auto src = make_inotify_source();
  ASSERT_TRUE(src.ok());
  EventSource& s = **src;
  EXPECT_GE(s.poll_fd(), 0);
  testing::fs::create_directories(tmp.path + "/w");
  UniqueFd dir(::open((tmp.path + "/w").c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  auto wd = s.add_watch(dir.get(), tmp.path + "/w");
  ASSERT_TRUE(wd.ok());
  // Renamed after the watch was added: the watch is on the directory, not on the path.
  ASSERT_EQ(::rename((tmp.path + "/w").c_str(), (tmp.path + "/moved").c_str()), 0);
  const std::string d = tmp.path + "/moved";
  testing::write_file(d + "/Add.a.1.1.1");
  testing::write_file(d + "/.part");
  ::rename((d + "/.part").c_str(), (d + "/Add.b.1.1.1").c_str());
  ::mkdir((d + "/sub").c_str(), 0755);
  auto ev = drain_until(s, [](const std::vector<FsEvent>& got) {
    return has(got, IN_CLOSE_WRITE, "Add.a.1.1.1") && has(got, IN_MOVED_TO, "Add.b.1.1.1") &&
           has(got, IN_CREATE | IN_ISDIR, "sub");
  });
  EXPECT_TRUE(has(ev, IN_CLOSE_WRITE, "Add.a.1.1.1"));
  EXPECT_TRUE(has(ev, IN_MOVED_TO, "Add.b.1.1.1"));
  EXPECT_TRUE(has(ev, IN_CREATE | IN_ISDIR, "sub"));
  for (auto& e : ev) EXPECT_EQ(e.wd, *wd);
}

TEST(InotifySource, WatchesTheOpenedDirectoryNeverAPathOrAFile) {
  testing::TempDir tmp;
  auto src = make_inotify_source();
  ASSERT_TRUE(src.ok());
  testing::write_file(tmp.path + "/file");
  UniqueFd file(::open((tmp.path + "/file").c_str(), O_RDONLY | O_CLOEXEC));
  EXPECT_FALSE((*src)->add_watch(file.get(), tmp.path + "/file").ok()) << "IN_ONLYDIR";
  EXPECT_FALSE((*src)->add_watch(-1, tmp.path).ok());
}

TEST(LeaseProbe, SeesAWriterThatStillHoldsTheFileOpen) {
  std::signal(SIGIO, SIG_IGN);
  testing::TempDir tmp;
  std::string f = tmp.path + "/Add.a.1.1.1";
  int fd = ::open(f.c_str(), O_WRONLY | O_CREAT, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::write(fd, "abc", 3), 3);
  auto ref = [](const std::string& p) { return *file_ref_of_path(p); };
  ProbeResult busy = lease_probe().probe(ref(f));
  EXPECT_TRUE(busy.exists);
  EXPECT_TRUE(busy.regular);
  EXPECT_EQ(busy.writer, WriterState::kBusy);
  ::close(fd);
  ProbeResult idle = lease_probe().probe(ref(f));
  EXPECT_EQ(idle.writer, WriterState::kNone);
  EXPECT_EQ(idle.identity.size, 3u);
  ASSERT_EQ(::symlink(f.c_str(), (tmp.path + "/link").c_str()), 0);
  ProbeResult link = lease_probe().probe(ref(tmp.path + "/link"));
  EXPECT_TRUE(link.exists);
  EXPECT_FALSE(link.regular);
  EXPECT_FALSE(lease_probe().probe(ref(tmp.path + "/gone")).exists);
}

}  // namespace
}  // namespace msit::daemon
