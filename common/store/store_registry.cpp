#include "common/store/store_registry.h"

#include "common/safety/publish.h"
#include "common/store/store_locator.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <cerrno>

#include <cstdint>
#include <utility>

namespace msit::store {
namespace {

// statfs f_type values (linux/magic.h).
struct NetFs {
  uint64_t magic;
  const char* name;
};
constexpr NetFs kNetworkFilesystems[] = {
    {0x6969, "NFS"},        {0x517B, "SMB"},        {0xFF534D42, "CIFS"},    {0xFE534D42, "SMB2"},
    {0x00C36400, "CephFS"}, {0x0BD00BD0, "Lustre"}, {0x47504653, "GPFS"},    {0x65735546, "FUSE"},
    {0x01021997, "9P"},     {0x6B414653, "AFS"},    {0x5346414F, "OpenAFS"},
};

}  // namespace

std::string network_filesystem(int fd) {
  struct statfs fs {};
  if (::fstatfs(fd, &fs) != 0) return {};
  for (const NetFs& n : kNetworkFilesystems) {
    if (static_cast<uint64_t>(fs.f_type) == n.magic) return n.name;
  }
  return {};
}

void StoreRegistry::add_root(const std::string& root, SharedFd fd) {
  std::lock_guard lock(mu_);
  for (auto& r : roots_)
    if (r.path == root) {
      r.fd = std::move(fd);
      r.network.clear();
      r.checked = false;
      r.above.clear();
      return;
    }
  roots_.push_back(Root{root, std::move(fd), {}, false, {}});
}

Result<StoreRegistry::Root*> StoreRegistry::root_of(const std::string& path) {
  Root* best = nullptr;
  for (auto& r : roots_) {
    const bool under = path.size() > r.path.size() + 1 && path.compare(0, r.path.size(), r.path) == 0 &&
                       (path[r.path.size()] == '/' || r.path == "/");
    if (under && (best == nullptr || r.path.size() > best->path.size())) best = &r;
  }
  if (best == nullptr) return make_error(path, Stage::kStore, "is below no tree this process owns; no store written");
  if (!best->fd)
    return make_error(path, Stage::kStore, best->path + " was let go of (moved or removed); no store written");
  if (!best->checked) {
    best->checked = true;
    best->network = network_filesystem(best->fd->get());
    if (!best->network.empty()) {
      warnings_.push_back(best->path + " is on " + best->network +
                          ", where SQLite's locking is unreliable: per-file "
                          "JSON summaries are written there instead of a summary store");
    }
  }
  return best;
}

bool StoreRegistry::json_instead(const std::string& path) {
  std::lock_guard lock(mu_);
  auto root = root_of(path);
  return root.ok() && !(*root)->network.empty();
}

std::vector<std::string> StoreRegistry::take_warnings() {
  std::lock_guard lock(mu_);
  return std::exchange(warnings_, {});
}

namespace {

bool at_or_below(const std::string& path, const std::string& dir) {
  return path == dir ||
         (path.size() > dir.size() && path.compare(0, dir.size(), dir) == 0 && (path[dir.size()] == '/' || dir == "/"));
}

std::string rel_below(const std::string& path, const std::string& dir) {
  if (path == dir) return "";
  return path.substr(dir == "/" ? 1 : dir.size() + 1);
}

// A new store is created here and given its class before SQLite sees it: SQLite then creates
// its -wal and -shm with the same owner and mode. It is made under a temp name (private, 0600),
// given its owner and mode, and only then published under the store's name without replacing
// anything: a writer killed half-way leaves a temp, never a store of the wrong class (whose
// readers would then never match the raw files', every row going to JSON summaries).
Status create_store_file(const DirRef& dir, const OutputAccess& access) {
  struct stat st {};
  if (::fstatat(dir.get(), std::string(kStoreFileName).c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0)
    return ok_status();  // checked when it is opened
  MSIT_ASSIGN_OR_RETURN(DirTemp temp, DirTemp::create(dir, kStoreFileName, 0600));
  OutputAccess store_access = access;
  store_access.mode = store_mode_of(access);
  // Owner and mode last, just before the rename: a temp left by a kill before them is still
  // ours, so the next run's leftover rule (docs/safety.md P5) removes it.
  MSIT_TRY(apply_output_access(temp.fd(), store_access, temp.final_path()));
  MSIT_TRY(temp.sync_and_close());
  Status published = temp.publish();
  if (!published.ok() && published.error().stage == Stage::kConflict) return ok_status();  // made meanwhile
  return published;
}

}  // namespace

Result<SharedFd> StoreRegistry::dir_fd(Root& root, const std::string& dir) {
  if (at_or_below(dir, root.path)) {
    if (dir == root.path) return root.fd;
    MSIT_ASSIGN_OR_RETURN(UniqueFd fd, open_dir_beneath(root.fd->get(), rel_below(dir, root.path), dir));
    return SharedFd(std::make_shared<const UniqueFd>(std::move(fd)));
  }
  if (auto it = root.above.find(dir); it != root.above.end()) return it->second;
  // An ancestor of the tree given (trusted as given, like the root): it counts only if the
  // root is reached from it without a link, as the very directory this process owns.
  MSIT_ASSIGN_OR_RETURN(UniqueFd up, open_trusted_dir(dir));
  MSIT_ASSIGN_OR_RETURN(UniqueFd down, open_dir_beneath(up.get(), rel_below(root.path, dir), root.path));
  struct stat a {
  }, b{};
  if (::fstat(down.get(), &a) != 0 || ::fstat(root.fd->get(), &b) != 0 || a.st_dev != b.st_dev ||
      a.st_ino != b.st_ino) {
    return make_error(dir, Stage::kStore,
                      "does not lead to " + root.path + " any more (moved or replaced); no store written there");
  }
  SharedFd fd = std::make_shared<const UniqueFd>(std::move(up));
  root.above.emplace(dir, fd);
  return fd;
}

Result<std::string> StoreRegistry::locate(Root& root, const std::string& dir) {
  if (auto it = located_.find(dir); it != located_.end()) return it->second;
  const std::vector<std::string> dirs = writer_store_dirs(dir);
  if (dirs.empty()) return make_error(dir, Stage::kStore, "is in no dump root; no store written");
  std::string chosen = dirs.back();  // the home
  for (const auto& d : dirs) {
    if (auto open = open_.find(d); open != open_.end()) {
      chosen = d;
      break;
    }
    MSIT_ASSIGN_OR_RETURN(SharedFd fd, dir_fd(root, d));
    struct stat st {};
    if (::fstatat(fd->get(), std::string(kStoreFileName).c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) {
      chosen = d;  // a store written by an earlier version nested inside the dump: it stays in use
      break;
    }
  }
  located_.emplace(dir, chosen);
  return chosen;
}

Result<StoreRegistry::Slot> StoreRegistry::store_for(const std::string& path, const OutputAccess& access) {
  std::lock_guard lock(mu_);
  MSIT_ASSIGN_OR_RETURN(Root * root, root_of(path));
  const size_t slash = path.rfind('/');
  const std::string dir = slash == 0 ? std::string("/") : path.substr(0, slash);
  MSIT_ASSIGN_OR_RETURN(std::string store_dir, locate(*root, dir));
  Slot slot;
  slot.rel = rel_below(path, store_dir);
  auto it = open_.find(store_dir);
  if (it == open_.end()) {
    MSIT_ASSIGN_OR_RETURN(SharedFd fd, dir_fd(*root, store_dir));
    // The store keeps its own descriptor of the directory: the ancestors' cache may be dropped.
    UniqueFd own(::fcntl(fd->get(), F_DUPFD_CLOEXEC, 0));
    if (!own.valid()) return make_sys_error(store_dir, Stage::kStore, "cannot duplicate the directory fd", errno);
    DirRef ref{std::make_shared<const UniqueFd>(std::move(own)), store_dir};
    MSIT_TRY(create_store_file(ref, access));
    MSIT_ASSIGN_OR_RETURN(std::unique_ptr<SummaryStore> s, SummaryStore::open_for_write(ref));
    Open o;
    // Only the directory's writers could put another file under the name since the open, and
    // they can only make it look like their own class: misrouted rows would be their own files'.
    if (::fstatat(ref.get(), std::string(kStoreFileName).c_str(), &o.st, AT_SYMLINK_NOFOLLOW) != 0)
      return make_sys_error(s->path(), Stage::kStore, "cannot look at the summary store", errno);
    o.store = std::shared_ptr<SummaryStore>(std::move(s));
    it = open_.emplace(store_dir, std::move(o)).first;
  }
  slot.store = it->second.store;
  const struct stat& st = it->second.st;
  slot.same_readers = same_readers(access, st.st_uid, st.st_gid, st.st_mode);
  return slot;
}

void StoreRegistry::close_all() {
  std::lock_guard lock(mu_);
  open_.clear();
}

}  // namespace msit::store

namespace msit::store {

void StoreRegistry::close_below(const std::string& root) {
  std::lock_guard lock(mu_);
  // The tree's own stores, and the home above it that it shared (reopened, and checked
  // again, on next use).
  auto related = [&root](const std::string& dir) {
    return dir == root ||
           (dir.size() > root.size() && dir.compare(0, root.size(), root) == 0 && dir[root.size()] == '/') ||
           (root.size() > dir.size() && root.compare(0, dir.size(), dir) == 0 &&
            (root[dir.size()] == '/' || dir == "/"));
  };
  std::erase_if(open_, [&](const auto& kv) { return related(kv.first); });
  std::erase_if(located_, [&](const auto& kv) { return related(kv.first) || related(kv.second); });
  for (auto& r : roots_) {
    if (r.path == root) {
      r.fd.reset();
      r.above.clear();
    }
  }
}

}  // namespace msit::store
