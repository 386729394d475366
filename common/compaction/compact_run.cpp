// Parallel one-shot compaction over scanned trees, batching durability per worker. Scanning
// only decides what to look at; every file is then reached again from its root's fd without
// following symlinks (common/safety/beneath.h), so a tree changed after the scan is safe.
#include "common/compaction/compact_run.h"

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <optional>
#include <unordered_map>

#include "common/base/fd_limit.h"
#include "common/base/run_workers.h"
#include "common/base/test_hooks.h"
#include "common/compaction/publish_pipeline.h"
#include "common/compaction/temp_content.h"
#include "common/formats/dump_name.h"
#include "common/io/tree_walk.h"
#include "common/safety/dump_roots.h"
#include "common/safety/leftovers.h"
#include "common/safety/open_files.h"
#include "common/safety/quarantine.h"
#include "common/safety/tree_lock.h"

namespace msit {

std::string_view left_alone_reason(LeftAlone r) {
  switch (r) {
    case LeftAlone::kNotUnderDumpRoot: return "not under a dump root";
    case LeftAlone::kNotADumpName: return "not named like a dump of its tree";
    case LeftAlone::kNotRegular: return "not a regular file";
    case LeftAlone::kOwnedByOther: return "in a tree owned by another running msit-compact";
    case LeftAlone::kOpenByProcess: return "open or mapped by a process";
    case LeftAlone::kNotOurLeftover: return "a temp or claim name this user did not write, or outside a dump root";
    case LeftAlone::kHardLinked: return "with more than one hard link";
  }
  return "left alone";
}

bool is_bad_content_failure(const CompactFailure& f) {
  static constexpr Stage kStages[] = {Stage::kHeader, Stage::kPayload, Stage::kIncomplete,
                                      Stage::kParse,  Stage::kLayout,  Stage::kRead,
                                      Stage::kReduce, Stage::kStats,   Stage::kMinMax};
  return std::ranges::find(kStages, f.stage) != std::end(kStages);
}

namespace {

// A temp or claim name found by the scan, with the dump scope of its directory.
struct Leftover {
  std::string rel;
  DumpScope scope;
};

struct RootScan {
  std::string root;  // absolute
  SharedFd fd;
  TreeLock lock;
  std::vector<std::string> candidates;  // relative to root
  std::vector<Leftover> leftovers;
  std::vector<std::string> owned_subtrees;  // relative dirs a live process owns
};

bool is_side_file(NameKind k) {
  switch (k) {
    case NameKind::kGraphText:
    case NameKind::kSummary:
    case NameKind::kMinMaxNpy:
    case NameKind::kMinMaxNpz:
    case NameKind::kArchive:
    case NameKind::kStatsCsv:
    case NameKind::kMappingCsv:
    case NameKind::kLock:
    case NameKind::kStore: return true;
    default: return false;
  }
}

std::string parent_rel(const std::string& rel) {
  size_t slash = rel.rfind('/');
  return slash == std::string::npos ? std::string() : rel.substr(0, slash);
}

bool under(const std::string& rel, const std::string& dir) {
  return rel.size() > dir.size() && rel.compare(0, dir.size(), dir) == 0 && rel[dir.size()] == '/';
}

class Scanner {
 public:
  Scanner(RootScan& rs, CompactReport& report, const std::string& quarantine)
      : rs_(rs), report_(report), quarantine_(quarantine) {
    scopes_[""] = DumpScope::of_path(rs.root);
    if (scopes_[""].kind() != DumpRootKind::kNone) ++report_.dump_roots;
  }

  void visit(const WalkEntry& e) {
    const std::string rel = e.path.substr(rs_.root.size() + 1);
    if (!quarantine_.empty() && (rel == quarantine_ || under(rel, quarantine_))) {
      if (e.type == EntryType::kFile) ++report_.quarantined_before;
      return;
    }
    const DumpScope& scope = scopes_[parent_rel(rel)];
    if (e.type == EntryType::kSymlink) {
      report_.symlinks.push_back(e.path);
      return;
    }
    if (e.type == EntryType::kDirectory) {
      DumpScope inner = scope.enter(e.name);
      if (inner.kind() != scope.kind()) ++report_.dump_roots;
      scopes_[rel] = inner;
      return;
    }
    if (e.type != EntryType::kFile) {
      left(e.path, LeftAlone::kNotRegular);
      return;
    }
    NameKind kind = classify_name(e.name).kind;
    if (kind == NameKind::kTemp || kind == NameKind::kClaim) rs_.leftovers.push_back({rel, scope});
    else if (kind == NameKind::kLock) note_lock(rel);
    else if (scope.is_candidate(e.name)) rs_.candidates.push_back(rel);
    else if (!is_side_file(kind))
      left(e.path, scope.in_dump() ? LeftAlone::kNotADumpName : LeftAlone::kNotUnderDumpRoot);
  }

 private:
  void left(const std::string& path, LeftAlone why) { report_.left_alone.push_back({path, why}); }

  // A lock below the root belongs to a watch of that subtree: if it is alive, the subtree is its.
  void note_lock(const std::string& rel) {
    std::string dir = parent_rel(rel);
    if (dir.empty()) return;
    auto fd = open_dir_beneath(rs_.fd->get(), dir, rs_.root + "/" + dir);
    if (!fd.ok()) return;
    LockCheck c = check_lock(fd->get(), rs_.root + "/" + dir);
    if (c.state == LockCheck::State::kIgnored) report_.notes.push_back(c.why);
    if (c.state != LockCheck::State::kLive) return;
    rs_.owned_subtrees.push_back(dir);
    report_.notes.push_back("skipped " + rs_.root + "/" + dir + ": owned by " + c.holder + " (a running msit-compact)");
  }

  RootScan& rs_;
  CompactReport& report_;
  const std::string& quarantine_;
  std::unordered_map<std::string, DumpScope> scopes_;
};

// Leaves alone what a live owner of a subtree holds: its candidates (reported), temps and claims.
void drop_owned(RootScan& rs, CompactReport& report) {
  if (rs.owned_subtrees.empty()) return;
  auto owned = [&rs](const std::string& rel) {
    for (const auto& d : rs.owned_subtrees)
      if (under(rel, d)) return true;
    return false;
  };
  std::vector<std::string> keep;
  for (auto& c : rs.candidates) {
    if (owned(c)) report.left_alone.push_back({rs.root + "/" + c, LeftAlone::kOwnedByOther});
    else keep.push_back(std::move(c));
  }
  rs.candidates = std::move(keep);
  std::erase_if(rs.leftovers, [&owned](const Leftover& l) { return owned(l.rel); });
}

// Leftovers of an interrupted run of ours: temps go, claimed raw files get their name back
// (recover_leftover(), the routine watch uses too). Only the tree's owner may do this: another
// live process's temps are in flight. A file renamed back is compacted only if it is a candidate.
void recover_leftovers(RootScan& rs, CompactReport& report) {
  constexpr size_t kNamedInNotes = 20;
  size_t foreign = 0;
  BeneathResolver r(rs.fd, rs.root);
  for (const auto& l : rs.leftovers) {
    auto f = r.file(l.rel);
    if (!f.ok()) continue;
    LeftoverOutcome o = recover_leftover(*f, l.scope, LeftoverPolicy{.temp_content = our_temp_content});
    switch (o.action) {
      case LeftoverAction::kRemoved: ++report.temp_removed; break;
      case LeftoverAction::kRenamedBack: {
        ++report.claims_restored;
        const std::string dir = parent_rel(l.rel);
        if (l.scope.is_candidate(o.raw_name))
          rs.candidates.push_back(dir.empty() ? o.raw_name : dir + "/" + o.raw_name);
        break;
      }
      case LeftoverAction::kNameTaken:
      case LeftoverAction::kFailed: report.failures.push_back({f->path, o.message, Stage::kRename, {}}); break;
      case LeftoverAction::kNotOurs:
      case LeftoverAction::kOutsideDumpRoot:
        report.left_alone.push_back({f->path, LeftAlone::kNotOurLeftover});
        if (++foreign <= kNamedInNotes) report.notes.push_back(o.message);
        break;
      case LeftoverAction::kInFlight:
      case LeftoverAction::kGone: break;
    }
  }
  if (foreign > kNamedInNotes)
    report.notes.push_back("... and " + std::to_string(foreign - kNamedInNotes) +
                           " more temp or claim names this user did not write (-v lists them)");
}

std::string canonical_root(const std::string& root) {
  char buf[PATH_MAX];
  if (::realpath(root.c_str(), buf) != nullptr) return buf;
  std::error_code ec;
  std::string abs = std::filesystem::absolute(root, ec).lexically_normal().string();
  while (abs.size() > 1 && abs.back() == '/') abs.pop_back();
  return ec ? root : abs;
}

// Opens, locks and scans one root; nullopt (with a problem recorded) when it must be skipped.
std::optional<RootScan> scan_root(const std::string& given, const CompactRunOptions& opts, CompactReport& report,
                                  std::vector<RootProblem>& problems) {
  RootScan rs;
  rs.root = canonical_root(given);
  auto fd = open_trusted_dir(rs.root);
  if (!fd.ok()) {
    problems.push_back({given, fd.error().to_string()});
    return std::nullopt;
  }
  rs.fd = std::make_shared<const UniqueFd>(std::move(fd).value());
  const bool writes = !opts.file.dry_run;
  if (writes && !opts.force) {
    LockedAncestor a = locked_ancestor(rs.root);
    report.notes.insert(report.notes.end(), a.ignored.begin(), a.ignored.end());
    if (!a.dir.empty()) {
      problems.push_back(
          {given, a.dir + " is owned by " + a.holder + " (a running msit-compact); stop it first, or pass --force"});
      return std::nullopt;
    }
    auto lock = TreeLock::acquire(rs.fd->get(), rs.root, &report.notes);
    if (!lock.ok()) {
      problems.push_back({given, lock.error().to_string()});
      return std::nullopt;
    }
    rs.lock = std::move(lock).value();
  }
  const size_t roots_before = report.dump_roots;
  Scanner scanner(rs, report, opts.quarantine);
  std::vector<Error> errors;
  // From the root's fd: a root renamed or swapped for a symlink after it was opened is never
  // re-resolved by path (docs/safety.md, P1).
  walk_tree_fd(
      rs.fd->get(), rs.root, [&scanner](const WalkEntry& e) { scanner.visit(e); }, errors);
  for (auto& e : errors) report.failures.push_back({e.path, e.to_string(), e.stage, {}});
  if (report.dump_roots == roots_before) {
    problems.push_back({given,
                        "no dump root in this directory (msit_ge_dump, msit_fx_dump, msprobe_*_dump, "
                        "data_dump, gm_*_dump, a GE time directory, msit_dump*/tensors): nothing is compacted "
                        "outside one. Point compact at the dump's own directory.",
                        true});
  }
  drop_owned(rs, report);
  if (rs.lock.held()) recover_leftovers(rs, report);
  return rs;
}

// Batches' worth of entries per worker the publish pipeline may hold (queued, committing or
// being removed): as many open raw files as one publishing batch and one being read held
// when each worker published its own batches.
constexpr size_t kPipelineBatchesPerWorker = 2;

struct Item {
  size_t root;
  std::string rel;
};

class Runner {
 public:
  Runner(const std::vector<RootScan>& roots, std::vector<Item> items, const CompactRunOptions& opts,
         const OpenFileIndex* open, CompactReport& report, const std::function<void(const CompactProgress&)>& progress)
      : roots_(roots), items_(std::move(items)), opts_(opts), open_(open), report_(report), progress_(progress) {
    prog_.total = items_.size();
  }

  void run() {
    unsigned jobs = std::max(1u, opts_.jobs);
    // A dry run writes and removes nothing: its batches are accounted for on the worker.
    if (!opts_.file.dry_run) {
      auto sink = [this](const std::vector<std::string>& paths, std::vector<Result<CompactOutcome>> results) {
        account(paths, std::move(results));
      };
      // The stores' closing (a WAL checkpoint, its fsyncs, the WAL's removal) overlaps the last
      // removals instead of following them.
      auto close_stores = [this] {
        if (opts_.file.stores != nullptr) opts_.file.stores->close_all();
      };
      pipeline_.emplace(kPipelineBatchesPerWorker * jobs * opts_.batch_size, opts_.batch_size, sink, close_stores);
    }
    run_workers(jobs, jobs, [this] { work(); });
    if (pipeline_) pipeline_->finish();
  }

 private:
  bool cancelled() const { return opts_.cancel != nullptr && opts_.cancel->load(std::memory_order_relaxed); }

  void work() {
    std::vector<BeneathResolver> resolvers;
    for (const auto& r : roots_) resolvers.emplace_back(r.fd, r.root);
    std::vector<PreparedSummary> batch;
    while (!cancelled()) {
      size_t i = next_.fetch_add(1);
      if (i >= items_.size()) break;
      const Item& it = items_[i];
      auto f = resolvers[it.root].file(it.rel);
      if (!f.ok()) {
        record_failure(roots_[it.root].root + "/" + it.rel, f.error());
        continue;
      }
      auto prepared = prepare_summary(*f, opts_.file);
      if (!prepared.ok() && prepared.error().stage == Stage::kLinks) {
        left_alone(f->path, LeftAlone::kHardLinked);
        continue;
      }
      if (!prepared.ok()) {
        record_failure(f->path, prepared.error());
        continue;
      }
      if (open_ != nullptr && open_->is_open(prepared->raw_identity.dev, prepared->raw_identity.ino)) {
        left_alone(f->path, LeftAlone::kOpenByProcess);
        continue;  // the prepared temp is removed with it
      }
      if (pipeline_) {
        pipeline_->submit(std::move(prepared).value());
        continue;
      }
      batch.push_back(std::move(prepared).value());
      if (batch.size() >= opts_.batch_size) hand_over(batch);
    }
    hand_over(batch);
  }

  // Without the publish pipeline (a dry run): accounted for here, batch by batch.
  void hand_over(std::vector<PreparedSummary>& batch) {
    if (batch.empty()) return;
    std::vector<std::string> paths;
    for (const auto& p : batch) paths.push_back(p.raw_path);
    account(paths, publish_summaries(std::move(batch)));
    batch.clear();
  }

  void account(const std::vector<std::string>& paths, std::vector<Result<CompactOutcome>> results) {
    for (size_t i = 0; i < results.size(); ++i) {
      if (results[i].ok()) record(results[i].value());
      else record_failure(paths[i], results[i].error());
    }
  }

  void record(const CompactOutcome& o) {
    std::lock_guard lock(mu_);
    switch (o.kind) {
      case CompactResultKind::kCompacted: ++report_.compacted; break;
      case CompactResultKind::kVerifiedExisting: ++report_.verified; break;
      case CompactResultKind::kDryRun: ++report_.dry_run; break;
    }
    if (o.raw_removed) ++report_.raw_removed;
    report_.bytes_before += o.raw_bytes;
    report_.bytes_after += o.summary_bytes;
    prog_.bytes_before += o.raw_bytes;
    prog_.bytes_after += o.summary_bytes;
    advance();
  }

  void record_failure(const std::string& path, const Error& e) {
    std::lock_guard lock(mu_);
    report_.failures.push_back({path, e.to_string(), e.stage, {}});
    ++prog_.failed;
    advance();
  }

  void left_alone(const std::string& path, LeftAlone why) {
    std::lock_guard lock(mu_);
    report_.left_alone.push_back({path, why});
    advance();
  }

  void advance() {
    ++prog_.done;
    if (progress_) progress_(prog_);
  }

  const std::vector<RootScan>& roots_;
  std::vector<Item> items_;
  const CompactRunOptions& opts_;
  const OpenFileIndex* open_;
  CompactReport& report_;
  const std::function<void(const CompactProgress&)>& progress_;
  std::atomic<size_t> next_{0};
  std::mutex mu_;
  CompactProgress prog_;
  std::optional<PublishPipeline> pipeline_;
};

// Moves the files whose content failed to the quarantine of their root, while the run still
// holds the trees' locks. A file that cannot be moved stays a failure in place, with both reasons.
void quarantine_failures(const std::vector<RootScan>& scans, const std::string& qdir, CompactReport& report) {
  for (auto& f : report.failures) {
    if (!is_bad_content_failure(f)) continue;
    for (const auto& rs : scans) {
      if (!under(f.path, rs.root)) continue;
      auto moved = quarantine_file(DirRef{rs.fd, rs.root}, f.path.substr(rs.root.size() + 1), qdir);
      if (moved.ok()) {
        f.moved_to = *moved;
        ++report.quarantined;
      } else {
        f.reason += "; " + moved.error().to_string();
      }
      break;
    }
  }
}

}  // namespace

CompactReport run_compact(const std::vector<std::string>& roots, const CompactRunOptions& opts,
                          const std::function<void(const CompactProgress&)>& progress,
                          std::vector<RootProblem>* problems_out) {
  CompactReport report;
  std::vector<RootProblem> problems;
  std::vector<RootScan> scans;
  std::vector<Item> items;
  for (const auto& r : roots) {
    auto rs = scan_root(r, opts, report, problems);
    if (!rs) continue;
    for (auto& c : rs->candidates) items.push_back({scans.size(), std::move(c)});
    rs->candidates.clear();
    scans.push_back(std::move(*rs));
  }
  report.candidates = items.size();
  // Summary stores of the trees this run owns, shared by the workers (one writer per store).
  CompactRunOptions run_opts = opts;
  store::StoreRegistry stores;
  if (writes_store_rows(opts.file)) {
    for (const auto& rs : scans) stores.add_root(rs.root, rs.fd);
    run_opts.file.stores = &stores;
  }
  test_pause(PausePoint::kAfterScan);
  // Without leases, /proc tells which files a writer still holds open or mapped.
  std::optional<OpenFileIndex> open;
  if (!opts.file.dry_run && opts.file.raw != RawAction::kKeep && !items.empty()) {
    open = OpenFileIndex::scan();
    if (!open->complete()) report.notes.push_back("open-file check incomplete: " + open->gap());
  }
  // The publish pipeline holds up to kPipelineBatchesPerWorker batches' worth of entries per
  // worker (each worker holds one more entry, the one it reads), each entry up to three
  // descriptors (raw file, summary temp, archive temp).
  run_opts.batch_size =
      batch_size_within_fd_limit(opts.batch_size, raise_fd_limit(), opts.jobs, kPipelineBatchesPerWorker, 3,
                                 128 + 3 * static_cast<size_t>(opts.jobs));
  Runner(scans, std::move(items), run_opts, open ? &*open : nullptr, report, progress).run();
  if (!opts.quarantine.empty() && !opts.file.dry_run) quarantine_failures(scans, opts.quarantine, report);
  for (auto& w : stores.take_warnings()) report.notes.push_back(std::move(w));
  stores.close_all();
  report.cancelled = opts.cancel != nullptr && opts.cancel->load();
  if (problems_out != nullptr) *problems_out = std::move(problems);
  return report;
}

}  // namespace msit
