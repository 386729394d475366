// The production compactor and candidate policy: batches through prepare_summary() and
// publish_summaries(), so a burst of small files shares its directory fsyncs.
#include "daemon/real_compactor.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <cerrno>
#include <filesystem>

#include "common/formats/dump_reader.h"
#include "common/io/derived_names.h"
#include "common/safety/dump_roots.h"
#include "common/safety/output_access.h"
#include "common/store/store_locator.h"

namespace msit::daemon {

bool is_transient_error(const Error& e) {
  if (e.sys_errno != 0) return true;
  // Stages of the write/publish path fail for reasons outside the file (space, identity
  // changed by a writer, directory fsync): the raw file stays and a later attempt may pass.
  // A summary store that is busy, full or moved aside for repair ("store") may work later, and
  // so does one refused for another user's side file, once that file is removed.
  return e.stage == Stage::kWrite || e.stage == Stage::kFsync || e.stage == Stage::kRename ||
         e.stage == Stage::kFsyncDir || e.stage == Stage::kUnlink || e.stage == Stage::kOpen ||
         e.stage == Stage::kStore || e.stage == Stage::kStoreOwner;
}

static JobResult failed(const Job& j, Error e) {
  JobResult r;
  r.path = j.path;
  r.seen = j.seen;
  r.event_ns = j.event_ns;
  // A file of a few bytes is a writer's first piece more often than a corrupt dump.
  if (is_incomplete_error(e) || (e.stage == Stage::kHeader && j.seen.size <= 8)) {
    r.status = JobStatus::kIncomplete;
  } else if (e.sys_errno == ENOENT && (e.stage == Stage::kOpen || e.stage == Stage::kStat)) {
    r.status = JobStatus::kGone;
  } else {
    r.status = JobStatus::kFailed;
    r.transient = is_transient_error(e);
  }
  r.error = std::move(e);
  return r;
}

void EngineCompactor::attach_tree(const std::shared_ptr<const RootHandle>& root) {
  auto stores = std::make_shared<store::StoreRegistry>();
  stores->add_root(root->path(), root->fd());
  std::lock_guard<std::mutex> lock(mu_);
  trees_[root.get()] = Tree{root, std::move(stores)};
}

void EngineCompactor::release_tree(const RootHandle& root) {
  std::shared_ptr<store::StoreRegistry> stores;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = trees_.find(&root);
    if (it == trees_.end()) return;
    stores = std::move(it->second.stores);
    trees_.erase(it);
  }
  stores->close_all();  // batches running keep the stores they hold until they finish
}

std::vector<std::string> EngineCompactor::open_existing_stores(const RootHandle& root) {
  std::vector<std::string> errors;
  std::shared_ptr<store::StoreRegistry> stores = stores_of(root);
  if (!stores) return errors;
  // Symlinks are neither followed nor taken for a store (regular files only, lstat).
  std::error_code ec;
  namespace fs = std::filesystem;
  for (auto it = fs::recursive_directory_iterator(root.path(), fs::directory_options::skip_permission_denied, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (it->path().filename() != kStoreFileName) continue;
    struct stat st {};
    if (::lstat(it->path().c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    // Any name in the store's directory locates it; nothing is created under that name.
    std::string probe = it->path().parent_path().string() + "/.msit-live-open";
    Result<store::StoreRegistry::Slot> slot = stores->store_for(probe, output_access_for(st));
    if (!slot.ok()) errors.push_back(slot.error().to_string());
  }
  // The store the root's own files go to may be above it: a torch process directory writes
  // into the store of its dump home, the msit_dump_* directory above (docs/live-divergence.md
  // "ATB and torch"). After kill -9 it has a WAL too: opened first here, when it exists (none
  // is created before a file needs it).
  for (const std::string& d : store::writer_store_dirs(root.path())) {
    if (d.size() >= root.path().size()) continue;  // the root and below: walked above
    struct stat st {};
    if (::lstat((d + "/" + std::string(kStoreFileName)).c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    Result<store::StoreRegistry::Slot> slot =
        stores->store_for(root.path() + "/.msit-live-open", output_access_for(st));
    if (!slot.ok()) errors.push_back(slot.error().to_string());
    break;  // the nearest store is the one the writer takes
  }
  return errors;
}

std::shared_ptr<store::StoreRegistry> EngineCompactor::stores_of(const RootHandle& root) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = trees_.find(&root);
  return it == trees_.end() ? nullptr : it->second.stores;
}

std::vector<std::string> EngineCompactor::take_warnings() {
  std::vector<std::shared_ptr<store::StoreRegistry>> all;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& [k, t] : trees_) all.push_back(t.stores);
  }
  std::vector<std::string> out;
  for (auto& s : all)
    for (auto& w : s->take_warnings()) out.push_back(std::move(w));
  return out;
}

static JobResult cancelled(const Job& j) {
  JobResult r;
  r.path = j.path;
  r.seen = j.seen;
  r.event_ns = j.event_ns;
  r.status = JobStatus::kCancelled;
  return r;
}

std::vector<JobResult> EngineCompactor::run_batch(const std::vector<Job>& jobs) {
  const CompactOptions base = options();
  std::vector<JobResult> out;
  std::vector<PreparedSummary> prepared;
  std::vector<size_t> owner;                                // prepared[i] belongs to jobs[owner[i]]
  std::vector<std::shared_ptr<store::StoreRegistry>> held;  // alive until the batch is published
  for (size_t i = 0; i < jobs.size(); ++i) {
    const Job& j = jobs[i];
    if (!j.root) {
      out.push_back(failed(j, make_error(j.path, Stage::kOpen, "no pinned root (internal error); never touched")));
      continue;
    }
    std::shared_ptr<store::StoreRegistry> stores = stores_of(*j.root);
    if (j.root->dropped() || !stores) {
      out.push_back(cancelled(j));  // its root moved away or was replaced: nothing is touched
      continue;
    }
    BeneathResolver resolver(j.root->fd(), j.root->path());
    Result<FileRef> f = resolver.file(j.rel);
    if (!f.ok()) {
      out.push_back(failed(j, f.take_error()));
      continue;
    }
    CompactOptions opts = base;
    opts.stores = stores.get();
    if (j.keep_raw) opts.raw = RawAction::kKeep;
    Result<PreparedSummary> p = prepare_summary(*f, opts);
    if (!p.ok()) {
      out.push_back(failed(j, p.take_error()));
      continue;
    }
    held.push_back(std::move(stores));
    prepared.push_back(std::move(p).value());
    owner.push_back(i);
  }
  if (prepared.empty()) return out;
  // Last look before any raw file is claimed: a root let go of meanwhile keeps its files.
  std::vector<PreparedSummary> go;
  std::vector<size_t> go_owner;
  for (size_t k = 0; k < prepared.size(); ++k) {
    if (jobs[owner[k]].root->dropped()) {
      out.push_back(cancelled(jobs[owner[k]]));  // the prepared temp is removed with it
      continue;
    }
    go.push_back(std::move(prepared[k]));
    go_owner.push_back(owner[k]);
  }
  prepared.clear();
  if (go.empty()) return out;
  const int64_t prepared_ns = steady_clock().now_ns();  // latency stages (daemon/counters.h)
  int64_t durable_ns = 0;
  std::vector<Result<CompactOutcome>> published = publish_summaries(std::move(go), &durable_ns);
  for (size_t k = 0; k < published.size(); ++k) {
    const Job& j = jobs[go_owner[k]];
    if (!published[k].ok()) {
      out.push_back(failed(j, published[k].take_error()));
      continue;
    }
    const CompactOutcome& o = published[k].value();
    JobResult r;
    r.path = j.path;
    r.seen = j.seen;
    r.event_ns = j.event_ns;
    r.status = JobStatus::kDone;
    r.prepared_ns = prepared_ns;
    r.durable_ns = durable_ns;
    r.verified_existing = o.kind == CompactResultKind::kVerifiedExisting;
    r.raw_removed = o.raw_removed;
    r.raw_bytes = o.raw_bytes;
    r.summary_bytes = o.summary_bytes;
    out.push_back(std::move(r));
  }
  return out;
}

CandidatePolicy engine_policy(const std::shared_ptr<const LivePolicySettings>& live,
                              const std::shared_ptr<const TreeOwners>& owners) {
  CandidatePolicy p;
  if (owners) p.owner_of = [owners](const std::string& path) { return owners->owner_of(path); };
  p.is_candidate = [](const std::string& dir, std::string_view name) {
    return DumpScope::of_path(dir).is_candidate(name);
  };
  // With raw files kept, rescans would otherwise re-read every kept raw file; an event still
  // re-checks it.
  p.already_done = [live](const FileRef& f) {
    return live->keep_raw.load() && summary_file_present(f, live->format.load());
  };
  return p;
}

}  // namespace msit::daemon
