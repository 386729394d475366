// The one evaluator and post-pass of every compare flow.
#include "common/compare/engine.h"

#include <algorithm>
#include <memory>
#include <string>

#include "common/compare/divergence.h"
#include "common/io/batch_read.h"
#include "common/summary/summary.h"

namespace msit {
namespace {

// A width-128 summary is ~3 KB; larger ones are read one by one.
constexpr size_t kSummarySlotBytes = 64 << 10;
constexpr size_t kBatchPairs = 32;

// A whole-file side (one row per file, not kept in the cache) that is a summary file or a
// stored summary: read in the batch instead of one by one.
bool batched(const TensorSlot& s) {
  return s.kind == SlotKind::kFxFile && s.file != nullptr &&
         (s.file->kind == SourceKind::kSummary || s.file->kind == SourceKind::kStored);
}

bool batched_pair(const EvalItem& it) { return !it.custom && !it.spec->problem.any(); }

// Report order -> the order of the store rows the pairs read (stored ones first, by store and
// row id; the rest after them in report order).
std::vector<size_t> store_order(const std::vector<EvalItem>& items) {
  struct Key {
    const std::string* db = nullptr;
    int64_t id = 0;
  };
  auto key_of = [&](const EvalItem& it) {
    if (!batched_pair(it)) return Key{};
    for (const TensorSlot* s : {&it.spec->my, &it.spec->golden}) {
      if (batched(*s) && s->file->kind == SourceKind::kStored) return Key{s->file->store_db, s->file->store_id};
    }
    return Key{};
  };
  std::vector<std::pair<Key, size_t>> keyed;
  keyed.reserve(items.size());
  for (size_t i = 0; i < items.size(); ++i) keyed.emplace_back(key_of(items[i]), i);
  std::stable_sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) {
    if ((a.first.db == nullptr) != (b.first.db == nullptr)) return b.first.db == nullptr;
    return std::less<const std::string*>()(a.first.db, b.first.db) ||
           (a.first.db == b.first.db && a.first.id < b.first.id);
  });
  std::vector<size_t> order(items.size());
  for (size_t j = 0; j < keyed.size(); ++j) order[j] = keyed[j].second;
  return order;
}

}  // namespace

void evaluate_items(std::vector<EvalItem>& items, FileCache& cache, const EngineOptions& o) {
  const std::vector<size_t> order = store_order(items);
  const size_t tasks = (order.size() + kBatchPairs - 1) / kBatchPairs;
  std::atomic<size_t> next{0};
  // Cores without a worker (fewer batches than --jobs, or workers done) go to the threads that
  // split one large raw pair (evaluate.cpp): 2 pairs of 64 Mi elements use both cores.
  std::atomic<int> spare{static_cast<int>(std::max(1u, o.jobs)) - static_cast<int>(worker_count(o.jobs, tasks))};
  EvalOptions eval = o.eval;
  eval.spare_threads = &spare;
  auto worker = [&] {
    SmallFileBatch reader(2 * kBatchPairs, kSummarySlotBytes, kSummaryParsePadding);
    std::vector<const SourceFile*> files;
    std::vector<std::shared_ptr<LoadedFile>> loaded;
    for (size_t b = next.fetch_add(kBatchPairs); b < order.size(); b = next.fetch_add(kBatchPairs)) {
      size_t e = std::min(order.size(), b + kBatchPairs);
      files.clear();
      for (size_t j = b; j < e; ++j) {
        const EvalItem& it = items[order[j]];
        if (!batched_pair(it)) continue;
        if (batched(it.spec->golden)) files.push_back(it.spec->golden.file);
        if (batched(it.spec->my)) files.push_back(it.spec->my.file);
      }
      cache.load_uncached(files, reader, loaded);
      size_t next_loaded = 0;
      for (size_t j = b; j < e; ++j) {
        const size_t i = order[j];
        EvalItem& it = items[i];
        if (it.custom) {
          *it.row = o.custom(i, cache);
        } else {
          std::shared_ptr<LoadedFile> g, m;
          if (batched_pair(it) && batched(it.spec->golden)) g = std::move(loaded[next_loaded++]);
          if (batched_pair(it) && batched(it.spec->my)) m = std::move(loaded[next_loaded++]);
          *it.row = evaluate_pair(std::move(*it.spec), cache, eval, std::move(g), std::move(m));
        }
        if (o.finish) o.finish(i, *it.row);
      }
      if (o.pairs_done) o.pairs_done->fetch_add(e - b, std::memory_order_relaxed);
    }
    spare.fetch_add(1, std::memory_order_relaxed);  // this worker's core is free from now on
  };
  run_workers(o.jobs, tasks, worker);
}

void post_pass(std::vector<ReportRow>& rows, RowGraph graph) {
  if (graph == RowGraph::kDataFlow) {
    mark_error_jumps(rows);
    return;
  }
  for (auto& r : rows) r.error_level = error_level(r);
}

}  // namespace msit
