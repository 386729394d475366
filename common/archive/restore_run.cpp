// restore_paths(): find archives (never following links) and restore them one by one from
// directory fds reached beneath each root, stopping between archives when cancelled.
#include <fcntl.h>
#include <sys/stat.h>

#include <cerrno>
#include <climits>
#include <cstdlib>

#include "common/archive/archive_source.h"
#include "common/archive/restore.h"
#include "common/base/unique_fd.h"
#include "common/io/derived_names.h"
#include "common/io/noreplace.h"
#include "common/io/tree_walk.h"
#include "common/safety/tree_lock.h"

namespace msit::archive {
namespace {

struct Found {
  size_t root = 0;      // index into roots (directory arguments)
  std::string rel_dir;  // below the root, "" for the root itself
  std::string name;
};

std::string trim_slashes(std::string r) {
  while (r.size() > 1 && r.back() == '/') r.pop_back();
  return r;
}

void collect_under(const std::string& root, size_t root_index, std::vector<Found>& out, std::vector<Error>& errors) {
  const std::string r = trim_slashes(root);
  const size_t skip = r == "/" ? 1 : r.size() + 1;
  walk_tree(
      r,
      [&](const WalkEntry& e) {
        if (e.type != EntryType::kFile || !is_archive_name(e.name) || e.name[0] == '.') return;
        const std::string rel = e.path.substr(skip);
        const size_t slash = rel.find_last_of('/');
        out.push_back({root_index, slash == std::string::npos ? "" : rel.substr(0, slash), e.name});
      },
      errors);
}

std::string shown_dir(const std::string& root, const std::string& rel_dir) {
  const std::string r = trim_slashes(root);
  if (rel_dir.empty()) return r;
  return r == "/" ? "/" + rel_dir : r + "/" + rel_dir;
}

}  // namespace

RestoreRun restore_paths(const std::vector<std::string>& paths, const RestoreOptions& opts) {
  RestoreRun run;
  std::vector<std::string> roots;
  std::vector<UniqueFd> root_fds;
  std::vector<Found> found;
  std::vector<std::string> files;  // archives named directly
  std::vector<TreeLock> locks;     // held until every archive below the roots is restored
  for (const auto& p : paths) {
    struct stat st {};
    if (::lstat(p.c_str(), &st) != 0) {
      run.errors.push_back(make_sys_error(p, Stage::kRestore, "cannot stat", errno));
    } else if (S_ISDIR(st.st_mode)) {
      UniqueFd fd(::open(p.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
      if (!fd.valid()) {
        run.errors.push_back(make_sys_error(p, Stage::kOpen, "cannot open the directory", errno));
        continue;
      }
      // One owner per tree: a running watch --archive would silently archive the files again.
      if (!opts.force) {
        char real[PATH_MAX];
        LockedAncestor a = locked_ancestor(::realpath(p.c_str(), real) != nullptr ? real : p);
        run.warnings.insert(run.warnings.end(), a.ignored.begin(), a.ignored.end());
        if (!a.dir.empty()) {
          run.errors.push_back(make_error(
              p, Stage::kLock,
              a.dir + " is owned by " + a.holder + " (a running msit-compact); stop it first, or pass --force"));
          continue;
        }
        auto lock = TreeLock::acquire(fd.get(), p, &run.warnings);
        if (!lock.ok()) {
          run.errors.push_back(lock.take_error());
          continue;
        }
        // Owners below too: a live watch --archive of a subtree would archive it again.
        std::vector<OwnedSubtree> below = owned_subtrees(fd.get(), p, &run.warnings);
        if (!below.empty()) {
          run.errors.push_back(make_error(
              p + "/" + below.front().rel, Stage::kLock,
              "is owned by " + below.front().holder + " (a running msit-compact); stop it first, or pass --force"));
          continue;
        }
        locks.push_back(std::move(lock).value());
      }
      roots.push_back(p);
      root_fds.push_back(std::move(fd));
      collect_under(p, roots.size() - 1, found, run.errors);
    } else if (is_archive_name(p)) {
      files.push_back(p);
    } else {
      run.errors.push_back(make_error(p, Stage::kRestore, "not an archive (archives are named NAME.zst)"));
    }
  }
  run.archives = files.size() + found.size();
  auto stop = [&] { return opts.cancelled && opts.cancelled() && (run.cancelled = true); };
  for (const auto& f : files) {
    if (stop()) return run;
    auto r = restore_archive(f, opts);
    if (r.ok()) run.restored.push_back(std::move(r).value());
    else run.errors.push_back(r.take_error());
  }
  for (const auto& f : found) {
    if (stop()) return run;
    const std::string dir_shown = shown_dir(roots[f.root], f.rel_dir);
    auto dfd = open_dir_below(root_fds[f.root].get(), f.rel_dir, dir_shown);
    if (!dfd.ok()) {
      run.errors.push_back(dfd.take_error());
      continue;
    }
    auto r = restore_archive_at(dfd->get(), dir_shown, f.name, opts);
    if (r.ok()) run.restored.push_back(std::move(r).value());
    else run.errors.push_back(r.take_error());
  }
  return run;
}

}  // namespace msit::archive
