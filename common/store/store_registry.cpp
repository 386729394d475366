#include "common/store/store_registry.h"

#include <fcntl.h>
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

void StoreRegistry::add_root(const std::string& root) {
  std::lock_guard lock(mu_);
  for (const auto& r : roots_)
    if (r.path == root) return;
  roots_.push_back(Root{root, nullptr, {}});
}

Result<StoreRegistry::Root*> StoreRegistry::root_of(const std::string& path) {
  Root* best = nullptr;
  for (auto& r : roots_) {
    const bool under = path.size() > r.path.size() + 1 && path.compare(0, r.path.size(), r.path) == 0 &&
                       (path[r.path.size()] == '/' || r.path == "/");
    if (under && (best == nullptr || r.path.size() > best->path.size())) best = &r;
  }
  if (best == nullptr) return make_error(path, Stage::kStore, "is below no tree this process owns; no store written");
  if (!best->fd) {
    MSIT_ASSIGN_OR_RETURN(UniqueFd fd, open_trusted_dir(best->path));
    best->fd = std::make_shared<const UniqueFd>(std::move(fd));
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

// A new store is created here, private, and given its class before SQLite sees it: SQLite then
// creates its -wal and -shm with the same owner and mode.
Status create_store_file(const DirRef& dir, const OutputAccess& access) {
  const std::string path = dir.path + "/" + std::string(kStoreFileName);
  UniqueFd fd(::openat(dir.get(), std::string(kStoreFileName).c_str(),
                       O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!fd.valid()) {
    if (errno == EEXIST) return ok_status();  // checked when it is opened
    return make_sys_error(path, Stage::kStore, "cannot create the summary store", errno);
  }
  OutputAccess store_access = access;
  store_access.mode = store_mode_of(access);
  return apply_output_access(fd.get(), store_access, path);
}

}  // namespace

Result<StoreRegistry::Slot> StoreRegistry::store_for(const std::string& path, const OutputAccess& access) {
  std::lock_guard lock(mu_);
  MSIT_ASSIGN_OR_RETURN(Root * root, root_of(path));
  const std::string rel_in_root = path.substr(root->path == "/" ? 1 : root->path.size() + 1);
  const std::string dir_rel = store_dir_for(root->path, rel_in_root);
  const std::string dir_path = dir_rel.empty() ? root->path : root->path + "/" + dir_rel;
  Slot slot;
  slot.rel = dir_rel.empty() ? rel_in_root : rel_in_root.substr(dir_rel.size() + 1);
  auto it = open_.find(dir_path);
  if (it == open_.end()) {
    MSIT_ASSIGN_OR_RETURN(UniqueFd dir_fd, open_dir_beneath(root->fd->get(), dir_rel, dir_path));
    DirRef dir{std::make_shared<const UniqueFd>(std::move(dir_fd)), dir_path};
    MSIT_TRY(create_store_file(dir, access));
    MSIT_ASSIGN_OR_RETURN(std::unique_ptr<SummaryStore> s, SummaryStore::open_for_write(dir));
    Open o;
    // Only the directory's writers could put another file under the name since the open, and
    // they can only make it look like their own class: misrouted rows would be their own files'.
    if (::fstatat(dir.get(), std::string(kStoreFileName).c_str(), &o.st, AT_SYMLINK_NOFOLLOW) != 0)
      return make_sys_error(s->path(), Stage::kStore, "cannot look at the summary store", errno);
    o.store = std::shared_ptr<SummaryStore>(std::move(s));
    it = open_.emplace(dir_path, std::move(o)).first;
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
  for (auto it = open_.begin(); it != open_.end();) {
    const bool below =
        it->first == root || (it->first.size() > root.size() && it->first.compare(0, root.size(), root) == 0 &&
                              it->first[root.size()] == '/');
    it = below ? open_.erase(it) : std::next(it);
  }
  for (auto& r : roots_) {
    if (r.path == root) r.fd.reset();
  }
}

}  // namespace msit::store
