// The compare pipeline as a list of steps: mode, ranks, index, graphs, match, evaluate.
#include "common/compare/compare.h"

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <optional>
#include <thread>

#include "common/compare/divergence.h"
#include "common/compare/dump_index.h"
#include "common/compare/file_cache.h"
#include "common/compare/matching.h"
#include "common/formats/graph_text.h"
#include "common/io/batch_read.h"
#include "common/summary/summary.h"

namespace msit {
namespace {

// A width-128 summary is ~3 KB; larger ones are read one by one.
constexpr size_t kSummarySlotBytes = 64 << 10;

// worker() on min(jobs, tasks) threads (this one included); each worker pulls its own tasks.
template <class Worker>
void run_workers(unsigned jobs, size_t tasks, Worker& worker) {
  unsigned t = std::max(1u, std::min<unsigned>(jobs, static_cast<unsigned>(std::min<size_t>(tasks, 1024))));
  std::vector<std::thread> pool;
  for (unsigned k = 1; k < t; ++k) pool.emplace_back(worker);
  worker();
  for (auto& th : pool) th.join();
}

std::string list_ids(const std::vector<int64_t>& ids) {
  std::string s = "[";
  for (size_t i = 0; i < ids.size(); ++i) s += (i ? ", " : "") + std::to_string(ids[i]);
  return s + "]";
}

// fn(my) and fn(golden), the golden tree on a second thread: each is a walk of a whole tree.
template <class Fn>
auto on_both_trees(const std::string& my, const std::string& golden, unsigned jobs, Fn fn) {
  using R = decltype(fn(my));
  R golden_result{};
  std::thread th;
  if (jobs > 1) th = std::thread([&] { golden_result = fn(golden); });
  R my_result = fn(my);
  if (th.joinable()) th.join();
  else golden_result = fn(golden);
  return std::pair<R, R>(std::move(my_result), std::move(golden_result));
}

Result<CompareMode> detect_mode(const std::string& my, const std::string& golden, unsigned jobs,
                                std::vector<std::string>& warnings) {
  // msit: torchair mode iff my tree has graph text; golden is GE iff it has graph text too.
  auto [mine, gold] = on_both_trees(my, golden, jobs, tree_facts);
  bool my_graph = mine.graph_files, golden_graph = gold.graph_files;
  bool my_fx = mine.fx_files, golden_fx = gold.fx_files;
  if (my_graph) return golden_graph ? CompareMode::kGeGe : CompareMode::kGeFx;
  if (my_fx && golden_fx) return CompareMode::kFxFx;
  if (!my_fx && !golden_fx) {
    warnings.push_back(my + ": no dynamo_original_graph_*.txt found; comparing GE ops of the same name only");
    return CompareMode::kGeGe;
  }
  if (my_fx) {
    return make_error(my, Stage::kMode,
                      "this is an FX dump but the golden tree is not; pass the GE dump (with its "
                      "dynamo_original_graph_*.txt) as --my-path and the FX dump as --golden-path");
  }
  return make_error(my, Stage::kMode,
                    "no GE graph text (dynamo_original_graph_*.txt) found; GE vs FX compare needs the "
                    "graph dumped next to the GE dump (torchair graph_dump type txt)");
}

struct RankJob {
  std::optional<int64_t> rank;
  std::string my_root, golden_root;
  bool golden_rank_layout = false;
};

Result<std::vector<RankJob>> plan_ranks(const std::string& my, const std::string& golden, const CompareOptions& o,
                                        std::vector<std::string>& warnings) {
  auto my_ranks = find_rank_dirs(my);
  if (my_ranks.empty()) {
    if (o.rank) warnings.push_back(my + ": no worldsize*_global_rank* directories; --rank ignored");
    return std::vector<RankJob>{RankJob{std::nullopt, my, golden, false}};
  }
  auto golden_ranks = find_rank_dirs(golden);
  std::vector<int64_t> mine, gold, common;
  for (auto& [r, _] : my_ranks) mine.push_back(r);
  for (auto& [r, _] : golden_ranks) gold.push_back(r);
  for (int64_t r : mine) {
    if (golden_ranks.count(r) && (!o.rank || *o.rank == r)) common.push_back(r);
  }
  if (common.empty()) {
    std::string what = o.rank ? "rank " + std::to_string(*o.rank) + " is not in both trees" : "no common rank";
    return make_error(my, Stage::kRanks, what + ": my ranks " + list_ids(mine) + ", golden ranks " + list_ids(gold));
  }
  std::vector<RankJob> jobs;
  for (int64_t r : common) jobs.push_back(RankJob{r, my_ranks[r], golden_ranks[r], true});
  return jobs;
}

Result<std::vector<GraphDef>> load_graphs(const std::vector<std::string>& files) {
  std::vector<GraphDef> out;
  for (const auto& f : files) {
    MSIT_ASSIGN_OR_RETURN(GraphDef g, read_graph_text_file(f));
    out.push_back(std::move(g));
  }
  return out;
}

void preload(const DumpTree& t, FileCache& cache, unsigned jobs) {
  std::vector<const SourceFile*> files;
  for (const auto& g : t.groups) {
    for (const auto& [tok, tf] : g.tokens) {
      for (const auto& [op, f] : tf.ge_ops) files.push_back(&f);
    }
  }
  // In batches of 64 files per worker: GE summaries read together (SmallFileBatch).
  constexpr size_t kBatch = 64;
  std::atomic<size_t> next{0};
  auto worker = [&] {
    SmallFileBatch reader(kBatch, kSummarySlotBytes, kSummaryParsePadding);
    std::vector<const SourceFile*> batch;
    for (size_t b = next.fetch_add(kBatch); b < files.size(); b = next.fetch_add(kBatch)) {
      batch.assign(files.begin() + static_cast<std::ptrdiff_t>(b),
                   files.begin() + static_cast<std::ptrdiff_t>(std::min(files.size(), b + kBatch)));
      cache.preload(batch, reader);
    }
  };
  run_workers(jobs, (files.size() + kBatch - 1) / kBatch, worker);
}

std::vector<int64_t> token_ids(const DumpTree& t) {
  std::vector<int64_t> v;
  for (const auto& g : t.groups) {
    for (const auto& [tok, _] : g.tokens) v.push_back(tok);
  }
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

// A rank's matched pairs and, once evaluated, its report.
struct RankWork {
  RankReport report;
  std::vector<PairSpec> pairs;
  DumpTree my, golden;  // pairs point into these
};

Status match_rank(CompareMode mode, const std::string& top_my, const RankJob& job, const CompareOptions& o,
                  FileCache& cache, RankWork& w, std::vector<std::string>& warnings) {
  bool fx_mine = mode == CompareMode::kFxFx;
  bool fx_golden = mode != CompareMode::kGeGe;
  std::vector<GraphDef> graphs;
  if (mode != CompareMode::kFxFx) {
    auto files = find_graph_files(top_my, job.rank);
    if (files.empty() && job.rank) files = find_graph_files(top_my, std::nullopt);  // old names carry no rank
    w.report.graph_files = files;
    MSIT_ASSIGN_OR_RETURN(graphs, load_graphs(files));
  }
  // The two trees are indexed at the same time: listing 100,000s of names is most of the
  // serial part of a summary compare.
  std::optional<Result<DumpTree>> golden;
  auto index_golden = [&] {
    golden.emplace(fx_golden ? index_fx_tree(job.golden_root, job.golden_rank_layout)
                             : index_ge_tree(job.golden_root, job.golden_rank_layout));
  };
  std::thread th;
  if (o.jobs > 1) th = std::thread(index_golden);
  auto mine =
      fx_mine ? index_fx_tree(job.my_root, job.rank.has_value()) : index_ge_tree(job.my_root, job.rank.has_value());
  if (th.joinable()) th.join();
  else index_golden();
  mark_phase(o.timer, "index both trees");
  MSIT_ASSIGN_OR_RETURN(w.my, std::move(mine));
  MSIT_ASSIGN_OR_RETURN(w.golden, std::move(*golden));
  warnings.insert(warnings.end(), w.my.warnings.begin(), w.my.warnings.end());
  warnings.insert(warnings.end(), w.golden.warnings.begin(), w.golden.warnings.end());
  preload(w.my, cache, o.jobs);
  preload(w.golden, cache, o.jobs);
  mark_phase(o.timer, "load GE headers");
  GraphDef empty;
  size_t n = std::min(w.my.groups.size(), w.golden.groups.size());
  if (!graphs.empty()) {
    if (graphs.size() != w.my.groups.size() || graphs.size() != w.golden.groups.size()) {
      warnings.push_back(job.my_root + ": " + std::to_string(graphs.size()) + " graph files, " +
                         std::to_string(w.my.groups.size()) + " my dump groups, " +
                         std::to_string(w.golden.groups.size()) + " golden dump groups; pairing the first " +
                         std::to_string(std::min(n, graphs.size())) + " by index");
    }
    n = std::min(n, graphs.size());
  }
  MatchResult mr;
  MatchContext ctx;
  ctx.counts = [&](const SourceFile& f) { return cache.counts(f); };
  for (size_t i = 0; i < n; ++i) {
    ctx.graph = graphs.empty() ? &empty : &graphs[i];
    ctx.graph_path = graphs.empty() ? "" : w.report.graph_files[i];
    ctx.group = i;
    size_t begin = mr.pairs.size();
    if (mode == CompareMode::kGeFx) match_ge_fx(ctx, w.my.groups[i], w.golden.groups[i], mr);
    else if (mode == CompareMode::kGeGe) match_ge_ge(ctx, w.my.groups[i], w.golden.groups[i], mr);
    else match_fx_fx(ctx, w.my.groups[i], w.golden.groups[i], mr);
    if (mode != CompareMode::kFxFx) sort_rows_msit(mr.pairs, begin, mr.pairs.size());
  }
  warnings.insert(warnings.end(), mr.warnings.begin(), mr.warnings.end());
  w.report.ops_without_rows = mr.ops_without_rows;
  w.pairs = std::move(mr.pairs);
  mark_phase(o.timer, "match");
  if (w.pairs.empty()) {
    auto mine = token_ids(w.my), gold = token_ids(w.golden);
    std::string where = job.rank ? " (rank " + std::to_string(*job.rank) + ")" : "";
    return make_error(job.my_root, Stage::kMatch,
                      "nothing to compare" + where + ": my token ids " + list_ids(mine) + ", golden token ids " +
                          list_ids(gold) + (n == 0 ? ", and no dump group could be paired" : ""));
  }
  return ok_status();
}

// A whole-file FX side (one row per file, not kept in the cache) that is a summary file or a
// stored summary: read in the batch instead of one by one.
bool batched(const TensorSlot& s) {
  return s.kind == SlotKind::kFxFile && s.file != nullptr &&
         (s.file->kind == SourceKind::kSummary || s.file->kind == SourceKind::kStored);
}

// Pairs are evaluated in the order of the store rows they read, not in the report's: the report
// orders FX nodes by execution (op0, op1, op2, ...) while a store numbers files in the order
// they were compacted (op0, op10, op100, ...), so report order sends each read of a batch to
// a different part of the store; in row order a batch is one range walk of the tensors table.
// Each row is still written at its own index, so the report is unchanged.
void order_by_stored_rows(const std::vector<RankWork>& work, std::vector<std::pair<size_t, size_t>>& all) {
  struct Key {
    const std::string* db = nullptr;  // nullptr: not stored, kept after the stored ones in report order
    int64_t id = 0;
  };
  auto key_of = [&](const std::pair<size_t, size_t>& at) {
    const PairSpec& p = work[at.first].pairs[at.second];
    for (const TensorSlot* s : {&p.my, &p.golden}) {
      if (p.problem.empty() && batched(*s) && s->file->kind == SourceKind::kStored)
        return Key{s->file->store_db, s->file->store_id};
    }
    return Key{};
  };
  std::vector<std::pair<Key, std::pair<size_t, size_t>>> keyed;
  keyed.reserve(all.size());
  for (const auto& at : all) keyed.emplace_back(key_of(at), at);
  std::stable_sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) {
    if ((a.first.db == nullptr) != (b.first.db == nullptr)) return b.first.db == nullptr;
    return std::less<const std::string*>()(a.first.db, b.first.db) ||
           (a.first.db == b.first.db && a.first.id < b.first.id);
  });
  for (size_t j = 0; j < all.size(); ++j) all[j] = keyed[j].second;
}

// Every pair of every rank through one pool of workers, kBatchPairs pairs at a time: the
// summaries of a batch are read together (SmallFileBatch), then its rows are evaluated.
void evaluate_pairs(std::vector<RankWork>& work, const std::vector<std::pair<size_t, size_t>>& all, FileCache& cache,
                    const CompareOptions& o) {
  constexpr size_t kBatchPairs = 32;
  std::atomic<size_t> next{0};
  auto worker = [&] {
    SmallFileBatch reader(2 * kBatchPairs, kSummarySlotBytes, kSummaryParsePadding);
    std::vector<const SourceFile*> files;
    std::vector<std::shared_ptr<LoadedFile>> loaded;
    for (size_t b = next.fetch_add(kBatchPairs); b < all.size(); b = next.fetch_add(kBatchPairs)) {
      size_t e = std::min(all.size(), b + kBatchPairs);
      files.clear();
      for (size_t j = b; j < e; ++j) {
        const PairSpec& p = work[all[j].first].pairs[all[j].second];
        if (!p.problem.empty()) continue;
        if (batched(p.golden)) files.push_back(p.golden.file);
        if (batched(p.my)) files.push_back(p.my.file);
      }
      cache.load_uncached(files, reader, loaded);
      size_t next_loaded = 0;
      for (size_t j = b; j < e; ++j) {
        auto [i, k] = all[j];
        PairSpec& p = work[i].pairs[k];
        std::shared_ptr<LoadedFile> g, m;
        if (p.problem.empty() && batched(p.golden)) g = std::move(loaded[next_loaded++]);
        if (p.problem.empty() && batched(p.my)) m = std::move(loaded[next_loaded++]);
        ReportRow r = evaluate_pair(std::move(p), cache, o.eval, std::move(g), std::move(m));
        r.rank = work[i].report.rank.value_or(-1);
        std::string drop = msit_drop_reason(r);
        if (!drop.empty()) r.note = r.note.empty() ? drop : r.note + "; " + drop;
        work[i].report.rows[k] = std::move(r);
      }
      if (o.pairs_done) o.pairs_done->fetch_add(e - b, std::memory_order_relaxed);
    }
  };
  run_workers(o.jobs, (all.size() + kBatchPairs - 1) / kBatchPairs, worker);
}

}  // namespace

std::string_view compare_mode_name(CompareMode m) {
  switch (m) {
    case CompareMode::kGeFx: return "GE vs FX";
    case CompareMode::kGeGe: return "GE vs GE";
    case CompareMode::kFxFx: return "FX vs FX";
  }
  return "?";
}

Result<MatchedCompare> match_compare(const std::string& my_in, const std::string& golden_in, const CompareOptions& o,
                                     FileCache& cache) {
  std::string my = absolute_path(my_in), golden = absolute_path(golden_in);
  std::error_code ec;
  for (const auto* p : {&my, &golden}) {
    if (!std::filesystem::is_directory(*p, ec)) return make_error(*p, Stage::kOpen, "not a directory");
  }
  MatchedCompare res;
  std::string base = std::filesystem::path(my).filename().string();
  if (base.rfind("msprobe", 0) == 0) res.report_prefix = "msprobe_cmp_report";
  MSIT_ASSIGN_OR_RETURN(res.mode, detect_mode(my, golden, o.jobs, res.warnings));
  MSIT_ASSIGN_OR_RETURN(auto jobs, plan_ranks(my, golden, o, res.warnings));
  mark_phase(o.timer, "detect mode and ranks");
  res.ranks.resize(jobs.size());
  for (size_t i = 0; i < jobs.size(); ++i) {
    RankWork w;
    w.report.rank = jobs[i].rank;
    MSIT_TRY(match_rank(res.mode, my, jobs[i], o, cache, w, res.warnings));
    MatchedRank& m = res.ranks[i];
    m.rank = jobs[i].rank;
    m.graph_files = std::move(w.report.graph_files);
    m.ops_without_rows = w.report.ops_without_rows;
    m.pairs = std::move(w.pairs);
    m.my = std::move(w.my);  // moves keep the addresses the pairs point to (node and buffer moves)
    m.golden = std::move(w.golden);
  }
  return res;
}

Result<CompareResult> run_compare(const std::string& my_in, const std::string& golden_in, const CompareOptions& o) {
  FileCache cache;
  MSIT_ASSIGN_OR_RETURN(MatchedCompare matched, match_compare(my_in, golden_in, o, cache));
  CompareResult res;
  res.mode = matched.mode;
  res.report_prefix = std::move(matched.report_prefix);
  res.warnings = std::move(matched.warnings);
  std::vector<RankWork> work(matched.ranks.size());
  for (size_t i = 0; i < work.size(); ++i) {
    MatchedRank& m = matched.ranks[i];
    work[i].report.rank = m.rank;
    work[i].report.graph_files = std::move(m.graph_files);
    work[i].report.ops_without_rows = m.ops_without_rows;
    work[i].pairs = std::move(m.pairs);
    work[i].my = std::move(m.my);
    work[i].golden = std::move(m.golden);
  }
  // Every pair of every rank through one pool: ranks run in parallel with each other.
  std::vector<std::pair<size_t, size_t>> all;
  for (size_t i = 0; i < work.size(); ++i) {
    work[i].report.rows.resize(work[i].pairs.size());
    for (size_t k = 0; k < work[i].pairs.size(); ++k) all.emplace_back(i, k);
  }
  mark_phase(o.timer, "allocate rows");
  if (o.pairs_total) o.pairs_total->store(all.size());
  order_by_stored_rows(work, all);
  evaluate_pairs(work, all, cache, o);
  mark_phase(o.timer, "evaluate pairs");
  for (auto& w : work) {
    mark_error_jumps(w.report.rows);
    res.ranks.push_back(std::move(w.report));
  }
  mark_phase(o.timer, "error jumps");
  return res;
}

}  // namespace msit
