// One recovery routine for temps and claims of an interrupted run, shared by compact and watch.
#include "common/safety/leftovers.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>

#include "common/io/derived_names.h"
#include "common/io/file.h"
#include "common/safety/publish.h"

namespace msit {
namespace {

LeftoverOutcome outcome(LeftoverAction a, const FileRef& f, const std::string& what) {
  LeftoverOutcome o;
  o.action = a;
  o.message = f.path + ": " + what;
  return o;
}

// Anybody can create these names; only the owner's own files are acted on.
bool single_link_regular(const struct stat& st) { return S_ISREG(st.st_mode) && st.st_nlink == 1; }

// The first bytes of the file under F's name, if it is still the file ST describes.
std::optional<std::string> head_of(const FileRef& f, const struct stat& st) {
  UniqueFd fd(::openat(f.dir.get(), f.name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  struct stat opened {};
  if (!fd.valid() || ::fstat(fd.get(), &opened) != 0 || opened.st_ino != st.st_ino || opened.st_dev != st.st_dev)
    return std::nullopt;
  std::string head(kTempHeadBytes, '\0');
  const ssize_t n = ::pread(fd.get(), head.data(), head.size(), 0);
  if (n < 0) return std::nullopt;
  head.resize(static_cast<size_t>(n));
  return head;
}

// Empty when the temp's name and content are exactly what we write there; else why not.
std::string why_not_our_temp(const FileRef& f, const struct stat& st, const LeftoverPolicy& policy) {
  const std::optional<std::string> final_name = final_name_of_temp(f.name);
  if (!final_name) return "a name like our temps' that we never make";
  // restore's temps hold the raw bytes of the archive beside them; their content is not checked.
  struct stat archive {};
  if (!final_name->empty() && !derived_name_of(*final_name) && *final_name != kStoreFileName)
    return ::fstatat(f.dir.get(), archive_name_for(*final_name).c_str(), &archive, AT_SYMLINK_NOFOLLOW) == 0 &&
                   S_ISREG(archive.st_mode)
               ? ""
               : "a temp name for a file we never write in this directory";
  if (st.st_size == 0) return "";
  const std::optional<std::string> head = head_of(f, st);
  if (!head) return "cannot be read (changed meanwhile?)";
  if (policy.temp_content == nullptr || !policy.temp_content(*final_name, *head))
    return "holds something we never write under this name";
  return "";
}

LeftoverOutcome recover_temp(const FileRef& f, const struct stat& st, const LeftoverPolicy& policy) {
  if (!single_link_regular(st) || st.st_uid != ::geteuid())
    return outcome(LeftoverAction::kNotOurs, f,
                   "a temp file name this user did not write (owner uid " + std::to_string(st.st_uid) + ", links " +
                       std::to_string(st.st_nlink) + "); left alone");
  if (std::string why = why_not_our_temp(f, st, policy); !why.empty())
    return outcome(LeftoverAction::kNotOurs, f, why + "; left alone");
  if (identity_from_stat(st).mtime_ns >= policy.temps_before_ns)
    return outcome(LeftoverAction::kInFlight, f, "a temp file of this run; kept");
  if (::unlinkat(f.dir.get(), f.name.c_str(), 0) != 0) {
    if (errno == ENOENT) return outcome(LeftoverAction::kGone, f, "gone meanwhile");
    return outcome(LeftoverAction::kFailed, f, std::string("cannot remove a stale temp file: ") + std::strerror(errno));
  }
  return outcome(LeftoverAction::kRemoved, f, "removed a stale temp file of an earlier run");
}

LeftoverOutcome recover_claim(const FileRef& f, const struct stat& st, const DumpScope& scope) {
  const auto owner = claim_owner_of(f.name);
  if (!single_link_regular(st) || !owner || *owner != static_cast<uint32_t>(::geteuid()))
    return outcome(LeftoverAction::kNotOurs, f,
                   "a claim name this user did not make (no owner tag of uid " + std::to_string(::geteuid()) +
                       ", or not a regular file with one link); left alone");
  // We only ever claim raw files that were candidates: a claim of anything else is not ours.
  if (!scope.is_candidate(raw_name_of_claim(f.name)))
    return outcome(LeftoverAction::kNotOurs, f,
                   "a claim name for a file that is no dump of its dump root (never claimed by us); left alone");
  auto back = restore_claim(f.dir, f.name);
  if (!back.ok()) return outcome(LeftoverAction::kFailed, f, back.error().to_string());
  if (!*back)
    return outcome(LeftoverAction::kNameTaken, f,
                   "a raw file claimed by an interrupted run cannot get its name back (the name is taken); both kept");
  LeftoverOutcome o =
      outcome(LeftoverAction::kRenamedBack, f, "a raw file claimed by an interrupted run got its name back");
  o.raw_name = raw_name_of_claim(f.name);
  return o;
}

// An empty lock file a killed run left under a private name (below). Nobody can hold it as a
// lock any more (it never had, or no longer has, the lock name), so it goes, unless it is not
// provably ours and empty, or someone still holds a lock on it.
LeftoverOutcome remove_dead_lock_file(const FileRef& f, const struct stat& st, bool ours, const char* what) {
  if (!ours || !single_link_regular(st) || st.st_uid != ::geteuid() || st.st_size != 0)
    return outcome(
        LeftoverAction::kNotOurs, f,
        std::string("a ") + what +
            " this user did not make (not empty, not ours, or not a regular file with one link); left alone");
  UniqueFd fd(::openat(f.dir.get(), f.name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK));
  struct stat opened {};
  if (!fd.valid() || ::fstat(fd.get(), &opened) != 0 || opened.st_ino != st.st_ino || opened.st_dev != st.st_dev ||
      ::flock(fd.get(), LOCK_EX | LOCK_NB) != 0)
    return outcome(LeftoverAction::kNotOurs, f,
                   std::string("a ") + what + " that changed or is still locked; left alone");
  if (::unlinkat(f.dir.get(), f.name.c_str(), 0) != 0) {
    if (errno == ENOENT) return outcome(LeftoverAction::kGone, f, "gone meanwhile");
    return outcome(LeftoverAction::kFailed, f,
                   std::string("cannot remove a killed run's lock: ") + std::strerror(errno));
  }
  return outcome(LeftoverAction::kRemoved, f, "removed the lock file of a run killed while it took the tree");
}

// TreeLock::acquire removes a killed run's lock through a claim (move aside, check, unlink); a
// kill -9 between the two steps leaves the empty lock under our claim name (docs/safety.md P8).
LeftoverOutcome recover_lock_claim(const FileRef& f, const struct stat& st) {
  const auto owner = claim_owner_of(f.name);
  return remove_dead_lock_file(f, st, owner && *owner == static_cast<uint32_t>(::geteuid()), "claim of the lock name");
}

// TreeLock::acquire creates its lock under a temp name, locks it and links it to the lock name;
// a kill -9 before the temp name is gone leaves it (docs/safety.md P9). Its creator holds a
// lock on it while it lives, and whoever recovers leftovers holds the tree's lock, so a racing
// taker's temp that is not yet locked could never become the lock anyway.
LeftoverOutcome recover_lock_temp(const FileRef& f, const struct stat& st) {
  return remove_dead_lock_file(f, st, true, "temp of the lock name");
}

}  // namespace

LeftoverOutcome recover_leftover(const FileRef& f, const DumpScope& scope, const LeftoverPolicy& policy) {
  struct stat st {};
  if (::fstatat(f.dir.get(), f.name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
    return outcome(LeftoverAction::kGone, f, "gone meanwhile");
  // The tree's lock lives at the watched root, which need not be inside a dump root.
  if (is_claim_name(f.name) && raw_name_of_claim(f.name) == kLockName) return recover_lock_claim(f, st);
  if (is_lock_temp_name(f.name)) return recover_lock_temp(f, st);
  // Temps and claims are only ever made next to raw files and summaries, inside dump roots.
  if (scope.kind() == DumpRootKind::kNone)
    return outcome(LeftoverAction::kOutsideDumpRoot, f,
                   "a temp or claim name outside every dump root is never ours; left alone");
  if (is_claim_name(f.name)) return recover_claim(f, st, scope);
  return recover_temp(f, st, policy);
}

bool leftover_kept(LeftoverAction a) {
  return a == LeftoverAction::kNotOurs || a == LeftoverAction::kOutsideDumpRoot || a == LeftoverAction::kNameTaken ||
         a == LeftoverAction::kFailed;
}

}  // namespace msit
