// io_uring batch: per file, OPENAT (into a registered file slot, no fd table entry) -> READ ->
// CLOSE, linked so they run in order; one io_uring_submit_and_wait per batch.
#include "common/io/batch_read.h"

#include <fcntl.h>
#include <liburing.h>

#include <atomic>
#include <cerrno>
#include <cstring>

#include "common/io/file.h"

namespace msit {
namespace {

// Set when the kernel refuses an operation the batch needs (io_uring without direct
// descriptors, before Linux 5.15): every later batch goes straight to the one-by-one path.
std::atomic<bool> g_ring_unsupported{false};

constexpr uint64_t kOpen = 0, kRead = 1, kClose = 2;
uint64_t tag(size_t file, uint64_t op) { return file * 4 + op; }

}  // namespace

struct SmallFileBatch::Ring {
  io_uring ring{};
  bool ready = false;
  bool failed = false;  // a submit or wait failed: the ring is not used again

  Ring(unsigned files, bool wanted) {
    if (!wanted || g_ring_unsupported.load(std::memory_order_relaxed)) return;
    if (io_uring_queue_init(3 * files, &ring, 0) != 0) return;  // ENOSYS, EPERM: no io_uring here
    if (io_uring_register_files_sparse(&ring, files) != 0) {
      io_uring_queue_exit(&ring);
      return;
    }
    ready = true;
  }
  ~Ring() {
    if (ready) io_uring_queue_exit(&ring);
  }
};

SmallFileBatch::SmallFileBatch(size_t max_files, size_t slot_bytes, size_t padding, bool use_ring)
    : max_files_(max_files), slot_bytes_(slot_bytes), padding_(padding), fallback_(max_files),
      ring_(std::make_unique<Ring>(static_cast<unsigned>(max_files), use_ring)) {}

SmallFileBatch::~SmallFileBatch() = default;

bool SmallFileBatch::uses_ring() const {
  return ring_->ready && !ring_->failed && !g_ring_unsupported.load(std::memory_order_relaxed);
}

Result<std::string_view> SmallFileBatch::contents(size_t i) const { return results_[i]; }

int SmallFileBatch::dir_fd(std::string_view dir) {
  for (auto& [p, fd] : dirs_) {
    if (p == dir) return fd.get();
  }
  // Never closed while a batch is being prepared (read() trims the cache between batches): a
  // closed fd's number is reused by the next open, and a queued openat would then resolve the
  // name in the wrong directory.
  UniqueFd fd(::open(std::string(dir).c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!fd.valid()) return -1;
  dirs_.emplace_back(std::string(dir), std::move(fd));
  return dirs_.back().second.get();
}

void SmallFileBatch::read(const std::vector<const std::string*>& paths, size_t max_bytes) {
  // The first max_files_ files go through the ring; any beyond take the one-by-one path.
  const size_t all = paths.size(), n = std::min(all, max_files_);
  results_.assign(all, Result<std::string_view>(std::string_view()));
  if (fallback_.size() < all) fallback_.resize(all);
  for (auto& f : fallback_) {
    if (f.capacity() > (size_t{1} << 20)) std::string().swap(f);  // don't pin a rare big file
  }
  // A compare alternates between two trees: a few directory fds cover most batches.
  constexpr size_t kKeepDirs = 8;
  if (dirs_.size() > kKeepDirs) dirs_.clear();
  // Bytes read through the ring per file; -1: read this one with read_small_file_into.
  std::vector<ssize_t> got(all, -1);
  const size_t room = slot_bytes_ > padding_ ? slot_bytes_ - padding_ : 0;
  if (n > 0 && uses_ring() && room > 0) {
    // Sized at the first batch that reads: a compare's workers make one reader per chunk, and
    // most of them read no file (stored summaries); 4 MB zeroed for nothing was 3% of its time.
    if (slots_.empty()) slots_.resize(max_files_ * slot_bytes_);
    io_uring* r = &ring_->ring;
    bool prepared = true;
    for (size_t i = 0; i < n && prepared; ++i) {
      // Relative to an fd of the file's directory: the kernel walks one name instead of the
      // whole path (the files of a batch mostly share a directory).
      const std::string& path = *paths[i];
      size_t slash = path.rfind('/');
      int dir = AT_FDCWD;
      const char* name = path.c_str();
      if (slash != std::string::npos && slash > 0) {
        if (int fd = dir_fd(std::string_view(path.data(), slash)); fd >= 0) {
          dir = fd;
          name += slash + 1;
        }
      }
      io_uring_sqe* open = io_uring_get_sqe(r);
      io_uring_sqe* rd = open ? io_uring_get_sqe(r) : nullptr;
      io_uring_sqe* close = rd ? io_uring_get_sqe(r) : nullptr;
      if (!close) {
        prepared = false;  // cannot happen with a drained ring of 3 * max_files entries
        break;
      }
      // O_NONBLOCK: a FIFO swapped in after the listing must not hang the compare. No
      // O_CLOEXEC: direct descriptors refuse it (and never enter the fd table anyway).
      io_uring_prep_openat_direct(open, dir, name, O_RDONLY | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK, 0,
                                  static_cast<unsigned>(i));
      open->flags |= IOSQE_IO_LINK;
      open->user_data = tag(i, kOpen);
      io_uring_prep_read(rd, static_cast<int>(i), slots_.data() + i * slot_bytes_, static_cast<unsigned>(room), 0);
      // Hard link: a short read (every file smaller than the slot) must not cancel the close.
      rd->flags |= IOSQE_FIXED_FILE | IOSQE_IO_HARDLINK;
      rd->user_data = tag(i, kRead);
      io_uring_prep_close_direct(close, static_cast<unsigned>(i));
      close->user_data = tag(i, kClose);
    }
    int rc = -1;
    if (prepared) {
      do { rc = io_uring_submit_and_wait(r, static_cast<unsigned>(3 * n)); } while (rc == -EINTR);
    }
    if (rc < 0) {
      // Not prepared or not submitted: the ring is in an unknown state and is not used again
      // (entries left queued are never submitted); every file takes the one-by-one path.
      ring_->failed = true;
    } else {
      // Every completion is collected before returning: none may land in a slot after it is reused.
      for (size_t seen = 0; seen < 3 * n;) {
        io_uring_cqe* cqe = nullptr;
        int w = io_uring_wait_cqe(r, &cqe);
        if (w == -EINTR) continue;
        if (w != 0) {
          ring_->failed = true;
          break;
        }
        size_t file = cqe->user_data / 4;
        uint64_t op = cqe->user_data % 4;
        if (op == kOpen && (cqe->res == -EINVAL || cqe->res == -EOPNOTSUPP)) {
          g_ring_unsupported.store(true, std::memory_order_relaxed);
        }
        if (op == kRead && file < n) got[file] = cqe->res;
        io_uring_cqe_seen(r, cqe);
        ++seen;
      }
    }
  }
  for (size_t i = 0; i < all; ++i) {
    ssize_t len = got[i];
    // Errors, empty files (a FIFO or /dev/null reads as empty), full slots (the file may be
    // larger) and oversized files all get the one-by-one read and its exact error message.
    if (len > 0 && static_cast<size_t>(len) < room && static_cast<size_t>(len) <= max_bytes) {
      char* slot = slots_.data() + i * slot_bytes_;
      std::memset(slot + len, 0, padding_);
      results_[i] = std::string_view(slot, static_cast<size_t>(len));
      continue;
    }
    size_t size = 0;
    Status st = read_small_file_into(*paths[i], max_bytes, padding_, fallback_[i], size);
    if (!st.ok()) results_[i] = st.error();
    else results_[i] = std::string_view(fallback_[i].data(), size);
  }
}

}  // namespace msit
