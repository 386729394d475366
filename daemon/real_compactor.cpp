// The production compactor and candidate policy: batches through prepare_summary() and
// publish_summaries(), so a burst of small files shares its directory fsyncs.
#include "daemon/real_compactor.h"

#include <sys/stat.h>

#include <cerrno>

#include "common/formats/dump_reader.h"
#include "common/safety/dump_roots.h"

namespace msit::daemon {

bool is_transient_error(const Error& e) {
  if (e.sys_errno != 0) return true;
  // Stages of the write/publish path fail for reasons outside the file (space, identity
  // changed by a writer, directory fsync): the raw file stays and a later attempt may pass.
  // A summary store that is busy, full or moved aside for repair ("store") may work later.
  return e.stage == Stage::kWrite || e.stage == Stage::kFsync || e.stage == Stage::kRename ||
         e.stage == Stage::kFsyncDir || e.stage == Stage::kUnlink || e.stage == Stage::kOpen ||
         e.stage == Stage::kStore;
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

std::vector<JobResult> EngineCompactor::run_batch(const std::vector<Job>& jobs) {
  const CompactOptions opts = options();
  CompactOptions keep = opts;
  keep.raw = RawAction::kKeep;
  RootsResolver resolver(roots_);
  std::vector<JobResult> out;
  std::vector<PreparedSummary> prepared;
  std::vector<size_t> owner;  // prepared[i] belongs to jobs[owner[i]]
  for (size_t i = 0; i < jobs.size(); ++i) {
    Result<FileRef> f = resolver.file(jobs[i].path);
    if (!f.ok()) {
      out.push_back(failed(jobs[i], f.take_error()));
      continue;
    }
    Result<PreparedSummary> p = prepare_summary(*f, jobs[i].keep_raw ? keep : opts);
    if (!p.ok()) {
      out.push_back(failed(jobs[i], p.take_error()));
      continue;
    }
    prepared.push_back(std::move(p).value());
    owner.push_back(i);
  }
  if (prepared.empty()) return out;
  std::vector<Result<CompactOutcome>> published = publish_summaries(std::move(prepared));
  for (size_t k = 0; k < published.size(); ++k) {
    const Job& j = jobs[owner[k]];
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
  p.already_done = [live](const std::string& path) {
    if (!live->keep_raw.load() || live->format.load() == SummaryFormat::kStore) return false;
    struct stat st {};
    return ::lstat(summary_path_for(path, live->format.load()).c_str(), &st) == 0;
  };
  return p;
}

}  // namespace msit::daemon
