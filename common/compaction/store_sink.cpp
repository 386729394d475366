// Store rows as a sink: which store, whether its row is new, verified or somebody else's,
// and the batch's one commit per store.
#include "common/compaction/store_sink.h"

#include "common/compaction/compact.h"

namespace msit {
namespace {

// Bytes a summary takes as store rows (reported as "after" sizes; the database adds its pages).
uint64_t stored_size_estimate(const FileSummary& s, store::SketchPrecision precision) {
  const uint64_t bucket = precision == store::SketchPrecision::kFloat32 ? 4 : 8;
  uint64_t n = 64 + s.source_name.size() + (s.op ? s.op->name.size() + s.op->type.size() + 40 : 0);
  for (const auto& t : s.tensors) {
    n += 160 + t.dtype.size() + 8 * (t.shape.size() + t.original_shape.size());
    if (t.stats.values) n += 8 * t.stats.values->size();
    if (t.stats.sketch) n += bucket * t.stats.sketch->values.size();
  }
  return n + 48 * s.extra_blocks.size();
}

}  // namespace

void BatchCommit::add(store::SummaryStore* st, size_t index, store::StoreEntry row) {
  by_store_[st].emplace_back(index, std::move(row));
}

// One transaction per store for the batch's new rows, durable before anything else happens;
// a failed commit fails exactly the entries it held.
std::vector<std::pair<size_t, Error>> BatchCommit::commit() {
  std::vector<std::pair<size_t, Error>> failed;
  for (auto& [st, members] : by_store_) {
    std::vector<store::StoreEntry> entries;
    entries.reserve(members.size());
    for (auto& m : members) entries.push_back(std::move(m.second));
    auto done = st->put(entries);
    if (done.ok()) continue;
    for (auto& m : members) failed.emplace_back(m.first, done.error());
  }
  by_store_.clear();
  return failed;
}

StoreSink::StoreSink(std::string raw_path, store::SketchPrecision sketch)
    : raw_path_(std::move(raw_path)), sketch_(sketch) {}

// The store of the raw file's dump root takes its row only when the store's readers are the
// raw file's (docs/store.md, "Who can read a store").
Result<std::unique_ptr<StoreSink>> StoreSink::attach(const FileRef& raw, const CompactOptions& opts,
                                                     const OutputAccess& access) {
  if (opts.stores == nullptr) return make_error(raw.path, Stage::kStore, "no summary store registry (internal error)");
  MSIT_ASSIGN_OR_RETURN(store::StoreRegistry::Slot slot, opts.stores->store_for(raw.path, access));
  if (!slot.same_readers) return std::unique_ptr<StoreSink>();
  auto s = std::make_unique<StoreSink>(raw.path, opts.store_sketch);
  s->store_ = std::move(slot.store);
  s->rel_ = std::move(slot.rel);
  s->path_ = s->store_->path();
  return s;
}

// --keep-raw reruns: a stored row recording this exact size and mtime needs no re-read.
bool StoreSink::up_to_date(const FileIdentity& id) const {
  auto row = store_->find_identity(rel_);
  return row.ok() && row->has_value() && (*row)->size == id.size && (*row)->mtime_ns == id.mtime_ns;
}

Status StoreSink::encode(const FileSummary& s, const RawDumpFile& /*raw*/) {
  bytes_ = stored_size_estimate(s, sketch_);
  return ok_status();
}

// The store holds one summary per raw path: the same bytes again are verified, other bytes
// under that path are somebody else's summary and are never replaced (as for a summary file).
Result<bool> StoreSink::needs_new_row(const FileSummary& fresh) const {
  MSIT_ASSIGN_OR_RETURN(std::optional<FileSummary> existing, store_->find(rel_));
  if (!existing) return true;
  existing->source_name = fresh.source_name;
  if (same_summarised_bytes(*existing, fresh)) return false;
  return make_error(raw_path_, Stage::kConflict,
                    "the summary store " + store_->path() +
                        " already holds a different summary under this "
                        "path (an earlier file of the same name); raw file kept: move it aside to compact it");
}

Status StoreSink::stage(FileSummary s, const OpenedRaw& raw) {
  MSIT_ASSIGN_OR_RETURN(bool fresh, needs_new_row(s));
  identity_ = raw.identity;
  if (fresh) stored_ = std::move(s);
  return ok_status();
}

void StoreSink::join_commit(BatchCommit& commit, size_t index) {
  if (stored_) commit.add(store_.get(), index, store::StoreEntry{rel_, identity_, &*stored_, sketch_});
}

}  // namespace msit
